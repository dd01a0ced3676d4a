//! A child's activity in a few words, from its own events: what a parent's view shows next to
//! a running child (`Thinking`, `Running: cargo test`, `Retrying (2)`).

use kigi_protocol::SessionEvent;
use serde_json::Value;

/// The longest label, in characters.
const MAX_LABEL: usize = 60;

/// The label an event starts, if it starts one.
pub fn activity_label(event: &SessionEvent) -> Option<String> {
    match event {
        SessionEvent::TextDelta { .. }
        | SessionEvent::ThinkingDelta { .. }
        | SessionEvent::ToolResult { .. } => Some("Thinking".to_owned()),
        SessionEvent::ToolCall { name, meta, .. } => {
            let input = meta.as_ref().and_then(|m| m.tool.input.as_ref());
            let detail = input
                .and_then(|i| i.get("command").or_else(|| i.as_object()?.values().next()))
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
            let text = match detail {
                Some(detail) if input.and_then(|i| i.get("command")).is_some() => detail,
                Some(detail) => format!("{name} {detail}"),
                None => name.clone(),
            };
            Some(format!(
                "Running: {}",
                shorten(text.lines().next().unwrap_or(""))
            ))
        }
        SessionEvent::Retrying { attempt, .. } => Some(format!("Retrying ({attempt})")),
        SessionEvent::CompactionStarted { .. } => Some("Compacting".to_owned()),
        _ => None,
    }
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_LABEL {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(MAX_LABEL - 1).collect();
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use kigi_protocol::{CanonicalToolMeta, ToolCallMeta, ToolKind, ToolNamespace};
    use serde_json::json;

    use super::*;

    fn call(name: &str, input: Value) -> SessionEvent {
        SessionEvent::ToolCall {
            call_id: "c".into(),
            name: name.into(),
            raw_input: input.to_string(),
            meta: Some(ToolCallMeta {
                tool: CanonicalToolMeta {
                    version: 1,
                    name: name.into(),
                    kind: ToolKind::Execute,
                    namespace: ToolNamespace::Kigi,
                    label: "Bash".into(),
                    read_only: false,
                    input: Some(input),
                    server: None,
                },
            }),
        }
    }

    #[test]
    fn labels_name_the_command_or_the_tool_and_its_target() {
        assert_eq!(
            activity_label(&call(
                "run_terminal_cmd",
                json!({"command": "cargo test\nmore"})
            )),
            Some("Running: cargo test".into())
        );
        assert_eq!(
            activity_label(&call("read_file", json!({"path": "src/lib.rs"}))),
            Some("Running: read_file src/lib.rs".into())
        );
        let long = "x".repeat(100);
        let label = activity_label(&call("run_terminal_cmd", json!({"command": long}))).unwrap();
        assert_eq!(label.chars().count(), "Running: ".len() + MAX_LABEL);
        assert_eq!(
            activity_label(&SessionEvent::Retrying {
                attempt: 2,
                delay_ms: 10,
                reason: "503".into()
            }),
            Some("Retrying (2)".into())
        );
        assert_eq!(
            activity_label(&SessionEvent::UserMessage { text: "x".into() }),
            None
        );
    }
}
