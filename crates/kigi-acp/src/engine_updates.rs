//! An ACP agent's `session/update` notifications, read as kigi's [`EngineEvent`]s: message
//! and thought chunks, tool calls and their updates, plans, and the prompt's stop reason.
//!
//! The rule: this is what the agent claims it did, recorded and never acted on; a tool call
//! keeps the agent's own name (its `name`, else its title) and gains nothing from it.
//! Pure: no I/O, so every translation is tested from values.

use std::collections::HashMap;

use agent_client_protocol::v1::schema::{
    ContentBlock, Plan, PlanEntryStatus, SessionUpdate, StopReason, ToolCall, ToolCallContent,
    ToolCallStatus, ToolCallUpdate,
};
use kigi_core::executor::{EngineCall, EngineEvent};

/// One call the agent reported.
#[derive(Debug, Default)]
struct OpenCall {
    /// The latest content the agent sent for it, as text.
    output: String,
    /// Its result was recorded.
    done: bool,
}

/// The state between notifications of one prompt turn.
#[derive(Debug, Default)]
pub(crate) struct EngineUpdates {
    /// Message text since the last tool call.
    text: String,
    /// Reasoning was reported and not yet attached to a message.
    thinking: bool,
    /// The text of the last message that ended in a tool call or the turn, for the answer.
    answer: String,
    calls: HashMap<String, OpenCall>,
    plans: u32,
}

impl EngineUpdates {
    /// The events one update holds; an update kigi does not record holds none.
    pub(crate) fn update(&mut self, update: SessionUpdate) -> Vec<EngineEvent> {
        match update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                self.text.push_str(&block_text(&chunk.content));
                Vec::new()
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                self.thinking = true;
                vec![EngineEvent::Thinking(block_text(&chunk.content))]
            }
            SessionUpdate::ToolCall(call) => self.tool_call(call),
            SessionUpdate::ToolCallUpdate(update) => self.tool_call_update(update),
            SessionUpdate::Plan(plan) => self.plan(&plan),
            _ => Vec::new(),
        }
    }

    /// The turn ended with `stop`: the text still open, then how it ended.
    pub(crate) fn finish(&mut self, stop: StopReason) -> Vec<EngineEvent> {
        let mut events = self.flush(Vec::new());
        let answer = std::mem::take(&mut self.answer);
        events.push(EngineEvent::Finished(match stop {
            StopReason::EndTurn => Ok(answer),
            StopReason::MaxTokens => Err("the agent ran out of tokens (max_tokens)".into()),
            StopReason::MaxTurnRequests => {
                Err("the agent reached its request limit (max_turn_requests)".into())
            }
            StopReason::Refusal => Err("the agent refused to continue (refusal)".into()),
            StopReason::Cancelled => Err("the agent cancelled the turn".into()),
            _ => Err("the agent ended with a stop reason kigi does not know".into()),
        }));
        events
    }

    /// The open text (and reasoning) as one assistant message carrying `calls`.
    fn flush(&mut self, calls: Vec<EngineCall>) -> Vec<EngineEvent> {
        if self.text.is_empty() && !self.thinking && calls.is_empty() {
            return Vec::new();
        }
        let text = std::mem::take(&mut self.text);
        if !text.trim().is_empty() {
            self.answer.clone_from(&text);
        }
        self.thinking = false;
        vec![EngineEvent::Assistant { text, calls }]
    }

    fn tool_call(&mut self, call: ToolCall) -> Vec<EngineEvent> {
        let id = call.tool_call_id.0.to_string();
        if self.calls.contains_key(&id) {
            // A repeated announcement is an update of the same call.
            let mut fields = agent_client_protocol::v1::schema::ToolCallUpdateFields::new()
                .status(call.status)
                .content(call.content);
            if let Some(output) = call.raw_output {
                fields = fields.raw_output(output);
            }
            return self.tool_call_update(ToolCallUpdate::new(call.tool_call_id, fields));
        }
        let name = call
            .name
            .filter(|name| !name.trim().is_empty())
            .unwrap_or(call.title);
        let input = call
            .raw_input
            .map_or_else(|| "{}".to_owned(), |input| input.to_string());
        let mut events = self.flush(vec![EngineCall {
            id: id.clone(),
            name,
            input,
        }]);
        let open = self.calls.entry(id.clone()).or_default();
        open.output = contents_text(&call.content)
            .or_else(|| call.raw_output.as_ref().map(ToString::to_string))
            .unwrap_or_default();
        events.extend(finished(&id, open, call.status));
        events
    }

    fn tool_call_update(&mut self, update: ToolCallUpdate) -> Vec<EngineEvent> {
        let id = update.tool_call_id.0.to_string();
        let fields = update.fields;
        let mut events = Vec::new();
        if !self.calls.contains_key(&id) {
            // An update of a call never announced: record the call first, so its result has one.
            let name = fields
                .name
                .clone()
                .or(fields.title.clone())
                .unwrap_or_else(|| "tool".to_owned());
            let input = fields
                .raw_input
                .as_ref()
                .map_or_else(|| "{}".to_owned(), ToString::to_string);
            events.extend(self.flush(vec![EngineCall {
                id: id.clone(),
                name,
                input,
            }]));
        }
        let open = self.calls.entry(id.clone()).or_default();
        if let Some(text) = fields.content.as_deref().and_then(contents_text) {
            open.output = text;
        } else if let Some(output) = &fields.raw_output
            && open.output.is_empty()
        {
            open.output = output.to_string();
        }
        if let Some(status) = fields.status {
            events.extend(finished(&id, open, status));
        }
        events
    }

    /// A plan, recorded as the agent's `update_plan` call with the plan as its result.
    fn plan(&mut self, plan: &Plan) -> Vec<EngineEvent> {
        self.plans += 1;
        let id = format!("plan-{}", self.plans);
        let entries: Vec<serde_json::Value> = plan
            .entries
            .iter()
            .map(|entry| serde_json::json!({"content": entry.content, "status": status_word(&entry.status)}))
            .collect();
        let mut events = self.flush(vec![EngineCall {
            id: id.clone(),
            name: "update_plan".to_owned(),
            input: serde_json::json!({ "entries": entries }).to_string(),
        }]);
        let output = plan
            .entries
            .iter()
            .map(|entry| format!("[{}] {}", status_word(&entry.status), entry.content))
            .collect::<Vec<_>>()
            .join("\n");
        events.push(EngineEvent::ToolResult {
            id,
            output,
            is_error: false,
        });
        events
    }
}

/// The result of a call whose status says it ended, once.
fn finished(id: &str, open: &mut OpenCall, status: ToolCallStatus) -> Option<EngineEvent> {
    let is_error = match status {
        ToolCallStatus::Completed => false,
        ToolCallStatus::Failed => true,
        _ => return None,
    };
    if open.done {
        return None;
    }
    open.done = true;
    Some(EngineEvent::ToolResult {
        id: id.to_owned(),
        output: open.output.clone(),
        is_error,
    })
}

fn status_word(status: &PlanEntryStatus) -> &'static str {
    match status {
        PlanEntryStatus::Pending => "pending",
        PlanEntryStatus::InProgress => "in_progress",
        PlanEntryStatus::Completed => "completed",
        _ => "unknown",
    }
}

/// A content block as text: its text, or a short note of what it was.
fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::ResourceLink(link) => format!("[resource {}]", link.uri),
        ContentBlock::Image(_) => "[image]".to_owned(),
        ContentBlock::Audio(_) => "[audio]".to_owned(),
        ContentBlock::Resource(_) => "[embedded resource]".to_owned(),
        _ => "[content kigi does not read]".to_owned(),
    }
}

/// A tool's content as text, `None` when it has none.
fn contents_text(content: &[ToolCallContent]) -> Option<String> {
    let parts: Vec<String> = content
        .iter()
        .map(|item| match item {
            ToolCallContent::Content(content) => block_text(&content.content),
            ToolCallContent::Diff(diff) => format!(
                "diff {}\n--- old\n{}\n+++ new\n{}",
                diff.path.display(),
                diff.old_text.as_deref().unwrap_or_default(),
                diff.new_text
            ),
            ToolCallContent::Terminal(terminal) => format!("[terminal {}]", terminal.terminal_id),
            _ => "[content kigi does not read]".to_owned(),
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn update(value: serde_json::Value) -> SessionUpdate {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn chunks_a_call_its_result_and_the_end_become_one_turn() {
        let mut reading = EngineUpdates::default();
        let mut events = Vec::new();
        for value in [
            json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "think"}}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Writing "}}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "it."}}),
            json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Write a.txt", "kind": "edit", "status": "pending", "rawInput": {"path": "a.txt"}}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "wrote 2 bytes"}}]}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Done."}}),
        ] {
            events.extend(reading.update(update(value)));
        }
        events.extend(reading.finish(StopReason::EndTurn));
        assert_eq!(
            events,
            vec![
                EngineEvent::Thinking("think".into()),
                EngineEvent::Assistant {
                    text: "Writing it.".into(),
                    calls: vec![EngineCall {
                        id: "c1".into(),
                        name: "Write a.txt".into(),
                        input: "{\"path\":\"a.txt\"}".into(),
                    }],
                },
                EngineEvent::ToolResult {
                    id: "c1".into(),
                    output: "wrote 2 bytes".into(),
                    is_error: false,
                },
                EngineEvent::Assistant {
                    text: "Done.".into(),
                    calls: vec![],
                },
                EngineEvent::Finished(Ok("Done.".into())),
            ]
        );
    }

    #[test]
    fn a_failed_call_a_plan_and_a_refusal_are_recorded_as_such() {
        let mut reading = EngineUpdates::default();
        let mut events = reading.update(update(json!({
            "sessionUpdate": "tool_call", "toolCallId": "c", "title": "Run", "name": "Bash",
            "status": "failed", "rawOutput": {"exit": 1}
        })));
        events.extend(reading.update(update(json!({
            "sessionUpdate": "plan",
            "entries": [{"content": "look", "priority": "high", "status": "in_progress"}]
        }))));
        events.extend(reading.finish(StopReason::Refusal));
        assert_eq!(
            events,
            vec![
                EngineEvent::Assistant {
                    text: String::new(),
                    calls: vec![EngineCall {
                        id: "c".into(),
                        name: "Bash".into(),
                        input: "{}".into()
                    }],
                },
                EngineEvent::ToolResult {
                    id: "c".into(),
                    output: "{\"exit\":1}".into(),
                    is_error: true,
                },
                EngineEvent::Assistant {
                    text: String::new(),
                    calls: vec![EngineCall {
                        id: "plan-1".into(),
                        name: "update_plan".into(),
                        input: "{\"entries\":[{\"content\":\"look\",\"status\":\"in_progress\"}]}"
                            .into(),
                    }],
                },
                EngineEvent::ToolResult {
                    id: "plan-1".into(),
                    output: "[in_progress] look".into(),
                    is_error: false,
                },
                EngineEvent::Finished(Err("the agent refused to continue (refusal)".into())),
            ]
        );
    }
}
