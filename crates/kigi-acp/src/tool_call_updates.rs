//! One tool call as an editor sees it: the `tool_call` update when it starts (kind, title,
//! locations, input, the `kigi/tool` envelope) and the `tool_call_update` when it ends
//! (status, a diff for an edit, the editor's terminal it ran in, its output, and a plan for a
//! `todo_write`).
//!
//! The rule: pure functions of the call's record and its end; the translator keeps the
//! records between the two.

use std::path::Path;

use agent_client_protocol::v1::schema::{
    ContentBlock, Diff, Meta, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, SessionUpdate,
    Terminal, TextContent, ToolCall, ToolCallContent, ToolCallId, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields,
};
use kigi_protocol::{CanonicalToolMeta, TOOL_META_KEY, ToolCallMeta, ToolKind, ToolStatus};
use serde_json::{Value, json};

use crate::tool_call_view::{acp_kind, locations, tool_title};

/// The `_meta` key telling how a failed call ended in kigi's terms (`refused`, `cancelled`).
pub const TOOL_STATUS_META_KEY: &str = "kigi/toolStatus";
/// How much of a tool's output an editor is sent.
const SHOWN_OUTPUT_CHARS: usize = kigi_tools::MODEL_OUTPUT_CHARS;

/// What an earlier `tool_call` event said about a call.
#[derive(Debug, Clone)]
pub(crate) struct CallRecord {
    pub kind: ToolKind,
    pub input: Value,
    pub title: String,
}

impl CallRecord {
    /// What a `tool_call` event says about its call.
    pub fn of(name: &str, raw_input: &str, meta: Option<&ToolCallMeta>) -> Self {
        // Arguments that are not JSON are shown as the text the model wrote.
        let input =
            serde_json::from_str(raw_input).unwrap_or_else(|_| Value::String(raw_input.to_owned()));
        let tool = meta.map(|m| &m.tool);
        Self {
            kind: tool.map_or(ToolKind::Other, |t| t.kind),
            title: tool_title(name, tool, &input),
            input,
        }
    }
}

/// How a call ended.
pub(crate) struct CallEnd<'a> {
    pub call_id: &'a str,
    pub status: ToolStatus,
    pub output: &'a str,
    /// The editor's terminal it ran in, if it ran in one.
    pub terminal: Option<String>,
}

/// The `tool_call` update that announces call `call_id` (paths shown below `cwd`).
pub(crate) fn tool_call(
    call_id: &str,
    record: &CallRecord,
    meta: Option<&ToolCallMeta>,
    cwd: &Path,
) -> SessionUpdate {
    let mut call = ToolCall::new(ToolCallId::new(call_id), record.title.clone())
        .kind(acp_kind(record.kind))
        .status(ToolCallStatus::Pending)
        .locations(locations(&record.input, cwd))
        .raw_input(record.input.clone());
    if let Some(meta) = meta {
        call = call.meta(tool_meta(&meta.tool));
    }
    SessionUpdate::ToolCall(call)
}

/// The updates a call's end sends: its `tool_call_update`, then its plan for a `todo_write`.
pub(crate) fn tool_result(
    ended: &CallEnd<'_>,
    record: Option<&CallRecord>,
    cwd: &Path,
) -> Vec<SessionUpdate> {
    let completed = ended.status == ToolStatus::Completed;
    let mut content = Vec::new();
    if completed && let Some(diff) = record.and_then(|r| diff(r, ended.output, cwd)) {
        content.push(ToolCallContent::Diff(diff));
    }
    if let Some(terminal) = &ended.terminal {
        content.push(ToolCallContent::Terminal(Terminal::new(terminal.clone())));
    }
    if !ended.output.is_empty() {
        let shown = kigi_tools::clamp_head_tail(ended.output, SHOWN_OUTPUT_CHARS);
        // A command's output reads as a terminal's: monospace, as printed.
        let shown = match record.map(|r| r.kind) {
            Some(ToolKind::Execute) => format!("```console\n{}\n```", shown.trim_end()),
            _ => shown,
        };
        content.push(ToolCallContent::from(ContentBlock::Text(TextContent::new(
            shown,
        ))));
    }
    let fields = ToolCallUpdateFields::new()
        .status(if completed {
            ToolCallStatus::Completed
        } else {
            ToolCallStatus::Failed
        })
        .content(content);
    let mut update = ToolCallUpdate::new(ToolCallId::new(ended.call_id), fields);
    if !completed {
        let mut meta = Meta::new();
        meta.insert(TOOL_STATUS_META_KEY.into(), json!(ended.status));
        update = update.meta(meta);
    }
    let mut updates = vec![SessionUpdate::ToolCallUpdate(update)];
    if completed
        && let Some(record) = record
        && record.kind == ToolKind::Plan
        && let Some(plan) = plan_of(&record.input)
    {
        updates.push(SessionUpdate::Plan(plan));
    }
    updates
}

/// The change an edit made, where the call itself says it: a new file's text, or the
/// replaced fragment.
fn diff(record: &CallRecord, output: &str, cwd: &Path) -> Option<Diff> {
    let text = |key: &str| record.input.get(key).and_then(Value::as_str);
    let path = cwd.join(text("path")?);
    match record.kind {
        ToolKind::Write if output.starts_with("created ") => {
            Some(Diff::new(path, text("content")?))
        }
        ToolKind::Edit => {
            Some(Diff::new(path, text("new_string")?).old_text(text("old_string")?.to_owned()))
        }
        _ => None,
    }
}

/// `_meta` carrying the `kigi/tool` envelope.
fn tool_meta(tool: &CanonicalToolMeta) -> Meta {
    let mut meta = Meta::new();
    meta.insert(
        TOOL_META_KEY.into(),
        serde_json::to_value(tool).unwrap_or(Value::Null),
    );
    meta
}

/// The plan a `todo_write` call set.
fn plan_of(input: &Value) -> Option<Plan> {
    let todos = input.get("todos")?.as_array()?;
    let entries = todos
        .iter()
        .filter_map(|todo| {
            let status = match todo.get("status")?.as_str()? {
                "pending" => PlanEntryStatus::Pending,
                "in_progress" => PlanEntryStatus::InProgress,
                "completed" => PlanEntryStatus::Completed,
                _ => return None,
            };
            let content = todo.get("content")?.as_str()?;
            Some(PlanEntry::new(content, PlanEntryPriority::Medium, status))
        })
        .collect();
    Some(Plan::new(entries))
}
