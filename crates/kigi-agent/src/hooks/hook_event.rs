//! The moments a hook can run at, with Claude Code's names (settings files written for Claude
//! Code work unchanged).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A hook event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum HookEvent {
    /// A session opened (new or resumed); stdout becomes context.
    SessionStart,
    /// A person's prompt, before the model sees it; exit 2 blocks it, stdout becomes context.
    UserPromptSubmit,
    /// A tool call, before it is checked and run; it may deny, ask, allow or rewrite it.
    PreToolUse,
    /// A tool call that ran; it may give the model a reason or context.
    PostToolUse,
    /// kigi is waiting for a person (an approval).
    Notification,
    /// The main agent is about to end its turn; exit 2 makes it go on.
    Stop,
    /// A subagent starts.
    SubagentStart,
    /// A subagent is about to end its turn; exit 2 makes it go on.
    SubagentStop,
    /// Before the conversation is compacted.
    PreCompact,
    /// The session is closing.
    SessionEnd,
}

impl HookEvent {
    pub const ALL: [HookEvent; 10] = [
        Self::SessionStart,
        Self::UserPromptSubmit,
        Self::PreToolUse,
        Self::PostToolUse,
        Self::Notification,
        Self::Stop,
        Self::SubagentStart,
        Self::SubagentStop,
        Self::PreCompact,
        Self::SessionEnd,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::Notification => "Notification",
            Self::Stop => "Stop",
            Self::SubagentStart => "SubagentStart",
            Self::SubagentStop => "SubagentStop",
            Self::PreCompact => "PreCompact",
            Self::SessionEnd => "SessionEnd",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.name() == name)
    }

    /// Events whose matcher is about tool names.
    pub fn matches_tools(self) -> bool {
        matches!(self, Self::PreToolUse | Self::PostToolUse)
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
