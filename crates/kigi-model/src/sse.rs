//! Server-Sent Events, parsed incrementally as the WHATWG spec describes: lines end in LF, CR
//! or CRLF; `field: value` lines (one leading space dropped); `:` lines are comments; a blank
//! line dispatches the event if it carried data. Bytes are buffered until a line is complete,
//! so a chunk boundary inside a line, a CRLF pair or a multi-byte character changes nothing.
//!
//! The rule: the events out depend only on the bytes in, never on how they were split.

/// One dispatched event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// `event:`; `None` means the default type, `message`.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
    /// The last `id:` seen on the stream, if any.
    pub id: Option<String>,
    /// `retry:` in milliseconds, if this event set it.
    pub retry: Option<u64>,
}

/// Incremental parser: feed it bytes with [`SseParser::push`] as they arrive.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    /// The previous chunk ended in CR: an LF at the start of the next one ends no new line.
    after_cr: bool,
    started: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    last_id: Option<String>,
    retry: Option<u64>,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Consumes `bytes`, returning every event they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in bytes {
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\n' => self.end_line(&mut events),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                _ => self.line.push(byte),
            }
        }
        events
    }

    /// Ends the stream. Per the spec an event not closed by a blank line is dropped; this
    /// returns true when such a partial event (or line) was left, so a caller can tell a
    /// stream that stopped mid-event from one that ended cleanly.
    pub fn finish(&mut self) -> bool {
        let partial = !self.line.is_empty() || self.has_data || self.event.is_some();
        self.line.clear();
        self.reset_event();
        partial
    }

    fn reset_event(&mut self) {
        self.event = None;
        self.data.clear();
        self.has_data = false;
        self.retry = None;
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let raw = std::mem::take(&mut self.line);
        let mut line = String::from_utf8_lossy(&raw).into_owned();
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_owned();
            }
        }
        if line.is_empty() {
            if self.has_data {
                events.push(SseEvent {
                    event: self.event.take(),
                    data: std::mem::take(&mut self.data),
                    id: self.last_id.clone(),
                    retry: self.retry.take(),
                });
            }
            self.reset_event();
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            "retry" => {
                if let Ok(ms) = value.parse() {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<SseEvent> {
        SseParser::new().push(text.as_bytes())
    }

    #[test]
    fn parses_openai_style_data_events() {
        let events = parse("data: {\"a\":1}\n\ndata: [DONE]\n\n");
        let data: Vec<_> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, vec!["{\"a\":1}", "[DONE]"]);
    }

    #[test]
    fn parses_anthropic_style_named_events() {
        let events = parse("event: message_start\ndata: {}\n\nevent: ping\ndata: {}\n\n");
        assert_eq!(events[0].event.as_deref(), Some("message_start"));
        assert_eq!(events[1].event.as_deref(), Some("ping"));
    }

    #[test]
    fn joins_multi_line_data_and_skips_comments() {
        let events = parse(": keep-alive\ndata: one\ndata:two\n\n");
        assert_eq!(
            events,
            vec![SseEvent {
                data: "one\ntwo".into(),
                ..SseEvent::default()
            }]
        );
    }

    #[test]
    fn accepts_cr_and_crlf_line_ends_and_a_leading_bom() {
        let events = parse("\u{feff}data: a\r\n\r\ndata: b\r\rid: 7\ndata: c\n\n");
        let data: Vec<_> = events
            .iter()
            .map(|e| (e.data.as_str(), e.id.as_deref()))
            .collect();
        assert_eq!(data, vec![("a", None), ("b", None), ("c", Some("7"))]);
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        assert!(parse("event: ping\n\n").is_empty());
    }

    #[test]
    fn finish_reports_a_stream_cut_mid_event() {
        let mut parser = SseParser::new();
        assert_eq!(
            parser.push(b"data: complete\n\ndata: cut"),
            vec![SseEvent {
                data: "complete".into(),
                ..SseEvent::default()
            }]
        );
        assert!(parser.finish());
        let mut clean = SseParser::new();
        clean.push(b"data: x\n\n");
        assert!(!clean.finish());
    }

    #[test]
    fn a_multi_byte_character_split_across_chunks_survives() {
        let text = "data: héllo\n\n".as_bytes();
        let mut parser = SseParser::new();
        let mut events = parser.push(&text[..7]);
        events.extend(parser.push(&text[7..]));
        assert_eq!(events[0].data, "héllo");
    }
}
