//! Tokens a session may spend: its own budget, and the budget its whole tree of children
//! shares. Counted after every model response; a spent budget ends the turn.

use std::sync::Arc;

/// Tokens a session may spend: on its own, and together with the other children of its tree.
#[derive(Debug, Clone, Default)]
pub struct TokenBudget {
    pub own: Option<u64>,
    pub tree: Option<Arc<TreeMeter>>,
}

/// The tokens every child of one session has spent, against the tree's limit.
#[derive(Debug)]
pub struct TreeMeter {
    spent: std::sync::atomic::AtomicU64,
    limit: u64,
}

impl TreeMeter {
    pub fn new(limit: u64) -> Self {
        Self {
            spent: std::sync::atomic::AtomicU64::new(0),
            limit,
        }
    }

    /// Adds `tokens`; returns the total after.
    pub fn add(&self, tokens: u64) -> u64 {
        self.spent
            .fetch_add(tokens, std::sync::atomic::Ordering::Relaxed)
            + tokens
    }

    pub fn spent(&self) -> u64 {
        self.spent.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }
}
