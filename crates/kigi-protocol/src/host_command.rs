//! What a front end tells a running session. Commands may arrive at any time, also while a
//! turn runs; each says what it does when nothing is running.

use serde::{Deserialize, Serialize};

/// One command to a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostCommand {
    /// A user turn. While a turn runs it waits for that turn to end.
    UserTurn { text: String },
    /// Cancels the turn in flight (its tools and children too). Nothing when idle.
    Interrupt,
    /// Text the model sees at its next step of the running turn, as a user message (a turn
    /// whose model just answered goes on for it); when idle, the model reads it right after
    /// the next turn's prompt.
    Steer { text: String },
    /// The answer to an `approval_requested` notice.
    Approval {
        request_id: String,
        answer: ApprovalAnswer,
    },
    /// Switches the main agent's permission mode (`default`, `acceptEdits`, `plan`,
    /// `dontAsk`, `bypassPermissions`) from its next tool call on; children started later
    /// derive theirs from it.
    SetPermissionMode { mode: String },
    /// Compacts the conversation before the next turn's first request (`/compact`).
    Compact,
    /// Cancels one subagent (`sub-3`) and what it started; its end is reported as cancelled.
    KillSubagent { id: String },
    /// Gives a subagent more input: at its next step if it runs; a stopped one carries on in
    /// the background.
    SendToSubagent { id: String, text: String },
    /// Cancels everything and closes the session; its event stream ends.
    Shutdown,
}

/// A person's answer to an approval request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ApprovalAnswer {
    /// Run this call.
    AllowOnce,
    /// Run this call and every later call of the same tool in this session without asking.
    AllowForSession,
    /// Do not run it; the model is told, with the reason when one is given.
    Deny {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}
