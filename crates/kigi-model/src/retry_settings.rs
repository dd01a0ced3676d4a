//! `[retry]` in `config.toml`: the counts and ceilings of [`RetryPolicy`], in milliseconds;
//! unset keys keep the policy's defaults.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::retry::RetryPolicy;

/// `[retry]`: counts and ceilings of [`RetryPolicy`], in milliseconds; unset keys keep the
/// defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct RetrySettings {
    pub max_retries: Option<u32>,
    pub max_rate_limit_retries: Option<u32>,
    pub initial_backoff_ms: Option<u64>,
    pub max_backoff_ms: Option<u64>,
    pub max_retry_after_ms: Option<u64>,
    pub idle_timeout_ms: Option<u64>,
    pub connect_timeout_ms: Option<u64>,
    /// The deadline of one model request, retries included (default 600,000: 10 minutes).
    pub request_timeout_ms: Option<u64>,
    /// The largest body one response may have, in bytes (default 33,554,432: 32 MiB).
    pub max_response_bytes: Option<u64>,
}

impl RetrySettings {
    /// Every key at the value [`RetryPolicy::default`] gives it.
    pub fn built_in() -> Self {
        let base = RetryPolicy::default();
        let ms = |d: Duration| Some(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Self {
            max_retries: Some(base.max_retries),
            max_rate_limit_retries: Some(base.max_rate_limit_retries),
            initial_backoff_ms: ms(base.initial_backoff),
            max_backoff_ms: ms(base.max_backoff),
            max_retry_after_ms: ms(base.max_retry_after),
            idle_timeout_ms: ms(base.idle_timeout),
            connect_timeout_ms: ms(base.connect_timeout),
            request_timeout_ms: ms(base.request_timeout),
            max_response_bytes: Some(base.max_response_bytes),
        }
    }

    /// The policy: defaults overridden by what is set.
    pub fn policy(&self) -> RetryPolicy {
        let base = RetryPolicy::default();
        let ms =
            |value: Option<u64>, default: Duration| value.map_or(default, Duration::from_millis);
        RetryPolicy {
            max_retries: self.max_retries.unwrap_or(base.max_retries),
            max_rate_limit_retries: self
                .max_rate_limit_retries
                .unwrap_or(base.max_rate_limit_retries),
            initial_backoff: ms(self.initial_backoff_ms, base.initial_backoff),
            max_backoff: ms(self.max_backoff_ms, base.max_backoff),
            max_retry_after: ms(self.max_retry_after_ms, base.max_retry_after),
            idle_timeout: ms(self.idle_timeout_ms, base.idle_timeout),
            connect_timeout: ms(self.connect_timeout_ms, base.connect_timeout),
            request_timeout: ms(self.request_timeout_ms, base.request_timeout),
            max_response_bytes: self.max_response_bytes.unwrap_or(base.max_response_bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_config::tests::config;

    #[test]
    fn retry_settings_override_only_what_they_set() {
        let policy = config("[retry]\nmax_retries = 1\nidle_timeout_ms = 2500\n")
            .retry
            .policy();
        assert_eq!(policy.max_retries, 1);
        assert_eq!(policy.idle_timeout, Duration::from_millis(2_500));
        assert_eq!(
            policy.max_retry_after,
            RetryPolicy::default().max_retry_after
        );
    }

    #[test]
    fn the_stream_bounds_are_read_from_the_retry_section() {
        let policy = config("[retry]\nrequest_timeout_ms = 1500\nmax_response_bytes = 4096\n")
            .retry
            .policy();
        assert_eq!(policy.request_timeout, Duration::from_millis(1_500));
        assert_eq!(policy.max_response_bytes, 4_096);
        let defaults = RetrySettings::default().policy();
        assert_eq!(defaults.request_timeout, Duration::from_secs(600));
        assert_eq!(defaults.max_response_bytes, 32 * 1024 * 1024);
        let built_in = RetrySettings::built_in();
        assert_eq!(built_in.request_timeout_ms, Some(600_000));
        assert_eq!(built_in.max_response_bytes, Some(33_554_432));
    }
}
