//! What a session host sends its front ends: every [`SessionEvent`] of every agent in the
//! session tree, tagged with the agent it belongs to, plus the host's own notices (a child
//! started, what it is doing, how it ended; an approval is waiting, or was answered).
//!
//! The rule: these serde names are a contract with scripts (`kigi -p --output-format
//! stream-json`) and editors. A host event is a session event's JSON object with `agentId`
//! (and `parentId` for a child) added, or a notice with a `type` no session event uses.

use serde::{Deserialize, Serialize};

use crate::{CanonicalToolMeta, SessionEvent};

/// The id of the main agent in host events and session files.
pub const MAIN_AGENT_ID: &str = "main";

/// One event from a session host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostEvent {
    /// `main`, or a child's id (`sub-3`).
    #[serde(rename = "agentId")]
    pub agent_id: String,
    /// The agent that started this one; absent for the main agent.
    #[serde(rename = "parentId", default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    #[serde(flatten)]
    pub body: HostEventBody,
}

/// A session event, or a notice of the host's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum HostEventBody {
    Session(SessionEvent),
    Notice(HostNotice),
}

/// What the host itself reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostNotice {
    /// A child was started (before any of its own events).
    SubagentStarted {
        description: String,
        /// The subagent type (agent or role name).
        agent_type: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        persona: Option<String>,
        model: String,
        /// The layer that chose the model (`spawn parameter`, `persona`, `parent`, …).
        model_source: String,
        background: bool,
        /// The worktree path, for `isolation: worktree`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worktree: Option<String>,
        /// It continues an earlier child's conversation (`resume` of `spawn_subagent`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        resumed: bool,
    },
    /// A foreground child outlived its parent's wait and goes on in the background; it was
    /// not stopped, and its end is reported as a background child's.
    SubagentMovedToBackground {},
    /// What a running child is doing now, in a few words (`Thinking`, `Running: cargo test`,
    /// `Retrying (2/3)`, `Waiting for approval`). Sent when the label changes.
    SubagentActivity { label: String },
    /// A child's turn ended.
    SubagentFinished {
        /// `completed`, `failed`, `cancelled` or `timed_out`.
        status: crate::ChildStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        input_tokens: u64,
        output_tokens: u64,
        tool_calls: u32,
        steps: u32,
        elapsed_ms: u64,
    },
    /// A tool call waits for a person's answer (`HostCommand::Approval`).
    ApprovalRequested {
        request_id: String,
        call_id: String,
        /// The model-facing tool name.
        name: String,
        /// The canonical identity of the call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<CanonicalToolMeta>,
        /// What a person needs to decide: the command line, or the file and a unified diff.
        summary: String,
    },
    /// A background command (`run_terminal_cmd` with `background: true`) started.
    BackgroundCommandStarted { task_id: String, command: String },
    /// A background command ended (one that could not start never started: its call's
    /// result says why).
    BackgroundCommandFinished {
        task_id: String,
        status: BackgroundCommandStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
    },
    /// The main agent's model changed (`HostCommand::SetModel`); the next request uses it.
    ModelChanged {
        model: String,
        /// The context window of the new model, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_window: Option<u64>,
    },
    /// A waiting approval was answered, or given up because its turn ended.
    ApprovalResolved {
        request_id: String,
        decision: ApprovalDecision,
    },
}

/// How a background command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundCommandStatus {
    /// It exited by itself (`exit_code` says with what, when known).
    Exited,
    /// Killed: by `kill_task`, a signal, or the session ending.
    Killed,
    /// Past its time limit.
    TimedOut,
}

/// How a waiting approval ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    Allowed,
    Denied,
    /// The turn was interrupted or the session shut down before anyone answered.
    Cancelled,
}

impl HostEvent {
    /// An event of the main agent.
    pub fn main(body: HostEventBody) -> Self {
        Self {
            agent_id: MAIN_AGENT_ID.to_owned(),
            parent_id: None,
            body,
        }
    }

    /// The session event this carries, if it is one.
    pub fn session_event(&self) -> Option<&SessionEvent> {
        match &self.body {
            HostEventBody::Session(event) => Some(event),
            HostEventBody::Notice(_) => None,
        }
    }

    /// Whether this is the main agent's.
    pub fn is_main(&self) -> bool {
        self.parent_id.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_event_is_the_session_event_with_its_agent_added() {
        let event = HostEvent {
            agent_id: "sub-2".into(),
            parent_id: Some(MAIN_AGENT_ID.into()),
            body: HostEventBody::Session(SessionEvent::TextDelta { text: "hi".into() }),
        };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"agentId": "sub-2", "parentId": "main", "type": "text_delta", "text": "hi"})
        );
        assert_eq!(serde_json::from_value::<HostEvent>(json).unwrap(), event);
    }

    #[test]
    fn notices_round_trip_with_their_own_types() {
        let event = HostEvent::main(HostEventBody::Notice(HostNotice::ApprovalResolved {
            request_id: "approval-1".into(),
            decision: ApprovalDecision::Denied,
        }));
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["type"], "approval_resolved");
        assert_eq!(json["decision"], "denied");
        assert!(json.get("parentId").is_none());
        assert_eq!(serde_json::from_value::<HostEvent>(json).unwrap(), event);
    }

    #[test]
    fn new_notices_have_their_wire_names() {
        let cases = [
            (
                HostNotice::BackgroundCommandStarted {
                    task_id: "task-1".into(),
                    command: "npm run dev".into(),
                },
                serde_json::json!({"type": "background_command_started", "task_id": "task-1", "command": "npm run dev"}),
            ),
            (
                HostNotice::BackgroundCommandFinished {
                    task_id: "task-1".into(),
                    status: BackgroundCommandStatus::TimedOut,
                    exit_code: None,
                },
                serde_json::json!({"type": "background_command_finished", "task_id": "task-1", "status": "timed_out"}),
            ),
            (
                HostNotice::ModelChanged {
                    model: "fast-model".into(),
                    context_window: Some(1000),
                },
                serde_json::json!({"type": "model_changed", "model": "fast-model", "context_window": 1000}),
            ),
            (
                HostNotice::SubagentMovedToBackground {},
                serde_json::json!({"type": "subagent_moved_to_background"}),
            ),
        ];
        for (notice, wire) in cases {
            assert_eq!(serde_json::to_value(&notice).unwrap(), wire);
            assert_eq!(serde_json::from_value::<HostNotice>(wire).unwrap(), notice);
        }
        let started = serde_json::json!({"type": "subagent_started", "description": "d",
            "agent_type": "explore", "model": "m", "model_source": "parent",
            "background": false, "resumed": true});
        let HostNotice::SubagentStarted { resumed, .. } =
            serde_json::from_value::<HostNotice>(started.clone()).unwrap()
        else {
            panic!("not a start")
        };
        assert!(resumed);
        let mut not_resumed = started;
        not_resumed.as_object_mut().unwrap().remove("resumed");
        let notice: HostNotice = serde_json::from_value(not_resumed.clone()).unwrap();
        assert_eq!(
            serde_json::to_value(&notice).unwrap(),
            not_resumed,
            "false is left out"
        );
    }
}
