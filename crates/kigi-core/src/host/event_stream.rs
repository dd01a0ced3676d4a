//! The host's one event stream: every agent of a session tree pushes into an [`EventSink`],
//! one front end reads the [`EventStream`].
//!
//! The rule (what a front end may rely on): nothing is dropped, and each agent's events
//! arrive in the order that agent produced them, with one exception. A live text or thinking
//! delta pushed while that agent's latest unread event is a delta of the same kind is
//! appended to it: when the reader is behind, deltas coalesce instead of piling up, also
//! while several agents stream at once. A coalesced delta may then sit before events other
//! agents pushed after its first part. A reader that keeps up sees every delta as the model
//! sent it. Unread events other than deltas accumulate, so every front end reads the stream
//! (or drops the session).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use kigi_protocol::{HostEvent, HostEventBody, HostNotice, MAIN_AGENT_ID, SessionEvent};
use tokio::sync::Notify;

use super::activity::activity_label;
use crate::lock::lock;

/// How far back a delta looks for its agent's latest unread event (enough for a full swarm's
/// members streaming at once).
const COALESCE_LOOKBACK: usize = 256;

#[derive(Debug, Default)]
struct Shared {
    queue: Mutex<VecDeque<HostEvent>>,
    ready: Notify,
    closed: AtomicBool,
}

/// Where agents push their events. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct EventSink {
    shared: Arc<Shared>,
}

/// The reading end. One per session host session.
#[derive(Debug)]
pub struct EventStream {
    shared: Arc<Shared>,
}

/// A new sink and the stream that reads it.
pub fn event_channel() -> (EventSink, EventStream) {
    let sink = EventSink::default();
    let stream = EventStream {
        shared: Arc::clone(&sink.shared),
    };
    (sink, stream)
}

impl EventSink {
    /// Queues `event`, coalescing a delta into a queued delta of the same agent and kind.
    pub fn push(&self, event: HostEvent) {
        {
            let mut queue = lock(&self.shared.queue);
            let delta = matches!(
                event.body,
                HostEventBody::Session(
                    SessionEvent::TextDelta { .. } | SessionEvent::ThinkingDelta { .. }
                )
            );
            // For a delta: this agent's latest unread event, looked for among the newest few.
            let latest = queue
                .iter_mut()
                .rev()
                .take(if delta { COALESCE_LOOKBACK } else { 0 })
                .find(|queued| queued.agent_id == event.agent_id);
            if let Some(last) = latest
                && let (HostEventBody::Session(queued), HostEventBody::Session(new)) =
                    (&mut last.body, &event.body)
            {
                match (queued, new) {
                    (
                        SessionEvent::TextDelta { text: queued },
                        SessionEvent::TextDelta { text: new },
                    )
                    | (
                        SessionEvent::ThinkingDelta { text: queued },
                        SessionEvent::ThinkingDelta { text: new },
                    ) => {
                        queued.push_str(new);
                        return;
                    }
                    _ => {}
                }
            }
            queue.push_back(event);
        }
        self.shared.ready.notify_one();
    }

    /// Ends the stream once what is queued has been read.
    pub fn close(&self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.ready.notify_one();
    }
}

impl EventStream {
    /// The next event; `None` once the session has shut down and everything was read.
    pub async fn next(&mut self) -> Option<HostEvent> {
        loop {
            if let Some(event) = lock(&self.shared.queue).pop_front() {
                return Some(event);
            }
            if self.shared.closed.load(Ordering::Acquire) {
                return None;
            }
            // `notify_one` stores a permit when nobody waits, so a push between the check
            // above and this await is not lost.
            self.shared.ready.notified().await;
        }
    }

    /// Everything queued now, without waiting.
    pub fn drain(&mut self) -> Vec<HostEvent> {
        lock(&self.shared.queue).drain(..).collect()
    }
}

/// One agent's way into the sink: tags its events and, for a child, reports activity
/// changes as they happen.
#[derive(Debug, Clone)]
pub struct AgentEmitter {
    sink: EventSink,
    agent_id: String,
    parent_id: Option<String>,
    /// The last activity label sent (children only).
    activity: Arc<Mutex<Option<String>>>,
}

impl AgentEmitter {
    /// The main agent's emitter.
    pub fn main(sink: EventSink) -> Self {
        Self::new(sink, MAIN_AGENT_ID, None)
    }

    pub fn new(sink: EventSink, agent_id: &str, parent_id: Option<&str>) -> Self {
        Self {
            sink,
            agent_id: agent_id.to_owned(),
            parent_id: parent_id.map(str::to_owned),
            activity: Arc::default(),
        }
    }

    /// An emitter for child `agent_id` of this agent.
    pub fn child(&self, agent_id: &str) -> Self {
        Self::new(self.sink.clone(), agent_id, Some(&self.agent_id))
    }

    pub fn agent_id(&self) -> &str {
        &self.agent_id
    }

    pub fn parent_id(&self) -> Option<&str> {
        self.parent_id.as_deref()
    }

    pub fn sink(&self) -> &EventSink {
        &self.sink
    }

    fn tagged(&self, body: HostEventBody) -> HostEvent {
        HostEvent {
            agent_id: self.agent_id.clone(),
            parent_id: self.parent_id.clone(),
            body,
        }
    }

    /// Sends one of this agent's session events (and a child's new activity label).
    pub fn session(&self, event: &SessionEvent) {
        log_session_event(&self.agent_id, event);
        self.sink
            .push(self.tagged(HostEventBody::Session(event.clone())));
        if self.parent_id.is_some()
            && let Some(label) = activity_label(event)
        {
            self.activity(label);
        }
    }

    /// Sends a notice about this agent.
    pub fn notice(&self, notice: HostNotice) {
        if !matches!(notice, HostNotice::SubagentActivity { .. }) {
            tracing::info!(agent = %self.agent_id, ?notice, "host notice");
        }
        self.sink.push(self.tagged(HostEventBody::Notice(notice)));
    }

    /// Reports what this agent is doing, when it changed.
    pub fn activity(&self, label: String) {
        {
            let mut last = lock(&self.activity);
            if last.as_deref() == Some(label.as_str()) {
                return;
            }
            *last = Some(label.clone());
        }
        self.notice(HostNotice::SubagentActivity { label });
    }
}

/// What the log keeps of a session event: turn ends, retries and errors, not the stream.
fn log_session_event(agent: &str, event: &SessionEvent) {
    match event {
        SessionEvent::SessionStart {
            session_id,
            model,
            cwd,
            ..
        } => {
            tracing::info!(agent, session_id, model, cwd, "session started");
        }
        SessionEvent::TurnEnd { reason, steps } => {
            tracing::info!(agent, ?reason, steps, "turn ended");
        }
        SessionEvent::Retrying {
            attempt,
            delay_ms,
            reason,
        } => {
            tracing::warn!(agent, attempt, delay_ms, reason, "model request retried");
        }
        SessionEvent::Error { code, message } => {
            tracing::warn!(agent, %code, message, "error");
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(agent: &str, text: &str) -> HostEvent {
        HostEvent {
            agent_id: agent.into(),
            parent_id: None,
            body: HostEventBody::Session(SessionEvent::TextDelta { text: text.into() }),
        }
    }

    #[tokio::test]
    async fn deltas_coalesce_only_while_unread_and_only_within_one_agent() {
        let (sink, mut stream) = event_channel();
        sink.push(delta("main", "a"));
        sink.push(delta("main", "b"));
        sink.push(delta("sub-1", "c"));
        sink.push(delta("main", "d"));
        sink.push(HostEvent {
            agent_id: "main".into(),
            parent_id: None,
            body: HostEventBody::Session(SessionEvent::UserMessage { text: "x".into() }),
        });
        sink.push(delta("main", "e"));
        let texts: Vec<(String, String)> = stream
            .drain()
            .into_iter()
            .map(|e| match e.body {
                HostEventBody::Session(SessionEvent::TextDelta { text }) => (e.agent_id, text),
                HostEventBody::Session(SessionEvent::UserMessage { text }) => {
                    (e.agent_id, format!("user {text}"))
                }
                other => panic!("{other:?}"),
            })
            .collect();
        // Two agents streaming at once still coalesce; another event of the agent ends it.
        assert_eq!(
            texts,
            [
                ("main", "abd"),
                ("sub-1", "c"),
                ("main", "user x"),
                ("main", "e")
            ]
            .map(|(a, t)| (a.to_owned(), t.to_owned()))
        );
        sink.push(delta("main", "e"));
        assert_eq!(stream.next().await, Some(delta("main", "e")));
        sink.push(delta("main", "f"));
        sink.close();
        assert_eq!(stream.next().await, Some(delta("main", "f")));
        assert_eq!(stream.next().await, None);
    }

    #[test]
    fn a_child_reports_each_activity_change_once() {
        let (sink, mut stream) = event_channel();
        let child = AgentEmitter::main(sink).child("sub-1");
        child.activity("Thinking".into());
        child.activity("Thinking".into());
        child.activity("Running: ls".into());
        let labels: Vec<String> = stream
            .drain()
            .into_iter()
            .filter_map(|e| match e.body {
                HostEventBody::Notice(HostNotice::SubagentActivity { label }) => Some(label),
                _ => None,
            })
            .collect();
        assert_eq!(labels, ["Thinking", "Running: ls"]);
    }
}
