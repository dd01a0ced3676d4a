//! What happens in a session, as one stream of events: the front ends (print, JSON lines,
//! editors) read it live, and the session file (`wire.jsonl`) stores it.
//!
//! The rule: these serde names are the session-file format. Add variants and fields (with
//! defaults); never rename one, or old sessions stop loading.

use serde::{Deserialize, Serialize};

use crate::{CanonicalToolMeta, ErrorCode, ToolCall};

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEvent {
    /// The first record of every session file.
    SessionStart {
        session_id: String,
        agent: String,
        model: String,
        cwd: String,
        kigi_version: String,
    },
    UserMessage {
        text: String,
    },
    /// What a person sent with the user message just before (`@path` in the terminal, an
    /// editor's resources and images), as the model received it: files quoted in full,
    /// images only for a model that reads them (otherwise a note in `files`).
    UserAttachments {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        files: Vec<AttachedText>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImagePart>,
    },
    /// A `<system-reminder>` kigi added to the conversation (completion requirement, a
    /// message for the agent, …).
    Reminder {
        text: String,
        /// Why it was added; files written before this field read as `completion`.
        #[serde(default, skip_serializing_if = "ReminderSource::is_completion")]
        source: ReminderSource,
    },
    /// Streamed text; live only (the assistant message holds the whole text on disk).
    TextDelta {
        text: String,
    },
    /// Streamed reasoning; live only.
    ThinkingDelta {
        text: String,
    },
    /// One complete model response.
    AssistantMessage {
        text: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        thinking: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thinking_signature: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// A tool call about to be checked and run, with its canonical identity.
    ToolCall {
        call_id: String,
        /// The model-facing name.
        name: String,
        /// The arguments as the model wrote them.
        raw_input: String,
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<ToolCallMeta>,
    },
    /// What a tool call produced. `output` is complete; the model may have seen it clamped.
    ToolResult {
        call_id: String,
        name: String,
        status: ToolStatus,
        output: String,
    },
    /// Images a tool call returned, sent on to a model that reads images (as a user message
    /// after the results). Written to the transcript so a resume sends them again.
    ToolImages {
        call_id: String,
        name: String,
        images: Vec<ImagePart>,
    },
    Usage {
        input_tokens: u64,
        output_tokens: u64,
        #[serde(default)]
        cached_input_tokens: u64,
        /// The model's context window when known, so a transcript tells how full it was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_window: Option<u64>,
    },
    /// The model request failed and is being sent again.
    Retrying {
        attempt: u32,
        delay_ms: u64,
        reason: String,
    },
    /// The end of a user turn.
    TurnEnd {
        reason: TurnEndReason,
        /// Model requests made in this turn.
        steps: u32,
    },
    /// A failure, with a stable code (`model.rate_limited`, `loop.empty_completion`, …).
    Error {
        code: ErrorCode,
        message: String,
    },
    /// The conversation is about to be compacted (`trigger`: `auto`, `manual`, or
    /// `context_length` after a provider refused it as too long).
    CompactionStarted {
        trigger: String,
        /// The estimated tokens of the next request, before.
        tokens: u64,
    },
    /// The older part of the conversation was replaced by `summary`; the last `kept_messages`
    /// messages stay as they were. A resume rebuilds the conversation from here.
    Compaction {
        summary: String,
        kept_messages: u32,
        tokens_before: u64,
        tokens_after: u64,
    },
    /// One of the user's hook commands ran (Claude Code's hook events).
    HookRun {
        /// `PreToolUse`, `Stop`, …
        event: String,
        command: String,
        /// `None` when it was killed (timeout, cancellation) or could not start.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        duration_ms: u64,
        outcome: HookOutcome,
        /// The reason it gave, or its stderr tail.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        message: String,
    },
}

/// A file or text attached to a user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachedText {
    /// A path (relative to the session's folder when inside it) or a URI.
    pub source: String,
    pub text: String,
}

/// One image, base64-encoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImagePart {
    pub media_type: String,
    pub data: String,
}

/// How a hook run ended, as Claude Code reads a hook's exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookOutcome {
    /// Exit 0.
    Ok,
    /// Exit 2, or a JSON decision that blocks.
    Blocked,
    /// Any other exit: shown, not acted on.
    Warning,
    /// Killed at its timeout.
    TimedOut,
    /// Could not start, or was cancelled.
    Failed,
}

/// Why kigi added a reminder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReminderSource {
    /// The agent stopped without calling its completion tool.
    #[default]
    Completion,
    /// A message waiting for the agent: a background child finished, a child's note, a
    /// parent's message.
    Message,
    /// Context a hook added (`UserPromptSubmit`, `SessionStart`), or a `Stop` hook's reason to
    /// go on.
    Hook,
}

impl ReminderSource {
    pub fn is_completion(&self) -> bool {
        *self == Self::Completion
    }
}

/// `_meta` of a tool-call event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallMeta {
    #[serde(rename = "kigi/tool")]
    pub tool: CanonicalToolMeta,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Completed,
    /// The tool ran and reported an error.
    Failed,
    /// Not run: unknown tool, not allowed, bad arguments, or needs an approval nobody can give.
    Refused,
    Cancelled,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnEndReason {
    /// The model answered without tool calls.
    Completed,
    Cancelled,
    /// `maxTurns` model requests without a final answer.
    MaxTurns,
    Error,
}

impl SessionEvent {
    /// Live-only events are not written to the session file.
    pub fn is_live_only(&self) -> bool {
        matches!(self, Self::TextDelta { .. } | Self::ThinkingDelta { .. })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn attachments_and_the_context_window_have_their_wire_names() {
        let attachments = SessionEvent::UserAttachments {
            files: vec![AttachedText {
                source: "notes.md".into(),
                text: "x".into(),
            }],
            images: vec![ImagePart {
                media_type: "image/png".into(),
                data: "AAAA".into(),
            }],
        };
        let wire = json!({"type": "user_attachments",
            "files": [{"source": "notes.md", "text": "x"}],
            "images": [{"media_type": "image/png", "data": "AAAA"}]});
        assert_eq!(serde_json::to_value(&attachments).unwrap(), wire);
        assert_eq!(
            serde_json::from_value::<SessionEvent>(wire).unwrap(),
            attachments
        );
        let usage = SessionEvent::Usage {
            input_tokens: 1,
            output_tokens: 2,
            cached_input_tokens: 0,
            context_window: Some(100),
        };
        assert_eq!(
            serde_json::to_value(&usage).unwrap(),
            json!({"type": "usage", "input_tokens": 1, "output_tokens": 2,
                   "cached_input_tokens": 0, "context_window": 100})
        );
        // Records written before the field read as an unknown window.
        let old: SessionEvent =
            serde_json::from_value(json!({"type": "usage", "input_tokens": 1, "output_tokens": 2}))
                .unwrap();
        assert!(matches!(
            old,
            SessionEvent::Usage {
                context_window: None,
                ..
            }
        ));
    }
}
