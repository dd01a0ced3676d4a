//! `[swarm]` in `config.toml`: the launch ramp, the concurrency cap and the limits of an agent
//! swarm. Unset keys take the defaults defined here, which the engine uses too.

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
    /// `kigi swarm` runs each member on this `[agent_executors.<id>]` (a cluster's `srun`, a
    /// `kubectl run`, an `ssh`) instead of in this process; `--executor` beats it. The
    /// `agent_swarm` tool always runs members here.
    pub executor: Option<String>,
}

impl SwarmConfig {
    /// A burst as wide as the cap, then 50 launches a second: a full swarm of 128 is not held
    /// back by the ramp, yet a provider never sees 128 requests in one instant.
    pub const DEFAULT_MAX_CONCURRENCY: usize = 16;
    pub const DEFAULT_INITIAL_BURST: usize = 16;
    pub const DEFAULT_LAUNCH_INTERVAL_MS: u64 = 20;
    pub const DEFAULT_RATE_LIMIT_RETRIES: u32 = 2;
    pub const DEFAULT_RETRY_DELAY_MS: u64 = 2_000;
    pub const DEFAULT_DEADLINE_MS: u64 = 30 * 60 * 1_000;

    /// Every key at the value it takes when unset.
    pub fn built_in() -> Self {
        Self {
            max_concurrency: Some(Self::DEFAULT_MAX_CONCURRENCY),
            initial_burst: Some(Self::DEFAULT_INITIAL_BURST),
            launch_interval_ms: Some(Self::DEFAULT_LAUNCH_INTERVAL_MS),
            rate_limit_retries: Some(Self::DEFAULT_RATE_LIMIT_RETRIES),
            retry_delay_ms: Some(Self::DEFAULT_RETRY_DELAY_MS),
            deadline_ms: Some(Self::DEFAULT_DEADLINE_MS),
            executor: None,
        }
    }
}
