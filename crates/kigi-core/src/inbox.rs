//! Messages waiting for an agent at its next step: a background child finished, a child left
//! a note, a person steered. The session drains them before each model request.

use crate::lock::lock;

/// Messages waiting for an agent at its next step (a background child finished, a child
/// left a note). The coordinator is one.
pub trait Inbox: Send + Sync + std::fmt::Debug {
    /// Takes every waiting message.
    fn drain(&self) -> Vec<String>;
}

/// A plain inbox: messages pushed by one side, drained by the session at its next step.
/// Each message may carry a key (the child it is about) so it can be withdrawn.
#[derive(Debug, Default)]
pub struct MessageQueue {
    items: std::sync::Mutex<Vec<(Option<String>, String)>>,
}

impl MessageQueue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Option<String>, String)>> {
        lock(&self.items)
    }

    pub fn push(&self, key: Option<&str>, message: String) {
        self.lock().push((key.map(str::to_owned), message));
    }

    /// Withdraws the messages about `key` (their news arrived another way).
    pub fn forget(&self, key: &str) {
        self.lock().retain(|(k, _)| k.as_deref() != Some(key));
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }
}

impl Inbox for MessageQueue {
    fn drain(&self) -> Vec<String> {
        std::mem::take(&mut *self.lock())
            .into_iter()
            .map(|(_, m)| m)
            .collect()
    }
}
