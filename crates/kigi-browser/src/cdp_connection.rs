//! One Chrome DevTools Protocol connection: commands are JSON messages with ids, a reader
//! task hands each answer to the call that waits for it and every event to subscribers, a
//! writer task owns the socket's sending half.
//!
//! The rule: every wait has a ceiling. A call that gets no answer in time fails with
//! [`BrowserError::Timeout`], and a call that ends in any way (answered, timed out, or
//! dropped by a cancelled caller) forgets its id; when the connection closes, every waiting
//! call fails at once with [`BrowserError::Closed`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::error::BrowserError;
use crate::websocket::{Reply, WsMessage, WsReader, WsUrl, WsWriter, connect};

/// Events kept for a subscriber that reads late; older ones are dropped for it.
const EVENT_BACKLOG: usize = 1024;
/// Outgoing messages queued before a caller waits for the socket.
const SEND_QUEUE: usize = 64;

/// An event the browser sent.
#[derive(Debug, Clone, PartialEq)]
pub struct CdpEvent {
    pub method: String,
    pub params: Value,
    /// The attached target it concerns (flattened sessions); `None` for the browser's own.
    pub session_id: Option<String>,
}

type Waiter = oneshot::Sender<Result<Value, BrowserError>>;

/// Calls waiting for their answers, by id.
#[derive(Debug, Default)]
struct Pending {
    waiters: HashMap<u64, Waiter>,
    closed: bool,
}

/// A live connection. Dropping it stops both tasks (the socket closes with them).
#[derive(Debug)]
pub struct CdpConnection {
    outgoing: mpsc::Sender<String>,
    pending: Arc<Mutex<Pending>>,
    next_id: AtomicU64,
    events: broadcast::Sender<CdpEvent>,
    closed: Arc<AtomicBool>,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

impl Drop for CdpConnection {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
    }
}

/// Forgets a call's waiter however the call ends, a caller's cancellation included.
struct ForgetWaiter<'a> {
    pending: &'a Mutex<Pending>,
    id: u64,
}

impl Drop for ForgetWaiter<'_> {
    fn drop(&mut self) {
        lock(self.pending).waiters.remove(&self.id);
    }
}

fn lock(pending: &Mutex<Pending>) -> std::sync::MutexGuard<'_, Pending> {
    pending
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl CdpConnection {
    /// Connects to a DevTools WebSocket URL (`ws://127.0.0.1:PORT/devtools/browser/…`).
    pub async fn connect(url: &str, ceiling: Duration) -> Result<Self, BrowserError> {
        let url = WsUrl::parse(url)?;
        let (reader, writer) = tokio::time::timeout(ceiling, connect(&url))
            .await
            .map_err(|_| BrowserError::Timeout {
                method: "the DevTools WebSocket handshake".into(),
                ceiling,
            })??;
        let (outgoing, queue) = mpsc::channel(SEND_QUEUE);
        let (replies_in, replies) = mpsc::channel(SEND_QUEUE);
        let pending = Arc::new(Mutex::new(Pending::default()));
        let (events, _) = broadcast::channel(EVENT_BACKLOG);
        let closed = Arc::new(AtomicBool::new(false));
        let reader = tokio::spawn(read_loop(
            reader,
            Arc::clone(&pending),
            events.clone(),
            replies_in,
            Arc::clone(&closed),
        ));
        let writer = tokio::spawn(write_loop(writer, queue, replies));
        Ok(Self {
            outgoing,
            pending,
            next_id: AtomicU64::new(1),
            events,
            closed,
            reader,
            writer,
        })
    }

    /// Events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<CdpEvent> {
        self.events.subscribe()
    }

    /// True once the browser closed the connection.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Sends `method` with `params` (to the attached target `session`, if any) and waits at
    /// most `ceiling` for its result.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        ceiling: Duration,
    ) -> Result<Value, BrowserError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = lock(&self.pending);
            if pending.closed {
                return Err(BrowserError::Closed);
            }
            pending.waiters.insert(id, tx);
        }
        let _forget = ForgetWaiter {
            pending: &self.pending,
            id,
        };
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = Value::String(session.to_owned());
        }
        let answer = tokio::time::timeout(ceiling, async {
            self.outgoing
                .send(message.to_string())
                .await
                .map_err(|_| BrowserError::Closed)?;
            rx.await.map_err(|_| BrowserError::Closed)?
        })
        .await;
        match answer {
            Ok(result) => result.map_err(|e| match e {
                BrowserError::Command { message, .. } => BrowserError::Command {
                    method: method.to_owned(),
                    message,
                },
                other => other,
            }),
            Err(_) => Err(BrowserError::Timeout {
                method: method.to_owned(),
                ceiling,
            }),
        }
    }
}

async fn write_loop(
    mut writer: WsWriter,
    mut queue: mpsc::Receiver<String>,
    mut replies: mpsc::Receiver<Reply>,
) {
    loop {
        let sent = tokio::select! {
            message = queue.recv() => match message {
                Some(text) => writer.send_text(&text).await,
                None => return,
            },
            reply = replies.recv() => match reply {
                Some(reply) => writer.reply(reply).await,
                None => return,
            },
        };
        if sent.is_err() {
            return;
        }
    }
}

async fn read_loop(
    mut reader: WsReader,
    pending: Arc<Mutex<Pending>>,
    events: broadcast::Sender<CdpEvent>,
    replies: mpsc::Sender<Reply>,
    closed: Arc<AtomicBool>,
) {
    let mut to_send = Vec::new();
    loop {
        let message = reader.next(&mut to_send).await;
        for reply in to_send.drain(..) {
            let _ = replies.try_send(reply);
        }
        let text = match message {
            Ok(WsMessage::Text(text)) => text,
            Ok(WsMessage::Closed) | Err(_) => break,
        };
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        dispatch(value, &pending, &events);
    }
    closed.store(true, Ordering::Release);
    let mut pending = lock(&pending);
    pending.closed = true;
    for (_, waiter) in pending.waiters.drain() {
        let _ = waiter.send(Err(BrowserError::Closed));
    }
}

/// Hands one message to its waiting call (an answer) or to the subscribers (an event).
fn dispatch(mut value: Value, pending: &Mutex<Pending>, events: &broadcast::Sender<CdpEvent>) {
    if let Some(id) = value.get("id").and_then(Value::as_u64) {
        let Some(waiter) = lock(pending).waiters.remove(&id) else {
            return;
        };
        let answer = match value.get_mut("error") {
            Some(error) => Err(BrowserError::Command {
                method: String::new(),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown error")
                    .to_owned(),
            }),
            None => Ok(value.get_mut("result").map(Value::take).unwrap_or_default()),
        };
        let _ = waiter.send(answer);
        return;
    }
    if let Some(method) = value.get("method").and_then(Value::as_str) {
        let event = CdpEvent {
            method: method.to_owned(),
            session_id: value
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned),
            params: value.get_mut("params").map(Value::take).unwrap_or_default(),
        };
        // Nobody listening is fine.
        let _ = events.send(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_reaches_its_waiter_and_an_error_answer_carries_its_message() {
        let pending = Mutex::new(Pending::default());
        let (events, _) = broadcast::channel(4);
        let (ok_tx, mut ok_rx) = oneshot::channel();
        let (err_tx, mut err_rx) = oneshot::channel();
        lock(&pending).waiters.insert(1, ok_tx);
        lock(&pending).waiters.insert(2, err_tx);
        dispatch(json!({"id": 1, "result": {"x": 1}}), &pending, &events);
        dispatch(
            json!({"id": 2, "error": {"code": -32000, "message": "No node"}}),
            &pending,
            &events,
        );
        assert_eq!(ok_rx.try_recv().unwrap(), Ok(json!({"x": 1})));
        assert_eq!(
            err_rx.try_recv().unwrap(),
            Err(BrowserError::Command {
                method: String::new(),
                message: "No node".into()
            })
        );
        assert!(lock(&pending).waiters.is_empty());
    }

    #[tokio::test]
    async fn a_cancelled_call_forgets_its_waiter() {
        use crate::fake_devtools::FakeDevtools;
        // Nothing is ever answered.
        let endpoint = FakeDevtools::start(|_| None).await;
        let connection = CdpConnection::connect(&endpoint.url, Duration::from_secs(10))
            .await
            .unwrap();
        let call = connection.call(None, "Page.enable", json!({}), Duration::from_secs(30));
        // Polled once (it registers its waiter and waits), then dropped: the caller gave up.
        tokio::select! {
            biased;
            _ = call => panic!("an unanswered call finished"),
            () = std::future::ready(()) => {}
        }
        assert!(lock(&connection.pending).waiters.is_empty());
    }

    #[test]
    fn an_event_goes_to_subscribers_with_its_session() {
        let pending = Mutex::new(Pending::default());
        let (events, mut rx) = broadcast::channel(4);
        dispatch(
            json!({"method": "Page.loadEventFired", "params": {"timestamp": 1.0}, "sessionId": "S"}),
            &pending,
            &events,
        );
        assert_eq!(
            rx.try_recv().unwrap(),
            CdpEvent {
                method: "Page.loadEventFired".into(),
                params: json!({"timestamp": 1.0}),
                session_id: Some("S".into()),
            }
        );
    }
}
