//! `kigi -p --output-format stream-json`: every host event as a JSON line, then one
//! `{"type":"result",…}` line. Only the main agent's events are the turn's; the engine's own
//! children stay in its own session files.

use kigi_protocol::{ErrorCode, HostEvent, HostEventBody, MAIN_AGENT_ID, SessionEvent, ToolStatus};
use serde_json::Value;

use super::engine_event::{EngineCall, EngineEvent, LineParser, text};

/// Reads kigi's stream-json.
#[derive(Debug, Default)]
pub struct KigiStream;

impl LineParser for KigiStream {
    fn line(&mut self, line: &str) -> Vec<EngineEvent> {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            return Vec::new();
        };
        if value.get("type").and_then(Value::as_str) == Some("result") {
            let failed = value.get("is_error").and_then(Value::as_bool) == Some(true);
            let mut events = Vec::new();
            if failed && text(&value["error"], "code") == ErrorCode::ModelRateLimited.as_str() {
                events.push(EngineEvent::RateLimited);
            }
            events.push(EngineEvent::Finished(if failed {
                Err(text(&value["error"], "message"))
            } else {
                Ok(text(&value, "result"))
            }));
            return events;
        }
        let Ok(event) = serde_json::from_value::<HostEvent>(value) else {
            return Vec::new();
        };
        if event.agent_id != MAIN_AGENT_ID {
            return Vec::new();
        }
        let HostEventBody::Session(event) = event.body else {
            return Vec::new();
        };
        match event {
            SessionEvent::SessionStart { model, .. } => vec![EngineEvent::Model(model)],
            SessionEvent::AssistantMessage {
                text, tool_calls, ..
            } => vec![EngineEvent::Assistant {
                text,
                calls: tool_calls
                    .into_iter()
                    .map(|call| EngineCall {
                        id: call.id,
                        name: call.name,
                        input: call.arguments,
                    })
                    .collect(),
            }],
            SessionEvent::ToolResult {
                call_id,
                status,
                output,
                ..
            } => vec![EngineEvent::ToolResult {
                id: call_id,
                output,
                is_error: status != ToolStatus::Completed,
            }],
            SessionEvent::Usage {
                input_tokens,
                output_tokens,
                cached_input_tokens,
                ..
            } => vec![EngineEvent::Usage {
                input_tokens,
                output_tokens,
                cached_input_tokens,
            }],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_agents_events_read_and_a_childs_are_left_out() {
        let mut parser = KigiStream;
        let lines = [
            r#"{"agentId":"main","type":"session_start","session_id":"s1","agent":"kigi","model":"kimi-k2","cwd":"/w","kigi_version":"0.1.0"}"#,
            r#"{"agentId":"main","type":"text_delta","text":"Run"}"#,
            r#"{"agentId":"main","type":"assistant_message","text":"Running.","tool_calls":[{"id":"c1","name":"run_terminal_cmd","arguments":"{\"command\":\"ls\"}"}]}"#,
            r#"{"agentId":"main","type":"tool_call","call_id":"c1","name":"run_terminal_cmd","raw_input":"{\"command\":\"ls\"}"}"#,
            r#"{"agentId":"main","type":"tool_result","call_id":"c1","name":"run_terminal_cmd","status":"failed","output":"exit 2"}"#,
            r#"{"agentId":"sub-1","parentId":"main","type":"assistant_message","text":"child says"}"#,
            r#"{"agentId":"main","type":"usage","input_tokens":10,"output_tokens":4,"cached_input_tokens":2}"#,
            r#"{"agentId":"main","type":"subagent_activity","label":"x"}"#,
            r#"{"type":"result","is_error":false,"session_id":"s1","result":"done","steps":2}"#,
        ];
        let events: Vec<EngineEvent> = lines.iter().flat_map(|l| parser.line(l)).collect();
        assert_eq!(
            events,
            vec![
                EngineEvent::Model("kimi-k2".into()),
                EngineEvent::Assistant {
                    text: "Running.".into(),
                    calls: vec![EngineCall {
                        id: "c1".into(),
                        name: "run_terminal_cmd".into(),
                        input: r#"{"command":"ls"}"#.into(),
                    }],
                },
                EngineEvent::ToolResult {
                    id: "c1".into(),
                    output: "exit 2".into(),
                    is_error: true,
                },
                EngineEvent::Usage {
                    input_tokens: 10,
                    output_tokens: 4,
                    cached_input_tokens: 2,
                },
                EngineEvent::Finished(Ok("done".into())),
            ]
        );
    }

    #[test]
    fn a_run_its_provider_throttled_says_so_by_its_code() {
        let line = r#"{"type":"result","is_error":true,"session_id":"s","error":{"code":"model.rate_limited","message":"429 slow down"}}"#;
        assert_eq!(
            KigiStream.line(line),
            vec![
                EngineEvent::RateLimited,
                EngineEvent::Finished(Err("429 slow down".into()))
            ]
        );
        // The words alone are not the signal.
        let said = r#"{"type":"result","is_error":true,"session_id":"s","error":{"code":"model.refused","message":"rate limited"}}"#;
        assert_eq!(KigiStream.line(said).len(), 1);
    }

    #[test]
    fn a_failed_run_carries_its_error() {
        let line = r#"{"type":"result","is_error":true,"session_id":"s","error":{"code":"model.refused","message":"model error: 401"}}"#;
        assert_eq!(
            KigiStream.line(line),
            vec![EngineEvent::Finished(Err("model error: 401".into()))]
        );
    }
}
