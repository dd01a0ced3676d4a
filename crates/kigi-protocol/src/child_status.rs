//! How a subagent ended: one typed value from the core that ran it to every front end that
//! shows it (`subagent_finished`), so no side has to guess the other's spelling.

use serde::{Deserialize, Serialize};

/// How a child ended. On the wire: `completed`, `failed`, `cancelled`, `timed_out`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChildStatus {
    Completed,
    Failed,
    Cancelled,
    /// Its wall-clock budget ran out.
    TimedOut,
}

impl ChildStatus {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::TimedOut => "timed_out",
        }
    }

    /// The words a person (or a model) reads: `timed out`.
    pub fn label(self) -> &'static str {
        match self {
            Self::TimedOut => "timed out",
            other => other.as_str(),
        }
    }
}

impl std::fmt::Display for ChildStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_spelling_is_the_serialized_one() {
        for status in [
            ChildStatus::Completed,
            ChildStatus::Failed,
            ChildStatus::Cancelled,
            ChildStatus::TimedOut,
        ] {
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::Value::String(status.as_str().into())
            );
        }
        assert_eq!(ChildStatus::TimedOut.label(), "timed out");
    }
}
