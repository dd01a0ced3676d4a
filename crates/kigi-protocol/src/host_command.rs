//! What a front end tells a running session. Commands may arrive at any time, also while a
//! turn runs; each says what it does when nothing is running.

use serde::{Deserialize, Serialize};

/// One command to a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostCommand {
    /// A user turn. While a turn runs it waits for that turn to end.
    UserTurn {
        text: String,
        /// Files, images and editor buffers sent with the text (`@path` in the terminal,
        /// resources and images in ACP). The host reads and judges files itself.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<Attachment>,
    },
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
    /// Switches the main agent's model from its next request on: a `[models]` alias or a
    /// model id on the current endpoint. Answered with a `model_changed` notice, or an error
    /// naming the model.
    SetModel { model: String },
    /// Turns a subagent type on or off for this session's next spawns (the terminal's agents
    /// modal persists the same choice in `[subagents.toggle]`). The spawn tools offered to the
    /// model at its next request follow it.
    SetSubagentEnabled { agent_type: String, enabled: bool },
    /// Turns a persona on or off for this session's next spawns (the agents modal persists
    /// the same choice in `[subagents.persona_toggle]`); a spawn naming one switched off is
    /// refused with the reason.
    SetPersonaEnabled { persona: String, enabled: bool },
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

/// Something sent with a user turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Attachment {
    /// A file of the workspace, by path (relative to the session's folder, or absolute). The
    /// host resolves it, applies the Read rules and a size limit, and quotes it for the model.
    File { path: String },
    /// Text a front end already holds (an editor's unsaved buffer, an embedded resource).
    Text {
        /// Where it comes from: a path or a URI.
        source: String,
        text: String,
    },
    /// An image, base64-encoded (`image/png`, `image/jpeg`, `image/gif`, `image/webp`).
    Image { media_type: String, data: String },
}

impl HostCommand {
    /// A user turn with only text.
    pub fn user_turn(text: impl Into<String>) -> Self {
        Self::UserTurn {
            text: text.into(),
            attachments: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    /// The wire names are a contract with scripts and editors.
    #[test]
    fn new_commands_have_their_wire_names() {
        let cases = [
            (
                HostCommand::UserTurn {
                    text: "look".into(),
                    attachments: vec![
                        Attachment::File {
                            path: "src/a.rs".into(),
                        },
                        Attachment::Text {
                            source: "file:///b.rs".into(),
                            text: "x".into(),
                        },
                        Attachment::Image {
                            media_type: "image/png".into(),
                            data: "AAAA".into(),
                        },
                    ],
                },
                json!({"type": "user_turn", "text": "look", "attachments": [
                    {"kind": "file", "path": "src/a.rs"},
                    {"kind": "text", "source": "file:///b.rs", "text": "x"},
                    {"kind": "image", "media_type": "image/png", "data": "AAAA"},
                ]}),
            ),
            (
                HostCommand::user_turn("hi"),
                json!({"type": "user_turn", "text": "hi"}),
            ),
            (
                HostCommand::SetModel {
                    model: "fast".into(),
                },
                json!({"type": "set_model", "model": "fast"}),
            ),
            (
                HostCommand::SetSubagentEnabled {
                    agent_type: "plan".into(),
                    enabled: false,
                },
                json!({"type": "set_subagent_enabled", "agent_type": "plan", "enabled": false}),
            ),
            (
                HostCommand::SetPersonaEnabled {
                    persona: "concise".into(),
                    enabled: true,
                },
                json!({"type": "set_persona_enabled", "persona": "concise", "enabled": true}),
            ),
        ];
        for (command, wire) in cases {
            assert_eq!(serde_json::to_value(&command).unwrap(), wire);
            assert_eq!(
                serde_json::from_value::<HostCommand>(wire).unwrap(),
                command
            );
        }
    }
}
