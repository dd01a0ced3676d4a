//! Everything that can go wrong talking to a model, and the one typed classification retries
//! and the swarm scheduler read. Nothing here matches on message text: the class comes from
//! the HTTP status, the provider's structured error code, or the kind of failure.

use std::time::Duration;

use crate::base_url::BaseUrlFault;

/// How a failure should be treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Transport errors, 5xx, streams cut short, idle streams, malformed chunks: try again.
    /// (An answer past the size cap or the request deadline is `Fatal`: see [`ModelError`].)
    Retryable,
    /// HTTP 429 or a provider's rate-limit error: try again after the server's `Retry-After`.
    RateLimited,
    /// The conversation no longer fits the model's context window. Fatal.
    ContextLength,
    /// Any other 4xx or a refused request. Fatal.
    Fatal,
    /// The caller cancelled.
    Cancelled,
}

/// A failed model call.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The endpoint could not be reached, or the connection broke.
    #[error("cannot reach the model at {url}: {detail}")]
    Transport { url: String, detail: String },
    /// The server answered with an error status.
    #[error("{provider_message} (HTTP {status} from {url})")]
    Status {
        url: String,
        status: u16,
        /// The provider's structured error code or type, if it sent one.
        code: Option<String>,
        provider_message: String,
        retry_after: Option<Duration>,
        class: ErrorClass,
    },
    /// HTTP 401: the server refused the credentials. The message says which key was sent
    /// (by the variable it came from, never its value) or that none was.
    #[error("the model at {url} refused the request (HTTP {status}: {provider_message}); {}", key.advice())]
    Unauthorized {
        url: String,
        status: u16,
        provider_message: String,
        key: SentKey,
    },
    /// A streaming request answered with a JSON body (`Content-Type: application/json`)
    /// that is neither a whole answer of the provider's wire nor an error object. Not
    /// retried: the server would answer the same way again.
    #[error(
        "the model at {url} answered a streaming request with a JSON body instead of an event stream, and it is not a {wire} answer: {detail}"
    )]
    UnreadableJsonAnswer {
        url: String,
        /// The wire that was expected, as the provider is configured (`openai-chat`, …).
        wire: &'static str,
        detail: String,
    },
    /// The provider reported an error inside the stream.
    #[error("the model stream reported an error: {provider_message}")]
    StreamError {
        code: Option<String>,
        provider_message: String,
        class: ErrorClass,
    },
    /// The stream ended before its completion event.
    #[error("the model stream from {url} ended before it completed")]
    IncompleteStream { url: String },
    /// A chunk that is not what the wire format promises.
    #[error("malformed model stream from {url}: {detail}")]
    Malformed { url: String, detail: String },
    /// Nothing arrived for too long.
    #[error("the model at {url} sent nothing for {}s", after.as_secs_f64())]
    IdleTimeout { url: String, after: Duration },
    /// The whole request, retries and their waits included, outlasted `[retry]
    /// request_timeout_ms`: a server that keeps a stream open with keep-alive comments, or
    /// trickles an answer that never ends, cannot hold a turn forever. Not retried: the
    /// deadline covers the retries too.
    #[error(
        "the model at {url} did not finish its answer within {}s; raise [retry] request_timeout_ms to allow longer answers",
        after.as_secs_f64()
    )]
    RequestTimeout { url: String, after: Duration },
    /// One response's body grew past `[retry] max_response_bytes`. Not retried: a server
    /// that streamed this much without finishing would most likely do it again, and each
    /// attempt costs the whole cap in bandwidth and parsing.
    #[error(
        "the model at {url} sent more than {limit} bytes in one answer; raise [retry] max_response_bytes to allow larger answers"
    )]
    ResponseTooLarge { url: String, limit: u64 },
    /// The base URL cannot be used; nothing was sent.
    #[error(
        "invalid model base URL `{url}`: {fault}; pass a valid one with --base-url or set [endpoints] api_base_url (or base_url in [models.<alias>])"
    )]
    InvalidBaseUrl { url: String, fault: BaseUrlFault },
    #[error("the model request was cancelled")]
    Cancelled,
}

/// Which API key a refused request carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SentKey {
    /// No key was sent.
    None,
    /// A key given in code, not read from the environment.
    Unnamed,
    /// A key read from this environment variable.
    Variable(String),
}

impl SentKey {
    /// What to do about a refused request.
    fn advice(&self) -> String {
        match self {
            Self::None => "no API key was sent: set KIGI_API_KEY, or api_key_env in [models.<alias>] (or [endpoints]) to the variable that holds it".into(),
            Self::Unnamed => "check the API key".into(),
            Self::Variable(variable) => format!("check the API key in ${variable}"),
        }
    }
}

impl ModelError {
    /// The typed classification every retry decision is made from.
    pub fn class(&self) -> ErrorClass {
        match self {
            Self::Status { class, .. } | Self::StreamError { class, .. } => *class,
            Self::Transport { .. }
            | Self::IncompleteStream { .. }
            | Self::Malformed { .. }
            | Self::IdleTimeout { .. } => ErrorClass::Retryable,
            Self::RequestTimeout { .. }
            | Self::ResponseTooLarge { .. }
            | Self::Unauthorized { .. }
            | Self::UnreadableJsonAnswer { .. }
            | Self::InvalidBaseUrl { .. } => ErrorClass::Fatal,
            Self::Cancelled => ErrorClass::Cancelled,
        }
    }

    /// The flag the swarm scheduler reads: the provider is throttling us.
    pub fn is_rate_limited(&self) -> bool {
        self.class() == ErrorClass::RateLimited
    }

    /// How long the server asked us to wait, if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Classifies an HTTP error status with the provider's structured error code.
pub fn classify_status(status: u16, code: Option<&str>) -> ErrorClass {
    const CONTEXT_CODES: &[&str] = &[
        "context_length_exceeded",
        "string_above_max_length",
        "request_too_large",
    ];
    match status {
        429 => ErrorClass::RateLimited,
        408 | 409 | 500..=599 => ErrorClass::Retryable,
        413 => ErrorClass::ContextLength,
        _ if code.is_some_and(|c| CONTEXT_CODES.contains(&c)) => ErrorClass::ContextLength,
        _ if code == Some("rate_limit_exceeded") || code == Some("rate_limit_error") => {
            ErrorClass::RateLimited
        }
        _ => ErrorClass::Fatal,
    }
}

/// Classifies an error event inside a stream by its code or type.
pub fn classify_stream_error(code: Option<&str>) -> ErrorClass {
    match code {
        Some("overloaded_error" | "api_error" | "server_error" | "internal_error") => {
            ErrorClass::Retryable
        }
        Some("rate_limit_error" | "rate_limit_exceeded") => ErrorClass::RateLimited,
        Some("context_length_exceeded") => ErrorClass::ContextLength,
        _ => ErrorClass::Fatal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_classify_by_number_and_code() {
        assert_eq!(classify_status(429, None), ErrorClass::RateLimited);
        assert_eq!(classify_status(503, None), ErrorClass::Retryable);
        assert_eq!(classify_status(529, None), ErrorClass::Retryable);
        assert_eq!(
            classify_status(400, Some("context_length_exceeded")),
            ErrorClass::ContextLength
        );
        assert_eq!(classify_status(400, None), ErrorClass::Fatal);
        assert_eq!(classify_status(401, None), ErrorClass::Fatal);
    }
}
