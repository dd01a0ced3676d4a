//! [`ModelStream`]: one model answer as it arrives, with retries inside.
//!
//! The stream sends the prepared call, feeds body chunks through the SSE parser and the
//! provider's decoder, and on a failure asks [`RetryPolicy::decide`] what to do. A retry is
//! announced as [`ModelEvent::Retrying`] before the request goes out again.
//!
//! Two bounds hold a busy stream, which the idle timeout alone cannot: the whole request
//! (retries and their waits included) ends at `request_timeout` after its first send, and one
//! response's body may not pass `max_response_bytes`. Either is a typed, non-retried error, so
//! an endless stream of keep-alive comments or data ends a turn with a message naming the
//! `[retry]` key to raise, not a hang or an out-of-memory abort.
//!
//! The rule: every await here races the cancellation token and has a ceiling (the idle
//! timeout, the request deadline, or the retry wait the policy capped), so nothing can hang a
//! caller; every error leaves through [`crate::redaction::Redactor`].

use std::collections::VecDeque;
use std::hash::{BuildHasher, RandomState};
use std::time::{Duration, SystemTime};

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::anthropic::AnthropicDecoder;
use crate::client::PreparedCall;
use crate::decoder::{DecodeFault, StreamDecoder, error_object};
use crate::endpoint::Provider;
use crate::error::{ModelError, classify_status};
use crate::event::ModelEvent;
use crate::json_answer::{JsonAnswerFault, decode_json_answer};
use crate::openai_chat::ChatDecoder;
use crate::responses::ResponsesDecoder;
use crate::retry::{RetryCounts, RetryDecision, RetryPolicy};
use crate::sse::SseParser;

/// Error bodies longer than this are cut before they reach a message.
const MAX_ERROR_BODY: usize = 2_000;

/// At most this much of an error response's body is read (it is parsed as JSON, so a little
/// more than is shown); the rest is never downloaded.
const MAX_ERROR_READ: usize = 64 * 1024;

/// A deadline further away than this is treated as this (about 30 years), so adding it to
/// the clock cannot overflow.
const FURTHEST_DEADLINE: Duration = Duration::from_secs(30 * 365 * 24 * 3600);

/// A streamed model answer. Call [`ModelStream::next`] until it returns `None`.
#[derive(Debug)]
pub struct ModelStream {
    http: reqwest::Client,
    call: PreparedCall,
    policy: RetryPolicy,
    cancel: CancellationToken,
    state: State,
    pending: VecDeque<ModelEvent>,
    spent: RetryCounts,
    jitter: RandomState,
    /// Set at the first poll: `request_timeout` from then.
    deadline: Option<Instant>,
}

enum State {
    /// The request is (re)sent on the next poll.
    Ready,
    Streaming(Box<Body>),
    Done,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Ready => "Ready",
            Self::Streaming(_) => "Streaming",
            Self::Done => "Done",
        })
    }
}

struct Body {
    response: reqwest::Response,
    parser: SseParser,
    decoder: Box<dyn StreamDecoder>,
    /// Body bytes received so far, against `max_response_bytes`.
    received: u64,
    /// A JSON body (not an event stream) answering the streaming request: gathered whole,
    /// then read as one answer.
    json: Option<Vec<u8>>,
}

impl ModelStream {
    pub(crate) fn new(
        http: reqwest::Client,
        call: PreparedCall,
        policy: RetryPolicy,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            http,
            call,
            policy,
            cancel,
            state: State::Ready,
            pending: VecDeque::new(),
            spent: RetryCounts::default(),
            jitter: RandomState::new(),
            deadline: None,
        }
    }

    /// Retries spent so far.
    pub fn retries(&self) -> RetryCounts {
        self.spent
    }

    /// The next event, an error that ended the stream, or `None` when the answer is complete.
    pub async fn next(&mut self) -> Option<Result<ModelEvent, ModelError>> {
        if let Some(event) = self.pending.pop_front() {
            return Some(Ok(event));
        }
        if matches!(self.state, State::Done) {
            return None;
        }
        let timeout = self.policy.request_timeout;
        let deadline = *self
            .deadline
            .get_or_insert_with(|| Instant::now() + timeout.min(FURTHEST_DEADLINE));
        match tokio::time::timeout_at(deadline, self.advance()).await {
            Ok(step) => step,
            Err(_) => {
                self.state = State::Done;
                self.pending.clear();
                Some(Err(self.call.redactor.error(ModelError::RequestTimeout {
                    url: self.call.shown_url.clone(),
                    after: timeout,
                })))
            }
        }
    }

    /// [`ModelStream::next`] without the request deadline.
    async fn advance(&mut self) -> Option<Result<ModelEvent, ModelError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            let step = match &mut self.state {
                State::Done => return None,
                State::Ready => match self.send().await {
                    Ok(body) => {
                        self.state = State::Streaming(Box::new(body));
                        continue;
                    }
                    Err(error) => Err(error),
                },
                State::Streaming(body) => {
                    Self::read(
                        body,
                        &self.call,
                        &self.policy,
                        &self.cancel,
                        &mut self.pending,
                    )
                    .await
                }
            };
            match step {
                Ok(true) => self.state = State::Done,
                Ok(false) => {}
                Err(error) => {
                    let error = self.call.redactor.error(error);
                    if let Some(error) = self.retry_or_fail(error).await {
                        self.state = State::Done;
                        self.pending.clear();
                        return Some(Err(error));
                    }
                }
            }
        }
    }

    /// Sends the call and checks the status; the body is read later, chunk by chunk.
    async fn send(&mut self) -> Result<Body, ModelError> {
        let url = self.call.shown_url.clone();
        let request = self
            .http
            .post(&self.call.url)
            .headers(self.call.headers.clone())
            .body(self.call.body.clone())
            .send();
        let response = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Err(ModelError::Cancelled),
            sent = tokio::time::timeout(self.policy.idle_timeout, request) => match sent {
                Err(_) => return Err(ModelError::IdleTimeout { url, after: self.policy.idle_timeout }),
                Ok(Err(e)) => return Err(transport(&url, &e)),
                Ok(Ok(response)) => response,
            },
        };
        let status = response.status().as_u16();
        if !response.status().is_success() {
            return Err(self.status_error(&url, status, response).await);
        }
        let decoder: Box<dyn StreamDecoder> = match self.call.provider {
            Provider::OpenaiChat => Box::new(ChatDecoder::new(self.call.dialect)),
            Provider::Anthropic => Box::new(AnthropicDecoder::default()),
            Provider::OpenaiResponses => Box::new(ResponsesDecoder::default()),
        };
        let json = is_json(response.headers()).then(Vec::new);
        Ok(Body {
            response,
            parser: SseParser::new(),
            decoder,
            received: 0,
            json,
        })
    }

    /// Reads one chunk. `Ok(true)`: the answer is complete.
    async fn read(
        body: &mut Body,
        call: &PreparedCall,
        policy: &RetryPolicy,
        cancel: &CancellationToken,
        pending: &mut VecDeque<ModelEvent>,
    ) -> Result<bool, ModelError> {
        let url = call.shown_url.as_str();
        let chunk = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ModelError::Cancelled),
            chunk = tokio::time::timeout(policy.idle_timeout, body.response.chunk()) => chunk,
        };
        let mut out = Vec::new();
        let complete = match chunk {
            Err(_) => {
                return Err(ModelError::IdleTimeout {
                    url: url.to_owned(),
                    after: policy.idle_timeout,
                });
            }
            Ok(Err(e)) => return Err(transport(url, &e)),
            Ok(Ok(Some(bytes))) => {
                let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
                body.received = body.received.saturating_add(size);
                if body.received > policy.max_response_bytes {
                    return Err(ModelError::ResponseTooLarge {
                        url: url.to_owned(),
                        limit: policy.max_response_bytes,
                    });
                }
                if let Some(json) = &mut body.json {
                    json.extend_from_slice(&bytes);
                    return Ok(false);
                }
                for event in body.parser.push(&bytes) {
                    body.decoder
                        .decode(&event, &mut out)
                        .map_err(|fault| fault_error(url, fault))?;
                }
                body.decoder.is_complete()
            }
            Ok(Ok(None)) if body.json.is_some() => {
                let json = body.json.take().unwrap_or_default();
                out = decode_json_answer(call.provider, call.dialect, &json).map_err(|fault| {
                    match fault {
                        JsonAnswerFault::Provider(fault) => fault_error(url, fault),
                        JsonAnswerFault::Unreadable(detail) => ModelError::UnreadableJsonAnswer {
                            url: url.to_owned(),
                            wire: call.provider.name(),
                            detail,
                        },
                    }
                })?;
                true
            }
            Ok(Ok(None)) => {
                body.parser.finish();
                if !body.decoder.end_of_body(&mut out) {
                    return Err(ModelError::IncompleteStream {
                        url: url.to_owned(),
                    });
                }
                true
            }
        };
        pending.extend(out);
        Ok(complete)
    }

    /// Waits and re-arms the request if the policy says so; otherwise returns the error.
    async fn retry_or_fail(&mut self, error: ModelError) -> Option<ModelError> {
        let draw = (self
            .jitter
            .hash_one(self.spent.failures + self.spent.rate_limits)
            % 1_000_000) as f64
            / 1_000_000.0;
        let RetryDecision::RetryAfter(delay) = self.policy.decide(&error, self.spent, draw) else {
            return Some(error);
        };
        if error.is_rate_limited() {
            self.spent.rate_limits += 1;
        } else {
            self.spent.failures += 1;
        }
        let attempt = self.spent.failures + self.spent.rate_limits;
        self.state = State::Ready;
        self.pending.clear();
        self.pending.push_back(ModelEvent::Retrying {
            attempt,
            delay,
            reason: error.to_string(),
        });
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Some(ModelError::Cancelled),
            () = tokio::time::sleep(delay) => None,
        }
    }

    async fn status_error(
        &self,
        url: &str,
        status: u16,
        response: reqwest::Response,
    ) -> ModelError {
        let retry_after = retry_after(response.headers(), SystemTime::now());
        let body = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return ModelError::Cancelled,
            body = tokio::time::timeout(self.policy.idle_timeout, error_body(response)) => body,
        };
        let text = body.unwrap_or_default();
        let (code, provider_message) = match error_of_body(&text) {
            Some((code, message)) => (code, message.chars().take(MAX_ERROR_BODY).collect()),
            None if text.trim().is_empty() => (None, format!("HTTP {status}")),
            None => (None, text.chars().take(MAX_ERROR_BODY).collect()),
        };
        if status == 401 {
            return ModelError::Unauthorized {
                url: url.to_owned(),
                status,
                provider_message,
                key: self.call.sent_key.clone(),
            };
        }
        ModelError::Status {
            url: url.to_owned(),
            status,
            class: classify_status(status, code.as_deref()),
            code,
            provider_message,
            retry_after,
        }
    }
}

/// Whether a successful answer says it is JSON rather than an event stream.
fn is_json(headers: &reqwest::header::HeaderMap) -> bool {
    headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .is_some_and(|v| v == "application/json" || v.ends_with("+json"))
}

/// The code and message of an error body: a JSON error object, or one sent as Server-Sent
/// Events (`data: {"error": …}`, as some proxies do even on an error status). `None` when the
/// body is neither.
fn error_of_body(text: &str) -> Option<(Option<String>, String)> {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        return error_object(&value);
    }
    let mut parser = SseParser::new();
    let mut events = parser.push(text.as_bytes());
    events.extend(parser.push(b"\n\n"));
    events.iter().find_map(|event| {
        match serde_json::from_str::<serde_json::Value>(&event.data) {
            Ok(value) => error_object(&value),
            // `event: error` with a plain-text message.
            Err(_) if event.event.as_deref() == Some("error") => {
                Some((None, event.data.trim().to_owned()))
            }
            Err(_) => None,
        }
    })
}

/// The first [`MAX_ERROR_READ`] bytes of an error body, as text; a body that breaks off
/// gives what arrived.
async fn error_body(mut response: reqwest::Response) -> String {
    let mut bytes = Vec::new();
    while bytes.len() < MAX_ERROR_READ {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = MAX_ERROR_READ - bytes.len();
                bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok(None) | Err(_) => break,
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `retry-after-ms` (OpenAI), else `retry-after` as seconds or as an HTTP date (RFC 7231
/// IMF-fixdate, or the obsolete RFC 850 and asctime forms), counted from `now`. A date in the
/// past means "now".
fn retry_after(headers: &reqwest::header::HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let number = |name: &str| {
        text(name)
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    number("retry-after-ms")
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .or_else(|| number("retry-after").map(Duration::from_secs_f64))
        .or_else(|| {
            let date = httpdate::parse_http_date(text("retry-after")?).ok()?;
            Some(date.duration_since(now).unwrap_or(Duration::ZERO))
        })
}

/// A transport error's causes. reqwest's own top line repeats the URL the error already
/// names, so it is used only when there is no cause below it.
fn transport(url: &str, error: &reqwest::Error) -> ModelError {
    let mut causes = Vec::new();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        causes.push(cause.to_string());
        source = cause.source();
    }
    let detail = if causes.is_empty() {
        error.to_string()
    } else {
        causes.join(": ")
    };
    ModelError::Transport {
        url: url.to_owned(),
        detail,
    }
}

fn fault_error(url: &str, fault: DecodeFault) -> ModelError {
    match fault {
        DecodeFault::Malformed(detail) => ModelError::Malformed {
            url: url.to_owned(),
            detail,
        },
        DecodeFault::Provider {
            code,
            message,
            class,
        } => ModelError::StreamError {
            code,
            provider_message: message,
            class,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    /// 1994-11-06T08:49:37Z, the date of RFC 7231's examples.
    fn rfc_example_time() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777)
    }

    #[test]
    fn retry_after_as_an_http_date_is_the_time_until_that_date() {
        let now = rfc_example_time() - Duration::from_secs(3);
        for date in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            let map = headers(&[("retry-after", date)]);
            assert_eq!(
                retry_after(&map, now),
                Some(Duration::from_secs(3)),
                "{date}"
            );
        }
    }

    #[test]
    fn retry_after_as_a_past_date_means_now() {
        let map = headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]);
        let later = rfc_example_time() + Duration::from_secs(60);
        assert_eq!(retry_after(&map, later), Some(Duration::ZERO));
    }

    #[test]
    fn retry_after_numbers_win_and_garbage_is_ignored() {
        let now = rfc_example_time();
        assert_eq!(
            retry_after(&headers(&[("retry-after", "7")]), now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "250"), ("retry-after", "7")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&headers(&[]), now), None);
    }
}
