//! How a session's events are shown in print mode: text (progress on stderr, the answer on
//! stdout), JSON (one object at the end) or stream-json (every event as a JSON line).

use std::io::IsTerminal;

use kigi_core::subagent::SubagentResult;
use kigi_core::{TurnError, TurnSummary};
use kigi_protocol::ErrorCode;
use kigi_protocol::{HostEvent, HostEventBody, SessionEvent};
use serde_json::json;

use super::text_progress::TextProgress;
use crate::terminal_text::safe_for_terminal;

/// `--output-format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    #[default]
    Text,
    Json,
    StreamJson,
}

/// Shows the live events of a run in its output format, and remembers what the final result
/// names (the model).
#[derive(Debug)]
pub struct EventView {
    format: OutputFormat,
    text: TextProgress,
    model: Option<String>,
}

impl EventView {
    pub fn new(format: OutputFormat) -> Self {
        Self {
            format,
            text: TextProgress::new(std::io::stderr().is_terminal()),
            model: None,
        }
    }

    /// Shows one live event: every event of every agent as a JSON line in stream-json; in
    /// text mode the main agent's progress, and one line when a child starts or ends.
    pub fn show(&mut self, event: &HostEvent) {
        if let HostEventBody::Session(SessionEvent::SessionStart { model, .. }) = &event.body
            && event.is_main()
        {
            self.model = Some(model.clone());
        }
        // A server kigi could not start is said once on stderr, whatever the format (stream-json
        // also carries the event itself).
        if let HostEventBody::Session(SessionEvent::Error {
            code: ErrorCode::McpServerUnavailable,
            message,
        }) = &event.body
        {
            errln!("kigi: {}", crate::terminal_text::safe_for_terminal(message));
        }
        match self.format {
            OutputFormat::StreamJson => show_json_line(event),
            OutputFormat::Text => self.text.show(event),
            OutputFormat::Json => {}
        }
    }

    /// Whether [`EventView::tick`] draws anything (text mode with stderr a terminal).
    pub fn is_live(&self) -> bool {
        self.format == OutputFormat::Text && self.text.is_live()
    }

    /// Redraws the status line.
    pub fn tick(&mut self) {
        if self.format == OutputFormat::Text {
            self.text.tick();
        }
    }

    /// Ends the live display (calls left without a result, the status line).
    pub fn finish(&mut self) {
        if self.format == OutputFormat::Text {
            self.text.finish();
        }
    }

    /// The main agent's model, as its session started.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }
}

/// One event as a JSON line on stdout (stream-json).
pub fn show_json_line(event: &HostEvent) {
    if let Ok(line) = serde_json::to_string(event) {
        outln!("{line}");
    }
}

/// What the result of a run names besides its outcome.
#[derive(Debug, Clone, Default)]
pub struct RunFacts {
    /// The main agent's model.
    pub model: Option<String>,
    /// From the start of the run to its result.
    pub duration_ms: u64,
}

/// Prints the end of a run and returns its exit code: 0, 1 for a failure, 130 for Ctrl-C.
/// `background` are the outcomes of the background children the run waited for (or
/// cancelled).
pub fn finish(
    format: OutputFormat,
    session_id: &str,
    outcome: &Result<TurnSummary, TurnError>,
    background: &[SubagentResult],
    facts: &RunFacts,
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
    result["model"] = json!(facts.model);
    result["duration_ms"] = json!(facts.duration_ms);
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
            errln!(
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
            outln!("{}", safe_for_terminal(&summary.text));
        }
        (OutputFormat::Text, Ok(summary)) => outln!("{}", summary.text),
        (OutputFormat::Text, Err(_)) => {}
        (OutputFormat::Json | OutputFormat::StreamJson, _) => outln!("{result}"),
    }
    if let Err(error) = outcome {
        errln!("kigi: {error} (session {session_id})");
    }
    code
}
