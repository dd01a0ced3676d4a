//! The stable codes of failures, as session files, `kigi -p --output-format json` and editors
//! carry them (`model.rate_limited`, `loop.max_turns`, …).
//!
//! The rule: a code's text never changes once shipped. A code this version does not know (a
//! newer kigi's session file) is kept as it was written, in [`ErrorCode::Other`].

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why something failed, as a stable code.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The provider refused for rate or quota; retries were spent.
    ModelRateLimited,
    /// The conversation no longer fits the model's context window.
    ModelContextLength,
    /// The provider failed in a way retries could not fix (5xx, cut streams).
    ModelUnavailable,
    /// The provider refused the request (4xx other than rate limits).
    ModelRefused,
    TurnCancelled,
    /// The model answered with no text and no tool calls.
    LoopEmptyCompletion,
    /// `maxTurns` requests without a final answer.
    LoopMaxTurns,
    /// The model kept stopping without calling its completion tool.
    LoopCompletionRequirement,
    /// A token budget (own or the tree's) was spent.
    BudgetTokens,
    /// The session file could not be written.
    SessionStore,
    /// A subagent ran past its wall-clock limit.
    TaskTimeout,
    /// A subagent ended with an empty final message.
    TaskEmptyAgentReceipt,
    /// A user's hook stopped the turn (a blocked prompt, `continue: false`).
    HookBlocked,
    /// An MCP server failed to start or needs the folder trusted; its tools are absent.
    McpServerUnavailable,
    /// A code this version does not know, kept as written.
    Other(String),
}

impl ErrorCode {
    /// Every known code with its text.
    const KNOWN: [(ErrorCode, &'static str); 14] = [
        (Self::ModelRateLimited, "model.rate_limited"),
        (Self::ModelContextLength, "model.context_length"),
        (Self::ModelUnavailable, "model.unavailable"),
        (Self::ModelRefused, "model.refused"),
        (Self::TurnCancelled, "turn.cancelled"),
        (Self::LoopEmptyCompletion, "loop.empty_completion"),
        (Self::LoopMaxTurns, "loop.max_turns"),
        (
            Self::LoopCompletionRequirement,
            "loop.completion_requirement",
        ),
        (Self::BudgetTokens, "budget.tokens"),
        (Self::SessionStore, "session.store"),
        (Self::TaskTimeout, "task.timeout"),
        (Self::TaskEmptyAgentReceipt, "task.empty_agent_receipt"),
        (Self::HookBlocked, "hook.blocked"),
        (Self::McpServerUnavailable, "mcp.server_unavailable"),
    ];

    /// The code's text.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Other(text) => text,
            known => Self::KNOWN
                .iter()
                .find(|(code, _)| code == known)
                .map_or("", |(_, text)| text),
        }
    }

    /// The code a text names.
    pub fn parse(text: &str) -> Self {
        Self::KNOWN
            .iter()
            .find(|(_, known)| *known == text)
            .map_or_else(|| Self::Other(text.to_owned()), |(code, _)| code.clone())
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for ErrorCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(Self::parse(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_its_shipped_text() {
        for (code, text) in ErrorCode::KNOWN {
            assert_eq!(code.as_str(), text);
            assert_eq!(ErrorCode::parse(text), code);
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(serde_json::from_str::<ErrorCode>(&json).unwrap(), code);
        }
        let texts: std::collections::HashSet<&str> =
            ErrorCode::KNOWN.iter().map(|(_, t)| *t).collect();
        assert_eq!(texts.len(), ErrorCode::KNOWN.len(), "a text is used twice");
    }

    #[test]
    fn an_unknown_code_is_kept_as_written() {
        let code: ErrorCode = serde_json::from_str("\"spawn.future_thing\"").unwrap();
        assert_eq!(code, ErrorCode::Other("spawn.future_thing".into()));
        assert_eq!(
            serde_json::to_string(&code).unwrap(),
            "\"spawn.future_thing\""
        );
    }
}
