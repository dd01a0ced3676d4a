//! A session's permission mode as one shared cell: a front end may switch it while the session
//! lives (an editor's mode picker, `/permissions`), and the tool runtime and the coordinator
//! read the current value at each call and each spawn.
//!
//! The rule: the mode is read where a decision is made, never copied out and kept.

use std::sync::{Arc, Mutex};

use kigi_agent::PermissionMode;

/// The current permission mode of one agent.
#[derive(Debug, Clone, Default)]
pub struct SharedMode(Arc<Mutex<PermissionMode>>);

impl SharedMode {
    pub fn new(mode: PermissionMode) -> Self {
        Self(Arc::new(Mutex::new(mode)))
    }

    pub fn get(&self) -> PermissionMode {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn set(&self, mode: PermissionMode) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = mode;
    }
}
