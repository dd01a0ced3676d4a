//! What comes back: a stream of [`ModelEvent`]s, the same for every provider.

use std::time::Duration;

use kigi_protocol::ToolCall;
use serde::{Deserialize, Serialize};

/// One event of a model's streamed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    TextDelta(String),
    /// Reasoning text (`reasoning_content`, thinking blocks, reasoning summaries).
    ThinkingDelta(String),
    /// Anthropic's signature for the thinking block just streamed; it must be sent back.
    ThinkingSignature(String),
    /// A complete tool call, assembled from however many argument fragments the wire carried.
    ToolCall(ToolCall),
    Usage(Usage),
    Finish(FinishReason),
    /// The request failed in a way worth retrying and is being sent again after `delay`.
    /// Everything streamed since the last `Retrying` (or the start) is void: the new attempt
    /// starts the answer over.
    Retrying {
        attempt: u32,
        delay: Duration,
        reason: String,
    },
}

/// Token counts for one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Input tokens served from the provider's prompt cache (counted in `input_tokens` too).
    pub cached_input_tokens: u64,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    /// The output token limit.
    Length,
    ContentFilter,
    Other(String),
}

impl FinishReason {
    /// Maps the finish / stop reasons of every supported wire.
    pub fn from_wire(reason: &str) -> Self {
        match reason {
            "stop" | "end_turn" | "stop_sequence" | "completed" => Self::Stop,
            "tool_calls" | "tool_use" | "function_call" => Self::ToolCalls,
            "length" | "max_tokens" | "max_output_tokens" => Self::Length,
            "content_filter" | "refusal" => Self::ContentFilter,
            other => Self::Other(other.to_owned()),
        }
    }
}
