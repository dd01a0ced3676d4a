//! The scripted model server: a real HTTP/1.1 server on 127.0.0.1 that answers
//! `/v1/chat/completions`, `/v1/messages` and `/v1/responses` from a [`ScriptSet`], streaming
//! or not, and `/v1/models`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

use crate::channel_body::{BodySender, ChannelBody};
use crate::request_log::{RecordedRequest, redacted_headers};
use crate::routing::{AttemptCounter, route};
use crate::script::{Fault, ScriptSet};
use crate::wire::{Answer, Wire};

/// The model id `/v1/models` lists.
pub const MODEL_ID: &str = "kigi-scripted";

/// A running server. Dropping it stops accepting connections.
#[derive(Debug)]
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: CancellationToken,
}

#[derive(Debug)]
struct Shared {
    scripts: ScriptSet,
    attempts: AttemptCounter,
    log: Mutex<Vec<RecordedRequest>>,
    changed: Notify,
    started: Instant,
    feed: broadcast::Sender<RecordedRequest>,
}

impl ScriptedServer {
    /// Starts on an ephemeral port of 127.0.0.1.
    pub async fn start(scripts: ScriptSet) -> std::io::Result<Self> {
        Self::start_on(0, scripts).await
    }

    /// Starts on `port` of 127.0.0.1 (0: any free port).
    pub async fn start_on(port: u16, scripts: ScriptSet) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            scripts,
            attempts: AttemptCounter::default(),
            log: Mutex::new(Vec::new()),
            changed: Notify::new(),
            started: Instant::now(),
            feed: broadcast::channel(256).0,
        });
        let stop = CancellationToken::new();
        tokio::spawn(accept_loop(listener, Arc::clone(&shared), stop.clone()));
        Ok(Self { addr, shared, stop })
    }

    /// The base URL to configure a client with: `http://127.0.0.1:PORT/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.log().clone()
    }

    /// Each request as it is logged (for a live log of a standalone server).
    pub fn subscribe(&self) -> broadcast::Receiver<RecordedRequest> {
        self.shared.feed.subscribe()
    }

    /// Waits until `done` holds for the log, for at most `ceiling`. Returns whether it held.
    pub async fn wait_for(
        &self,
        ceiling: Duration,
        done: impl Fn(&[RecordedRequest]) -> bool,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + ceiling;
        loop {
            let changed = self.shared.changed.notified();
            if done(&self.shared.log()) {
                return true;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return done(&self.shared.log());
            }
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Shared {
    fn log(&self) -> MutexGuard<'_, Vec<RecordedRequest>> {
        match self.log.lock() {
            Ok(log) => log,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn record(&self, request: RecordedRequest) -> usize {
        let _ = self.feed.send(request.clone());
        // The index is taken under the same lock as the push: concurrent requests must not
        // hand each other's entries to `client_gone`.
        let index = {
            let mut log = self.log();
            log.push(request);
            log.len() - 1
        };
        self.changed.notify_waiters();
        index
    }

    fn client_gone(&self, index: usize) {
        let at = self.started.elapsed();
        if let Some(entry) = self.log().get_mut(index) {
            entry.client_gone_at = Some(at);
        }
        self.changed.notify_waiters();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>, stop: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else { continue };
        let _ = stream.set_nodelay(true);
        let Ok((stream, probe)) = with_probe(stream) else {
            continue;
        };
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service =
                service_fn(move |request| handle(Arc::clone(&shared), Arc::clone(&probe), request));
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// A second handle on the connection's socket, to see the client leave. hyper does not read
/// while a response body is idle, so a client that hangs up during a `hang` fault would go
/// unnoticed until a write failed (hyper#2917); the probe peeks instead.
type Probe = Arc<std::net::TcpStream>;

fn with_probe(stream: tokio::net::TcpStream) -> std::io::Result<(tokio::net::TcpStream, Probe)> {
    let stream = stream.into_std()?;
    let probe = stream.try_clone()?;
    Ok((tokio::net::TcpStream::from_std(stream)?, Arc::new(probe)))
}

/// Whether the peer has closed its side (end of stream or a reset). The request was read in
/// full before the answer began, so no unread bytes can hide the end of stream.
fn client_left(probe: &std::net::TcpStream) -> bool {
    match probe.peek(&mut [0u8; 1]) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
    }
}

/// How often a hanging answer looks for its client.
const PROBE_INTERVAL: Duration = Duration::from_millis(20);

fn json_response(status: u16, body: &Value) -> Response<ChannelBody> {
    let mut response = Response::new(ChannelBody::full(body.to_string()));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    response.headers_mut().insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

async fn handle(
    shared: Arc<Shared>,
    probe: Probe,
    request: Request<Incoming>,
) -> Result<Response<ChannelBody>, Infallible> {
    let at = shared.started.elapsed();
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    let headers = redacted_headers(request.headers());
    let bytes = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let mut record = RecordedRequest {
        method,
        path: path.clone(),
        headers,
        body: body.clone(),
        at,
        script: None,
        step: 0,
        attempt: 0,
        served: String::new(),
        client_gone_at: None,
    };
    if path.trim_end_matches('/') == "/v1/models" {
        record.served = "models".into();
        shared.record(record);
        return Ok(json_response(
            200,
            &json!({"object": "list", "data": [
                {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "kigi-testkit"}
            ]}),
        ));
    }
    let Some(wire) = Wire::from_path(&path) else {
        record.served = "status 404".into();
        shared.record(record);
        return Ok(json_response(
            404,
            &json!({"error": {"message": format!("no such endpoint: {path}"), "type": "not_found"}}),
        ));
    };
    let refuse = |record: RecordedRequest, message: String| {
        let mut record = record;
        record.served = "status 400".into();
        shared.record(record);
        // 400 is fatal to a client: a script mistake must not be retried into a hang.
        Ok(json_response(
            400,
            &wire.error_body("invalid_request_error", &message),
        ))
    };
    if !body.is_object() {
        return refuse(record, "the request body is not a JSON object".into());
    }
    let conversation = wire.conversation(&body);
    let Some(index) = route(&shared.scripts.scripts, &conversation) else {
        return refuse(record, "no script matches this conversation".into());
    };
    let script = &shared.scripts.scripts[index];
    record.script = Some(script.name.clone());
    record.step = conversation.assistant_turns;
    let Some(step) = script.steps.get(conversation.assistant_turns) else {
        let message = format!(
            "script `{}` has no step {} (it has {})",
            script.name,
            conversation.assistant_turns,
            script.steps.len()
        );
        return refuse(record, message);
    };
    let attempt = shared.attempts.next(index, &conversation);
    record.attempt = attempt;
    let fault = step.faults.get(attempt as usize).cloned();
    record.served = fault.as_ref().map_or_else(|| "answer".into(), Fault::label);
    let log_index = shared.record(record);
    // hyper drops this future if the client hangs up before the answer starts (during the
    // latency, say): that is the client leaving too.
    let left_early = LeftEarly {
        shared: Arc::clone(&shared),
        index: Some(log_index),
    };
    if step.latency_ms > 0 {
        tokio::time::sleep(Duration::from_millis(step.latency_ms)).await;
    }
    if let Some(Fault::Status {
        status,
        retry_after_ms,
        code,
        message,
    }) = &fault
    {
        let code = code.clone().unwrap_or_else(|| default_code(*status).into());
        let message = message
            .clone()
            .unwrap_or_else(|| format!("scripted HTTP {status}"));
        let mut response = json_response(*status, &wire.error_body(&code, &message));
        if let Some(ms) = retry_after_ms {
            let headers = response.headers_mut();
            headers.insert("retry-after-ms", hyper::header::HeaderValue::from(*ms));
            headers.insert(
                "retry-after",
                hyper::header::HeaderValue::from(ms.div_ceil(1000)),
            );
        }
        left_early.disarm();
        return Ok(response);
    }
    if let Some(Fault::RateLimitedUntil { after_ms }) = &fault {
        let mut response = json_response(
            429,
            &wire.error_body("rate_limit_exceeded", "scripted HTTP 429 until a date"),
        );
        let date = httpdate::fmt_http_date(whole_second_after(SystemTime::now(), *after_ms));
        if let Ok(value) = hyper::header::HeaderValue::from_str(&date) {
            response.headers_mut().insert("retry-after", value);
        }
        left_early.disarm();
        return Ok(response);
    }
    if let Some(Fault::StatusRetryAfter {
        status,
        retry_after,
    }) = &fault
    {
        let message = format!("scripted HTTP {status}");
        let mut response =
            json_response(*status, &wire.error_body(default_code(*status), &message));
        if let Ok(value) = hyper::header::HeaderValue::from_str(retry_after) {
            response.headers_mut().insert("retry-after", value);
        }
        left_early.disarm();
        return Ok(response);
    }
    if let Some(Fault::SseError {
        status,
        message,
        code,
    }) = &fault
    {
        let code = code.clone().unwrap_or_else(|| default_code(*status).into());
        let error = json!({"error": {"message": message, "type": code, "code": code}});
        let mut response = Response::new(ChannelBody::full(format!("data: {error}\n\n")));
        *response.status_mut() = StatusCode::from_u16(*status).unwrap_or(StatusCode::BAD_GATEWAY);
        response.headers_mut().insert(
            "content-type",
            hyper::header::HeaderValue::from_static("text/event-stream"),
        );
        left_early.disarm();
        return Ok(response);
    }
    let request_chars = bytes.len();
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or(MODEL_ID)
        .to_owned();
    let answer = Answer {
        step,
        model,
        turn: conversation.assistant_turns,
        request_chars,
    };
    let streaming = body.get("stream").and_then(Value::as_bool) == Some(true);
    let chunks: Vec<String> = match &fault {
        Some(Fault::JsonBody { body: Some(body) }) => vec![body.to_string()],
        Some(Fault::JsonBody { body: None }) => vec![wire.body(&answer).to_string()],
        Some(Fault::UsageInMessageDelta) if streaming && wire == Wire::Anthropic => {
            crate::wire::anthropic::stream_with_usage_at_end(&answer)
        }
        _ if streaming => wire.stream(&answer),
        _ => vec![wire.body(&answer).to_string()],
    };
    let streaming = streaming && !matches!(fault, Some(Fault::JsonBody { .. }));
    let (tx, channel) = ChannelBody::channel();
    let mut response = Response::new(channel);
    let content_type = if streaming {
        "text/event-stream"
    } else {
        "application/json"
    };
    response.headers_mut().insert(
        "content-type",
        hyper::header::HeaderValue::from_static(content_type),
    );
    let fault = fault.and_then(Fault::in_stream);
    tokio::spawn(feed(tx, chunks, fault, shared, log_index, probe));
    left_early.disarm();
    Ok(response)
}

/// Marks a request's client as gone if its handler is dropped before answering.
struct LeftEarly {
    shared: Arc<Shared>,
    index: Option<usize>,
}

impl LeftEarly {
    fn disarm(mut self) {
        self.index = None;
    }
}

impl Drop for LeftEarly {
    fn drop(&mut self) {
        if let Some(index) = self.index {
            self.shared.client_gone(index);
        }
    }
}

/// Writes the answer's chunks, playing out a stream fault if there is one.
async fn feed(
    tx: BodySender,
    chunks: Vec<String>,
    fault: Option<Fault>,
    shared: Arc<Shared>,
    log_index: usize,
    probe: Probe,
) {
    let half = if fault.is_some() {
        (chunks.len() / 2).max(1).min(chunks.len())
    } else {
        chunks.len()
    };
    for chunk in &chunks[..half] {
        let piece = if chunks.len() == 1 && fault.is_some() {
            // A whole-body answer: half of it is the "first half".
            chunk[..chunk.len() / 2].to_owned()
        } else {
            chunk.clone()
        };
        if tx.send(Ok(Bytes::from(piece))).await.is_err() {
            // hyper dropped the body: the client hung up mid-answer.
            shared.client_gone(log_index);
            return;
        }
    }
    match fault {
        None
        | Some(
            Fault::Incomplete
            | Fault::Status { .. }
            | Fault::RateLimitedUntil { .. }
            | Fault::StatusRetryAfter { .. }
            | Fault::SseError { .. }
            | Fault::JsonBody { .. }
            | Fault::UsageInMessageDelta,
        ) => {}
        Some(Fault::KeepAlive { interval_ms }) => {
            let interval = Duration::from_millis(interval_ms.max(1));
            loop {
                tokio::select! {
                    () = tx.closed() => break,
                    () = tokio::time::sleep(interval) => {
                        let comment = Bytes::from_static(b": keep-alive\n\n");
                        if tx.send(Ok(comment)).await.is_err() || client_left(&probe) {
                            break;
                        }
                    }
                }
            }
            shared.client_gone(log_index);
        }
        Some(Fault::EndlessData) => {
            let last = chunks
                .get(half.saturating_sub(1))
                .cloned()
                .unwrap_or_default();
            let last = Bytes::from(last);
            // Each send waits for room in the body channel, so this runs at the client's pace
            // and ends when hyper drops the body (the client hung up).
            while tx.send(Ok(last.clone())).await.is_ok() {}
            shared.client_gone(log_index);
        }
        Some(Fault::Disconnect) => {
            let _ = tx
                .send(Err(std::io::Error::other("scripted disconnect")))
                .await;
        }
        Some(Fault::Malformed) => {
            let _ = tx
                .send(Ok(Bytes::from_static(
                    b"data: {\"choices\": [unterminated\n\n",
                )))
                .await;
            for chunk in &chunks[half..] {
                if tx.send(Ok(Bytes::from(chunk.clone()))).await.is_err() {
                    shared.client_gone(log_index);
                    return;
                }
            }
        }
        Some(Fault::Hang) => {
            loop {
                tokio::select! {
                    () = tx.closed() => break,
                    () = tokio::time::sleep(PROBE_INTERVAL) => {
                        if client_left(&probe) {
                            break;
                        }
                    }
                }
            }
            // The client is gone, so ending the body here reaches no one.
            shared.client_gone(log_index);
        }
    }
}

/// `after_ms` past `now`, rounded up to a whole second.
fn whole_second_after(now: SystemTime, after_ms: u64) -> SystemTime {
    let target = now + Duration::from_millis(after_ms);
    let since = target.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs() + u64::from(since.subsec_nanos() > 0);
    UNIX_EPOCH + Duration::from_secs(seconds)
}

fn default_code(status: u16) -> &'static str {
    match status {
        429 => "rate_limit_exceeded",
        400 => "invalid_request_error",
        401 => "authentication_error",
        500..=599 => "server_error",
        _ => "error",
    }
}
