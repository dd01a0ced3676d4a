//! The seam between the SSE bytes and a provider's event vocabulary: each provider has a
//! decoder that turns one SSE event at a time into [`ModelEvent`]s and knows when its wire
//! says the answer is complete.

use crate::error::ErrorClass;
use crate::event::ModelEvent;
use crate::sse::SseEvent;

/// Something wrong inside the stream, before the URL is attached to it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DecodeFault {
    /// A chunk that is not valid for this wire.
    Malformed(String),
    /// The provider sent an error event.
    Provider {
        code: Option<String>,
        message: String,
        class: ErrorClass,
    },
}

impl DecodeFault {
    /// A provider's error event, classified by its code.
    pub fn provider(code: Option<String>, message: String) -> Self {
        let class = crate::error::classify_stream_error(code.as_deref());
        Self::Provider {
            code,
            message,
            class,
        }
    }
}

/// One provider's streaming decoder.
pub(crate) trait StreamDecoder: Send + Sync {
    /// Decodes one SSE event.
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), DecodeFault>;
    /// True once the wire's completion event has been seen.
    fn is_complete(&self) -> bool;
    /// The body ended cleanly. Flushes what is pending and says whether the answer is whole;
    /// by default, whole only if the completion event came.
    fn end_of_body(&mut self, _out: &mut Vec<ModelEvent>) -> bool {
        self.is_complete()
    }
}

/// Parses an event's data as JSON, or says which event was not JSON.
pub(crate) fn parse_json(event: &SseEvent) -> Result<serde_json::Value, DecodeFault> {
    serde_json::from_str(&event.data).map_err(|e| {
        let shown: String = event.data.chars().take(120).collect();
        DecodeFault::Malformed(format!("event data is not JSON ({e}): {shown}"))
    })
}

/// Reads `{"error": {"message", "code" | "type"}}`, the error shape every provider shares.
pub(crate) fn error_object(value: &serde_json::Value) -> Option<(Option<String>, String)> {
    let error = value.get("error")?;
    if error.is_null() {
        return None;
    }
    let message = error
        .get("message")
        .and_then(|m| m.as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| error.to_string());
    let code = ["code", "type"]
        .iter()
        .find_map(|key| error.get(*key).and_then(|c| c.as_str()))
        .map(str::to_owned);
    Some((code, message))
}

/// A number field as `u64`, zero when absent.
pub(crate) fn count(value: &serde_json::Value, pointer: &str) -> u64 {
    value
        .pointer(pointer)
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0)
}
