//! `claude -p --output-format stream-json --verbose`: one JSON object a line. `system`
//! (subtype `init`) names the model; `assistant` holds one message's text and `tool_use`
//! blocks; `user` holds the `tool_result` blocks; `result` ends the run with the final text
//! (or an error subtype) and the run's total usage.

use serde_json::Value;

use super::engine_event::{EngineCall, EngineEvent, LineParser, count, text};

/// Reads Claude Code's stream-json.
#[derive(Debug, Default)]
pub struct ClaudeStream;

impl LineParser for ClaudeStream {
    fn line(&mut self, line: &str) -> Vec<EngineEvent> {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            return Vec::new();
        };
        match value.get("type").and_then(Value::as_str) {
            Some("system") if value.get("subtype").and_then(Value::as_str) == Some("init") => {
                let model = text(&value, "model");
                if model.is_empty() {
                    Vec::new()
                } else {
                    vec![EngineEvent::Model(model)]
                }
            }
            Some("assistant") => assistant(&value["message"]).into_iter().collect(),
            Some("user") => tool_results(&value["message"]),
            Some("result") => result(&value),
            _ => Vec::new(),
        }
    }
}

fn assistant(message: &Value) -> Option<EngineEvent> {
    let mut said = Vec::new();
    let mut calls = Vec::new();
    for block in message.get("content")?.as_array()? {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => said.push(text(block, "text")),
            Some("tool_use") => calls.push(EngineCall {
                id: text(block, "id"),
                name: text(block, "name"),
                input: block.get("input").map(Value::to_string).unwrap_or_default(),
            }),
            _ => {}
        }
    }
    let text = said.join("");
    (!text.is_empty() || !calls.is_empty()).then_some(EngineEvent::Assistant { text, calls })
}

fn tool_results(message: &Value) -> Vec<EngineEvent> {
    let Some(blocks) = message.get("content").and_then(Value::as_array) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|block| EngineEvent::ToolResult {
            id: text(block, "tool_use_id"),
            output: match block.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts
                    .iter()
                    .map(|p| text(p, "text"))
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            },
            is_error: block.get("is_error").and_then(Value::as_bool) == Some(true),
        })
        .collect()
}

fn result(value: &Value) -> Vec<EngineEvent> {
    let usage = &value["usage"];
    let cached = count(usage, "cache_read_input_tokens");
    let mut events = vec![EngineEvent::Usage {
        // Claude counts cache reads and writes apart from `input_tokens`.
        input_tokens: count(usage, "input_tokens")
            + cached
            + count(usage, "cache_creation_input_tokens"),
        output_tokens: count(usage, "output_tokens"),
        cached_input_tokens: cached,
    }];
    let failed = value.get("is_error").and_then(Value::as_bool) == Some(true)
        || text(value, "subtype").starts_with("error");
    events.push(EngineEvent::Finished(if failed {
        let said = text(value, "result");
        Err(if said.is_empty() {
            text(value, "subtype")
        } else {
            said
        })
    } else {
        Ok(text(value, "result"))
    }));
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Vec<EngineEvent> {
        let mut parser = ClaudeStream;
        lines.iter().flat_map(|l| parser.line(l)).collect()
    }

    #[test]
    fn a_run_with_a_bash_call_reads_as_model_message_result_and_answer() {
        let events = read(&[
            r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"5f1e","tools":["Bash","Read"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"ANTHROPIC_API_KEY"}"#,
            r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Listing."},{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls","description":"List files"}}],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"5f1e"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"a.txt\nb.txt","is_error":false}]},"parent_tool_use_id":null,"session_id":"5f1e"}"#,
            r#"{"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"Two files."}]},"session_id":"5f1e"}"#,
            r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":900,"num_turns":2,"result":"Two files.","session_id":"5f1e","total_cost_usd":0.01,"usage":{"input_tokens":20,"cache_creation_input_tokens":3,"cache_read_input_tokens":7,"output_tokens":9}}"#,
        ]);
        assert_eq!(
            events,
            vec![
                EngineEvent::Model("claude-sonnet-4-5".into()),
                EngineEvent::Assistant {
                    text: "Listing.".into(),
                    calls: vec![EngineCall {
                        id: "toolu_01".into(),
                        name: "Bash".into(),
                        input: r#"{"command":"ls","description":"List files"}"#.into(),
                    }],
                },
                EngineEvent::ToolResult {
                    id: "toolu_01".into(),
                    output: "a.txt\nb.txt".into(),
                    is_error: false,
                },
                EngineEvent::Assistant {
                    text: "Two files.".into(),
                    calls: vec![],
                },
                EngineEvent::Usage {
                    input_tokens: 30,
                    output_tokens: 9,
                    cached_input_tokens: 7,
                },
                EngineEvent::Finished(Ok("Two files.".into())),
            ]
        );
    }

    #[test]
    fn block_results_errors_and_noise_read_as_they_mean() {
        let events = read(&[
            "not json",
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"denied"}],"is_error":true}]}}"#,
            r#"{"type":"stream_event","event":{}}"#,
            r#"{"type":"result","subtype":"error_max_turns","is_error":true,"usage":{}}"#,
        ]);
        assert_eq!(
            events,
            vec![
                EngineEvent::ToolResult {
                    id: "t".into(),
                    output: "denied".into(),
                    is_error: true,
                },
                EngineEvent::Usage {
                    input_tokens: 0,
                    output_tokens: 0,
                    cached_input_tokens: 0,
                },
                EngineEvent::Finished(Err("error_max_turns".into())),
            ]
        );
    }
}
