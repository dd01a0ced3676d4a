//! [`ModelStream`]: one model answer as it arrives, with retries inside.
//!
//! The stream sends the prepared call, feeds body chunks through the SSE parser and the
//! provider's decoder, and on a failure asks [`RetryPolicy::decide`] what to do. A retry is
//! announced as [`ModelEvent::Retrying`] before the request goes out again.
//!
//! The rule: every await here races the cancellation token and has a ceiling (the idle
//! timeout, or the retry wait the policy capped), so nothing can hang a caller.

use std::collections::VecDeque;
use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::anthropic::AnthropicDecoder;
use crate::client::PreparedCall;
use crate::decoder::{DecodeFault, StreamDecoder, error_object};
use crate::endpoint::Provider;
use crate::error::{ModelError, classify_status};
use crate::event::ModelEvent;
use crate::openai_chat::ChatDecoder;
use crate::responses::ResponsesDecoder;
use crate::retry::{RetryCounts, RetryDecision, RetryPolicy};
use crate::sse::SseParser;

/// Error bodies longer than this are cut before they reach a message.
const MAX_ERROR_BODY: usize = 2_000;

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
        }
    }

    /// Retries spent so far.
    pub fn retries(&self) -> RetryCounts {
        self.spent
    }

    /// The next event, an error that ended the stream, or `None` when the answer is complete.
    pub async fn next(&mut self) -> Option<Result<ModelEvent, ModelError>> {
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
                    let url = &self.call.url;
                    Self::read(body, url, &self.policy, &self.cancel, &mut self.pending).await
                }
            };
            match step {
                Ok(true) => self.state = State::Done,
                Ok(false) => {}
                Err(error) => {
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
        let url = self.call.url.clone();
        let request = self
            .http
            .post(&url)
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
        Ok(Body {
            response,
            parser: SseParser::new(),
            decoder,
        })
    }

    /// Reads one chunk. `Ok(true)`: the answer is complete.
    async fn read(
        body: &mut Body,
        url: &str,
        policy: &RetryPolicy,
        cancel: &CancellationToken,
        pending: &mut VecDeque<ModelEvent>,
    ) -> Result<bool, ModelError> {
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
                for event in body.parser.push(&bytes) {
                    body.decoder
                        .decode(&event, &mut out)
                        .map_err(|fault| fault_error(url, fault))?;
                }
                body.decoder.is_complete()
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
        let retry_after = retry_after(response.headers());
        let body = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return ModelError::Cancelled,
            body = tokio::time::timeout(self.policy.idle_timeout, response.bytes()) => body,
        };
        let text = match body {
            Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            _ => String::new(),
        };
        let parsed = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|value| error_object(&value));
        let (code, provider_message) = match parsed {
            Some((code, message)) => (code, message),
            None if text.trim().is_empty() => (None, format!("HTTP {status}")),
            None => (None, text.chars().take(MAX_ERROR_BODY).collect()),
        };
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

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds. An HTTP-date form is not honoured:
/// no provider kigi talks to sends one.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    number("retry-after-ms")
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .or_else(|| number("retry-after").map(Duration::from_secs_f64))
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
