//! How a session's events are shown in print mode: text (progress on stderr, the answer on
//! stdout), JSON (one object at the end) or stream-json (every event as a JSON line).

use std::io::{IsTerminal, Write};

use crate::terminal_text::safe_for_terminal;

use kigi_core::subagent::SubagentResult;
use kigi_core::{TurnError, TurnSummary};
use kigi_protocol::{
    HostEvent, HostEventBody, HostNotice, ReminderSource, SessionEvent, ToolStatus,
};
use serde_json::json;

/// `--output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    StreamJson,
}

/// Shows one live event: every event of every agent as a JSON line in stream-json; in text
/// mode the main agent's progress, and one line when a child starts or ends.
pub fn show_event(format: OutputFormat, event: &HostEvent) {
    match format {
        OutputFormat::StreamJson => {
            if let Ok(line) = serde_json::to_string(event) {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            }
        }
        OutputFormat::Text => {
            let line = match &event.body {
                HostEventBody::Session(session) if event.is_main() => progress_line(session),
                HostEventBody::Session(_) => None,
                HostEventBody::Notice(notice) => notice_line(&event.agent_id, notice),
            };
            if let Some(line) = line {
                eprintln!("{}", safe_for_terminal(&line));
            }
        }
        OutputFormat::Json => {}
    }
}

/// The stderr line for an event in text mode, if it gets one.
fn progress_line(event: &SessionEvent) -> Option<String> {
    match event {
        SessionEvent::ToolCall {
            name,
            meta,
            raw_input,
            ..
        } => {
            let detail = meta
                .as_ref()
                .and_then(|m| m.tool.input.as_ref())
                .and_then(|input| input.as_object())
                .map(|input| {
                    input
                        .values()
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_else(|| raw_input.chars().take(80).collect());
            Some(format!("→ {name} {detail}").trim_end().to_owned())
        }
        SessionEvent::ToolResult {
            status: ToolStatus::Completed,
            output,
            ..
        } => {
            let lines = output.lines().count();
            let mut shown: Vec<String> = output
                .lines()
                .take(3)
                .map(|l| format!("    {}", l.chars().take(100).collect::<String>()))
                .collect();
            if lines > 3 {
                shown.push(format!("    … ({lines} lines)"));
            }
            Some(shown.join("\n")).filter(|s| !s.is_empty())
        }
        SessionEvent::ToolResult {
            name,
            status,
            output,
            ..
        } if *status != ToolStatus::Completed => {
            let first = output.lines().next().unwrap_or("");
            Some(format!("  ✗ {name} {}: {first}", status_word(*status)))
        }
        SessionEvent::Retrying {
            attempt,
            delay_ms,
            reason,
        } => Some(format!("  ↻ retry {attempt} in {delay_ms} ms: {reason}")),
        SessionEvent::Reminder {
            source: ReminderSource::Completion,
            ..
        } => Some("  ↺ completion reminder sent".to_owned()),
        SessionEvent::Reminder { text, .. } => {
            let first = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with("<system-reminder"))
                .unwrap_or("");
            Some(format!("  ↺ message for the agent: {}", cut(first, 100)))
        }
        _ => None,
    }
}

/// The stderr line for a host notice in text mode, if it gets one.
fn notice_line(agent: &str, notice: &HostNotice) -> Option<String> {
    match notice {
        HostNotice::SubagentStarted {
            description,
            agent_type,
            model,
            background,
            ..
        } => Some(format!(
            "  ⤷ {agent} {}: \"{description}\" ({agent_type} · {model})",
            if *background { "started" } else { "running" }
        )),
        HostNotice::SubagentFinished {
            status, elapsed_ms, ..
        } => Some(format!(
            "  ⤶ {agent} {status} in {:.1}s",
            *elapsed_ms as f64 / 1000.0
        )),
        _ => None,
    }
}

/// At most `max` characters of `text`, cut on a character boundary, with an ellipsis.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn status_word(status: ToolStatus) -> &'static str {
    match status {
        ToolStatus::Completed => "completed",
        ToolStatus::Failed => "failed",
        ToolStatus::Refused => "refused",
        ToolStatus::Cancelled => "cancelled",
    }
}

/// Prints the end of a run and returns its exit code: 0, 1 for a failure, 130 for Ctrl-C.
/// `background` are the outcomes of the background children the run waited for (or
/// cancelled).
pub fn finish(
    format: OutputFormat,
    session_id: &str,
    outcome: &Result<TurnSummary, TurnError>,
    background: &[SubagentResult],
) -> u8 {
    let code = match outcome {
        Ok(_) => 0,
        Err(TurnError::Cancelled) => 130,
        Err(_) => 1,
    };
    let children: Vec<serde_json::Value> = background
        .iter()
        .map(|child| {
            json!({
                "id": child.id, "subagent_type": child.agent_type,
                "description": child.description, "status": child.status.as_str(),
                "result": child.message, "error": child.error,
                "duration_ms": u64::try_from(child.duration.as_millis()).unwrap_or(u64::MAX),
                "tokens": child.usage.input_tokens + child.usage.output_tokens,
            })
        })
        .collect();
    let mut result = match outcome {
        Ok(summary) => json!({
            "type": "result", "is_error": false, "session_id": session_id,
            "result": summary.text, "steps": summary.steps, "tool_calls": summary.tool_calls,
            "usage": {"input_tokens": summary.usage.input_tokens, "output_tokens": summary.usage.output_tokens,
                      "cached_input_tokens": summary.usage.cached_input_tokens},
        }),
        Err(error) => json!({
            "type": "result", "is_error": true, "session_id": session_id,
            "error": {"code": error.code(), "message": error.to_string()},
        }),
    };
    if !children.is_empty() {
        result["subagents"] = serde_json::Value::Array(children);
    }
    if format == OutputFormat::Text {
        for child in background {
            let said = child
                .error
                .as_deref()
                .unwrap_or(&child.message)
                .lines()
                .next()
                .unwrap_or("");
            eprintln!(
                "kigi: background {} ({}) {} in {:.1}s: {said}",
                child.id,
                child.agent_type,
                child.status.as_str(),
                child.duration.as_secs_f64()
            );
        }
    }
    match (format, outcome) {
        (OutputFormat::Text, Ok(summary)) if std::io::stdout().is_terminal() => {
            println!("{}", safe_for_terminal(&summary.text));
        }
        (OutputFormat::Text, Ok(summary)) => println!("{}", summary.text),
        (OutputFormat::Text, Err(_)) => {}
        (OutputFormat::Json | OutputFormat::StreamJson, _) => println!("{result}"),
    }
    if let Err(error) = outcome {
        eprintln!("kigi: {error} (session {session_id})");
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_completion_reminder_is_called_one() {
        let completion = SessionEvent::Reminder {
            text: "<system-reminder>\nRecord your todos.\n</system-reminder>".into(),
            source: ReminderSource::Completion,
        };
        assert_eq!(
            progress_line(&completion).as_deref(),
            Some("  ↺ completion reminder sent")
        );
        let note = SessionEvent::Reminder {
            text: "<system-reminder>\nsub-2 says: the tests pass\n</system-reminder>".into(),
            source: ReminderSource::Message,
        };
        assert_eq!(
            progress_line(&note).as_deref(),
            Some("  ↺ message for the agent: sub-2 says: the tests pass")
        );
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        assert_eq!(cut("ééééé", 3), "ééé…");
        assert_eq!(cut("abc", 3), "abc");
    }
}
