//! Retry policy as pure arithmetic: given the error, how many retries were spent and a jitter
//! draw, decide whether to try again and after how long. The stream drives it; tests call it
//! directly.
//!
//! The rule: every wait has a ceiling. A server asking (on any retried status) for a longer
//! wait than `max_retry_after` is not waited for: the error goes back to the caller (with its
//! `rate_limited` flag) so a scheduler can decide.

use std::time::Duration;

use crate::error::{ErrorClass, ModelError};

/// Retry counts and ceilings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries for transport errors, 5xx, cut and idle streams.
    pub max_retries: u32,
    /// Retries for rate limiting.
    pub max_rate_limit_retries: u32,
    /// The first backoff; it doubles each retry.
    pub initial_backoff: Duration,
    /// The longest backoff.
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured.
    pub max_retry_after: Duration,
    /// How long a stream (or the wait for response headers) may be silent.
    pub idle_timeout: Duration,
    /// How long connecting may take.
    pub connect_timeout: Duration,
    /// How long one request may take from its first send to the end of its answer, retries
    /// and their waits included (`[retry] request_timeout_ms`). The idle timeout alone cannot
    /// end a stream that stays busy with keep-alive comments.
    pub request_timeout: Duration,
    /// The most body bytes one response may carry (`[retry] max_response_bytes`); each retry
    /// starts its count again.
    pub max_response_bytes: u64,
}

/// 32 MiB: far above any real answer (a full 128k-token answer is a few MiB of SSE), low
/// enough that an endless stream is cut while it is still cheap.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 32 * 1024 * 1024;

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            max_rate_limit_retries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(15),
            request_timeout: Duration::from_secs(600),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        }
    }
}

/// What to do after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    RetryAfter(Duration),
    GiveUp,
}

/// Retries spent so far, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetryCounts {
    pub failures: u32,
    pub rate_limits: u32,
}

impl RetryPolicy {
    /// Decides on `error`. `jitter` is a draw from `[0, 1)`.
    /// A server's `Retry-After` is honoured on every retried status (a 503 as much as a 429):
    /// the wait it asks for replaces the backoff, up to `max_retry_after`.
    pub fn decide(&self, error: &ModelError, spent: RetryCounts, jitter: f64) -> RetryDecision {
        let retry = match error.class() {
            ErrorClass::Retryable if spent.failures < self.max_retries => spent.failures,
            ErrorClass::RateLimited if spent.rate_limits < self.max_rate_limit_retries => {
                spent.rate_limits
            }
            _ => return RetryDecision::GiveUp,
        };
        match error.retry_after() {
            Some(wait) if wait > self.max_retry_after => RetryDecision::GiveUp,
            Some(wait) => RetryDecision::RetryAfter(wait),
            None => RetryDecision::RetryAfter(self.backoff(retry, jitter)),
        }
    }

    /// Exponential backoff with "equal jitter": half the step fixed, half random, capped.
    pub fn backoff(&self, retry: u32, jitter: f64) -> Duration {
        let step = self
            .initial_backoff
            .saturating_mul(1u32.checked_shl(retry.min(16)).unwrap_or(u32::MAX))
            .min(self.max_backoff);
        let jitter = jitter.clamp(0.0, 1.0);
        step.mul_f64(0.5 + jitter / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16, retry_after: Option<u64>) -> ModelError {
        ModelError::Status {
            url: "u".into(),
            status,
            code: None,
            provider_message: "m".into(),
            retry_after: retry_after.map(Duration::from_secs),
            class: crate::error::classify_status(status, None),
        }
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.backoff(0, 1.0), Duration::from_millis(500));
        assert_eq!(policy.backoff(1, 1.0), Duration::from_millis(1000));
        assert_eq!(policy.backoff(0, 0.0), Duration::from_millis(250));
        assert_eq!(policy.backoff(30, 1.0), Duration::from_secs(20));
    }

    #[test]
    fn server_errors_retry_until_the_count_is_spent() {
        let policy = RetryPolicy::default();
        let error = status(503, None);
        let spent = RetryCounts {
            failures: 3,
            rate_limits: 0,
        };
        assert!(matches!(
            policy.decide(&error, spent, 0.5),
            RetryDecision::RetryAfter(_)
        ));
        let spent = RetryCounts {
            failures: 4,
            rate_limits: 0,
        };
        assert_eq!(policy.decide(&error, spent, 0.5), RetryDecision::GiveUp);
    }

    #[test]
    fn rate_limits_honour_retry_after_up_to_the_ceiling() {
        let policy = RetryPolicy::default();
        let none = RetryCounts::default();
        assert_eq!(
            policy.decide(&status(429, Some(7)), none, 0.5),
            RetryDecision::RetryAfter(Duration::from_secs(7))
        );
        assert_eq!(
            policy.decide(&status(429, Some(3600)), none, 0.5),
            RetryDecision::GiveUp
        );
    }

    #[test]
    fn a_retried_server_error_waits_what_retry_after_asks() {
        let policy = RetryPolicy::default();
        let none = RetryCounts::default();
        assert_eq!(
            policy.decide(&status(503, Some(1)), none, 0.5),
            RetryDecision::RetryAfter(Duration::from_secs(1))
        );
        assert_eq!(
            policy.decide(&status(503, Some(3600)), none, 0.5),
            RetryDecision::GiveUp
        );
        let spent = RetryCounts {
            failures: 4,
            rate_limits: 0,
        };
        assert_eq!(
            policy.decide(&status(503, Some(1)), spent, 0.5),
            RetryDecision::GiveUp
        );
    }

    #[test]
    fn an_answer_past_the_cap_or_the_deadline_is_not_retried() {
        let policy = RetryPolicy::default();
        let too_large = ModelError::ResponseTooLarge {
            url: "u".into(),
            limit: 10,
        };
        let too_slow = ModelError::RequestTimeout {
            url: "u".into(),
            after: Duration::from_secs(1),
        };
        for error in [too_large, too_slow] {
            assert_eq!(
                policy.decide(&error, RetryCounts::default(), 0.5),
                RetryDecision::GiveUp,
                "{error}"
            );
        }
    }

    #[test]
    fn client_errors_are_never_retried() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.decide(&status(400, None), RetryCounts::default(), 0.5),
            RetryDecision::GiveUp
        );
        assert_eq!(
            policy.decide(&ModelError::Cancelled, RetryCounts::default(), 0.5),
            RetryDecision::GiveUp
        );
    }
}
