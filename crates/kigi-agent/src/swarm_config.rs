//! `[swarm]` in `config.toml`: the launch ramp, the concurrency cap and the limits of an agent
//! swarm. Unset keys keep the engine's defaults.

use serde::{Deserialize, Serialize};

/// `[swarm]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct SwarmConfig {
    /// Members running at once, at least 1 (env `KIGI_SWARM_MAX_CONCURRENCY` beats it, applied
    /// by the loader); unset: the engine's default.
    pub max_concurrency: Option<usize>,
    /// Members launched at once before the ramp spaces them.
    pub initial_burst: Option<usize>,
    /// Milliseconds between launches after the burst.
    pub launch_interval_ms: Option<u64>,
    /// Extra attempts for a rate-limited member.
    pub rate_limit_retries: Option<u32>,
    /// Milliseconds before a rate-limited member runs again (doubles per retry).
    pub retry_delay_ms: Option<u64>,
    /// Wall-clock limit of a whole swarm, in milliseconds.
    pub deadline_ms: Option<u64>,
}
