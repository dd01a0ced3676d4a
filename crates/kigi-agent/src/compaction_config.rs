//! `[compaction]` in `config.toml`: when a long conversation is summarized to fit the model's
//! context window.

use serde::{Deserialize, Serialize};

/// `[compaction]`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct CompactionConfig {
    /// Compact at all (default true).
    pub enabled: bool,
    /// The share of the context window past which the next request compacts first (0.8).
    pub threshold: f64,
    /// User turns kept as they are (2).
    pub keep_recent_turns: usize,
    /// The context window of a model whose `[models.<alias>] context_window` is unset.
    pub default_context_window: u64,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            threshold: 0.8,
            keep_recent_turns: 2,
            default_context_window: 128_000,
        }
    }
}
