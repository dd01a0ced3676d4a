//! Compaction: when the next request would pass a share of the model's context window, the
//! older part of the conversation is replaced by a summary the model writes, and the agent
//! carries on with the summary and its most recent messages. Pure parts here (how big the
//! next request is, where the kept part starts, the older part as text, the prompt); the
//! session drives them (`session/session_compaction.rs`).
//!
//! The rule: the transcript keeps everything; a `compaction` record says where the summary
//! replaced older messages, and a resume rebuilds the compacted conversation from it.

mod context_estimate;
mod split_point;
mod transcript_text;

pub use context_estimate::{ContextMark, estimate_messages, estimate_text, next_request_tokens};
pub use split_point::split_point;
pub use transcript_text::transcript_text;

/// The summarizer's instructions (one file, so they are read and changed in one place).
pub const COMPACTION_PROMPT: &str = include_str!("compaction_prompt.md");

/// When and how a session compacts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompactionPolicy {
    /// Off: a long session ends in a context-length error instead.
    pub enabled: bool,
    /// The share of the context window past which the next request compacts first.
    pub threshold: f64,
    /// User turns kept as they are.
    pub keep_recent_turns: usize,
    /// The window when the model's is not configured.
    pub default_context_window: u64,
}

impl Default for CompactionPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            threshold: 0.8,
            keep_recent_turns: 2,
            default_context_window: 128_000,
        }
    }
}

impl CompactionPolicy {
    /// This policy as an agent's `compaction:` changes it.
    pub fn for_agent(self, setting: Option<kigi_agent::CompactionSetting>) -> Self {
        match setting {
            None => self,
            Some(kigi_agent::CompactionSetting::Off) => Self {
                enabled: false,
                ..self
            },
            Some(kigi_agent::CompactionSetting::Policy {
                threshold,
                keep_recent_turns,
            }) => Self {
                threshold: threshold.unwrap_or(self.threshold),
                keep_recent_turns: keep_recent_turns.map_or(self.keep_recent_turns, |n| n as usize),
                ..self
            },
        }
    }

    /// The tokens past which a request compacts first, for a model with `window`.
    pub fn limit(&self, window: Option<u64>) -> u64 {
        let window = window.unwrap_or(self.default_context_window) as f64;
        (window * self.threshold.clamp(0.05, 1.0)) as u64
    }

    /// The tokens the kept part may take.
    pub fn keep_tokens(&self, window: Option<u64>) -> u64 {
        let window = window.unwrap_or(self.default_context_window) as f64;
        (window * 0.3) as u64
    }
}

/// The message that stands for the summarized part of a conversation.
pub fn summary_message(summary: &str) -> kigi_protocol::Message {
    kigi_protocol::Message::user(format!(
        "<system-reminder>\nThe earlier part of this conversation was compacted. Its summary:\n\n{}\n</system-reminder>",
        summary.trim()
    ))
}
