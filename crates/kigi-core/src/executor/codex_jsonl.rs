//! `codex exec --json`: one thread event a line. `item.started` / `item.completed` carry
//! items: `agent_message` (text), `reasoning`, and the tool items `command_execution`,
//! `file_change`, `mcp_tool_call` and `web_search`; `turn.completed` carries the usage and
//! `turn.failed` the error. Codex reports no model on this stream.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::engine_event::{EngineCall, EngineEvent, LineParser, count, text};

/// Reads Codex's JSONL, remembering started tool items and the last message (its final
/// answer: `turn.completed` repeats neither).
#[derive(Debug, Default)]
pub struct CodexJsonl {
    started: HashSet<String>,
    last_message: String,
    last_error: Option<String>,
}

/// Item types that are tool calls, with the engine's name for each.
const TOOL_ITEMS: [&str; 4] = [
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "web_search",
];

impl LineParser for CodexJsonl {
    fn line(&mut self, line: &str) -> Vec<EngineEvent> {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            return Vec::new();
        };
        let item = &value["item"];
        let kind = text(item, "type");
        match value.get("type").and_then(Value::as_str) {
            Some("item.started") if TOOL_ITEMS.contains(&kind.as_str()) => self.call(item),
            Some("item.completed") if TOOL_ITEMS.contains(&kind.as_str()) => {
                let mut events = self.call(item);
                events.push(tool_result(item));
                events
            }
            Some("item.completed") if kind == "agent_message" => {
                self.last_message = text(item, "text");
                vec![EngineEvent::Assistant {
                    text: self.last_message.clone(),
                    calls: Vec::new(),
                }]
            }
            Some("turn.completed") => {
                let usage = &value["usage"];
                vec![
                    EngineEvent::Usage {
                        input_tokens: count(usage, "input_tokens"),
                        output_tokens: count(usage, "output_tokens"),
                        cached_input_tokens: count(usage, "cached_input_tokens"),
                    },
                    EngineEvent::Finished(Ok(self.last_message.clone())),
                ]
            }
            Some("turn.failed") => {
                let said = text(&value["error"], "message");
                let reason = if said.is_empty() {
                    self.last_error
                        .clone()
                        .unwrap_or_else(|| "turn.failed".into())
                } else {
                    said
                };
                vec![EngineEvent::Finished(Err(reason))]
            }
            Some("error") => {
                self.last_error = Some(text(&value, "message"));
                Vec::new()
            }
            _ => Vec::new(),
        }
    }
}

impl CodexJsonl {
    /// The call of a tool item, once: at its start, or at its completion when it never
    /// reported a start.
    fn call(&mut self, item: &Value) -> Vec<EngineEvent> {
        let id = text(item, "id");
        if !self.started.insert(id.clone()) {
            return Vec::new();
        }
        let input = match text(item, "type").as_str() {
            "command_execution" => json!({"command": text(item, "command")}),
            "file_change" => json!({"changes": item.get("changes").cloned().unwrap_or_default()}),
            "mcp_tool_call" => json!({
                "server": text(item, "server"),
                "tool": text(item, "tool"),
                "arguments": item.get("arguments").cloned().unwrap_or_default(),
            }),
            _ => json!({"query": text(item, "query")}),
        };
        vec![EngineEvent::Assistant {
            text: String::new(),
            calls: vec![EngineCall {
                id,
                name: text(item, "type"),
                input: input.to_string(),
            }],
        }]
    }
}

fn tool_result(item: &Value) -> EngineEvent {
    let failed = text(item, "status") == "failed"
        || item
            .get("exit_code")
            .and_then(Value::as_i64)
            .is_some_and(|code| code != 0);
    let output = match text(item, "type").as_str() {
        "command_execution" => text(item, "aggregated_output"),
        "file_change" => item
            .get("changes")
            .and_then(Value::as_array)
            .map(|changes| {
                changes
                    .iter()
                    .map(|c| format!("{} {}", text(c, "kind"), text(c, "path")))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default(),
        "mcp_tool_call" => item
            .get("result")
            .or_else(|| item.get("error"))
            .map(Value::to_string)
            .unwrap_or_default(),
        _ => String::new(),
    };
    EngineEvent::ToolResult {
        id: text(item, "id"),
        output,
        is_error: failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Vec<EngineEvent> {
        let mut parser = CodexJsonl::default();
        lines.iter().flat_map(|l| parser.line(l)).collect()
    }

    fn call(id: &str, name: &str, input: Value) -> EngineEvent {
        EngineEvent::Assistant {
            text: String::new(),
            calls: vec![EngineCall {
                id: id.into(),
                name: name.into(),
                input: input.to_string(),
            }],
        }
    }

    #[test]
    fn a_turn_with_a_command_and_a_file_change_reads_in_order() {
        let events = read(&[
            r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}"#,
            r#"{"type":"turn.started"}"#,
            r#"{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Listing files**"}}"#,
            r#"{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a.txt\n","exit_code":0,"status":"completed"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"a.txt","kind":"update"}],"status":"completed"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Updated a.txt."}}"#,
            r#"{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}"#,
        ]);
        assert_eq!(
            events,
            vec![
                call(
                    "item_1",
                    "command_execution",
                    json!({"command": "bash -lc ls"})
                ),
                EngineEvent::ToolResult {
                    id: "item_1".into(),
                    output: "a.txt\n".into(),
                    is_error: false,
                },
                call(
                    "item_2",
                    "file_change",
                    json!({"changes": [{"path": "a.txt", "kind": "update"}]})
                ),
                EngineEvent::ToolResult {
                    id: "item_2".into(),
                    output: "update a.txt".into(),
                    is_error: false,
                },
                EngineEvent::Assistant {
                    text: "Updated a.txt.".into(),
                    calls: vec![],
                },
                EngineEvent::Usage {
                    input_tokens: 24763,
                    output_tokens: 122,
                    cached_input_tokens: 24448,
                },
                EngineEvent::Finished(Ok("Updated a.txt.".into())),
            ]
        );
    }

    #[test]
    fn a_failed_command_and_a_failed_turn_carry_their_reasons() {
        let events = read(&[
            r#"{"type":"item.completed","item":{"id":"i","type":"command_execution","command":"false","aggregated_output":"","exit_code":1,"status":"failed"}}"#,
            r#"{"type":"error","message":"stream disconnected before completion"}"#,
            r#"{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized"}}"#,
        ]);
        assert_eq!(
            events[1],
            EngineEvent::ToolResult {
                id: "i".into(),
                output: String::new(),
                is_error: true,
            }
        );
        assert_eq!(
            events[2],
            EngineEvent::Finished(Err("unexpected status 401 Unauthorized".into()))
        );
    }
}
