//! What an external engine did, read from one line of its output: the common shape every
//! output format's parser produces, and the one the turn runner turns into session events.
//!
//! The rule: this is data the engine claims, never an instruction to kigi. A tool call here
//! already ran (or is running) inside the engine; kigi records it and never runs or approves it.

/// One thing the engine reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineEvent {
    /// The model the engine runs (its own name for it).
    Model(String),
    /// The engine's reasoning, shown with its next assistant message.
    Thinking(String),
    /// One assistant message: its text and the tool calls it made, with the engine's own
    /// tool names.
    Assistant {
        text: String,
        calls: Vec<EngineCall>,
    },
    /// What one of those calls returned.
    ToolResult {
        id: String,
        output: String,
        is_error: bool,
    },
    /// Tokens of one request (formats that report per request) or of the whole run (formats
    /// that report once); the runner sums them.
    Usage {
        input_tokens: u64,
        output_tokens: u64,
        cached_input_tokens: u64,
    },
    /// The engine's provider throttled it, by the engine's own typed signal (never read from
    /// text): a swarm retries such a member by its rate-limit rules instead of failing it.
    RateLimited,
    /// The turn ended: the final answer, or why it failed.
    Finished(Result<String, String>),
}

/// A tool call as the engine made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineCall {
    pub id: String,
    /// The engine's own name (`Bash`, `command_execution`, `run_terminal_cmd`).
    pub name: String,
    /// Its input as JSON text.
    pub input: String,
}

/// Reads one output format, line by line. Implementations are pure: they keep what they need
/// between lines (open tool calls, the last message) and do no I/O.
pub trait LineParser: Send {
    /// The events one line holds; an unreadable or unknown line holds none.
    fn line(&mut self, line: &str) -> Vec<EngineEvent>;
}

/// A JSON number as `u64`, 0 when absent.
pub(crate) fn count(value: &serde_json::Value, key: &str) -> u64 {
    value
        .get(key)
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0)
}

/// A JSON string field, empty when absent.
pub(crate) fn text(value: &serde_json::Value, key: &str) -> String {
    value
        .get(key)
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_owned()
}
