//! The page's console as the model reads it: `console.*` calls, uncaught exceptions and the
//! browser's own log entries (failed requests, blocked content), one line each, kept since the
//! last read. Turning an event into a line is pure.
//!
//! The rule: the log is bounded ([`KEPT`] lines of at most [`LINE_CHARS`] characters); when it
//! overflows, the oldest lines go and the read says how many.

use std::collections::VecDeque;

use serde_json::Value;

use crate::cdp_connection::CdpEvent;

/// Lines kept between reads.
pub const KEPT: usize = 200;
/// Characters of one line kept.
pub const LINE_CHARS: usize = 2_000;

/// Lines since the last read.
#[derive(Debug, Default)]
pub struct ConsoleLog {
    lines: VecDeque<String>,
    dropped: usize,
}

impl ConsoleLog {
    pub fn push(&mut self, line: String) {
        if self.lines.len() == KEPT {
            self.lines.pop_front();
            self.dropped += 1;
        }
        self.lines.push_back(clip(line));
    }

    /// Everything since the last read, and how many older lines were dropped; empties it.
    pub fn take(&mut self) -> (Vec<String>, usize) {
        let dropped = std::mem::take(&mut self.dropped);
        (self.lines.drain(..).collect(), dropped)
    }
}

fn clip(line: String) -> String {
    match line.char_indices().nth(LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// The console line an event makes, if it is a console event.
pub fn console_line(event: &CdpEvent) -> Option<String> {
    let params = &event.params;
    match event.method.as_str() {
        "Runtime.consoleAPICalled" => {
            let level = params["type"].as_str().unwrap_or("log");
            let args: Vec<String> = params["args"]
                .as_array()
                .map(|args| args.iter().map(remote_object_text).collect())
                .unwrap_or_default();
            Some(format!("{level}: {}", args.join(" ")))
        }
        "Runtime.exceptionThrown" => {
            let details = &params["exceptionDetails"];
            let text = details["exception"]["description"]
                .as_str()
                .or_else(|| details["text"].as_str())
                .unwrap_or("uncaught exception");
            Some(format!("uncaught: {text}"))
        }
        "Log.entryAdded" => {
            let entry = &params["entry"];
            let level = entry["level"].as_str().unwrap_or("info");
            let text = entry["text"].as_str().unwrap_or_default();
            Some(match entry["url"].as_str().filter(|u| !u.is_empty()) {
                Some(url) => format!("{level}: {text} ({url})"),
                None => format!("{level}: {text}"),
            })
        }
        _ => None,
    }
}

/// A logged value as `console.log` would show it, roughly.
fn remote_object_text(object: &Value) -> String {
    match &object["value"] {
        Value::String(s) => s.clone(),
        Value::Null | Value::Object(_) | Value::Array(_) => object["description"]
            .as_str()
            .or_else(|| object["unserializableValue"].as_str())
            .or_else(|| object["type"].as_str())
            .unwrap_or_default()
            .to_owned(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(method: &str, params: Value) -> CdpEvent {
        CdpEvent {
            method: method.into(),
            params,
            session_id: None,
        }
    }

    #[test]
    fn console_calls_exceptions_and_log_entries_become_lines() {
        let call = event(
            "Runtime.consoleAPICalled",
            json!({"type": "warn", "args": [{"type": "string", "value": "low"}, {"type": "number", "value": 3}, {"type": "object", "description": "Object"}]}),
        );
        assert_eq!(console_line(&call).unwrap(), "warn: low 3 Object");
        let thrown = event(
            "Runtime.exceptionThrown",
            json!({"exceptionDetails": {"text": "Uncaught", "exception": {"description": "TypeError: x is undefined"}}}),
        );
        assert_eq!(
            console_line(&thrown).unwrap(),
            "uncaught: TypeError: x is undefined"
        );
        let entry = event(
            "Log.entryAdded",
            json!({"entry": {"level": "error", "text": "Failed to load resource: 404", "url": "http://x/a.png"}}),
        );
        assert_eq!(
            console_line(&entry).unwrap(),
            "error: Failed to load resource: 404 (http://x/a.png)"
        );
        assert_eq!(console_line(&event("Page.loadEventFired", json!({}))), None);
    }

    #[test]
    fn the_log_keeps_the_newest_lines_and_counts_the_dropped() {
        let mut log = ConsoleLog::default();
        for n in 0..KEPT + 3 {
            log.push(format!("log: {n}"));
        }
        let (lines, dropped) = log.take();
        assert_eq!(dropped, 3);
        assert_eq!(lines.len(), KEPT);
        assert_eq!(lines[0], "log: 3");
        assert_eq!(log.take(), (Vec::new(), 0));
        log.push("x".repeat(LINE_CHARS + 10));
        assert_eq!(log.take().0[0].chars().count(), LINE_CHARS + 1);
    }
}
