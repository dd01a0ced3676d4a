//! Messages SSE events → [`ModelEvent`]s.

use serde_json::Value;

use crate::decoder::{DecodeFault, StreamDecoder, count, error_object, parse_json};
use crate::event::{FinishReason, ModelEvent, Usage};
use crate::sse::SseEvent;
use crate::tool_call_assembly::ToolCallAssembly;

/// Decoder state for one response.
#[derive(Debug, Default)]
pub(crate) struct AnthropicDecoder {
    calls: ToolCallAssembly,
    usage: Usage,
    finish: Option<FinishReason>,
    done: bool,
}

impl StreamDecoder for AnthropicDecoder {
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), DecodeFault> {
        let value = parse_json(event)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                let usage = value.pointer("/message/usage").unwrap_or(&Value::Null);
                let cached = count(usage, "/cache_read_input_tokens");
                // Anthropic counts cached and freshly written input apart; kigi reports the
                // whole input with the cached part inside it.
                self.usage.input_tokens = count(usage, "/input_tokens")
                    + cached
                    + count(usage, "/cache_creation_input_tokens");
                self.usage.cached_input_tokens = cached;
                self.usage.output_tokens = count(usage, "/output_tokens");
            }
            "content_block_start" => {
                let block = value.get("content_block").unwrap_or(&Value::Null);
                if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    let str_field = |name| block.get(name).and_then(Value::as_str);
                    self.calls
                        .push(index, str_field("id"), str_field("name"), "");
                }
            }
            "content_block_delta" => {
                let delta = value.get("delta").unwrap_or(&Value::Null);
                let str_field = |name| delta.get(name).and_then(Value::as_str);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        out.push(ModelEvent::TextDelta(
                            str_field("text").unwrap_or("").to_owned(),
                        ));
                    }
                    Some("thinking_delta") => out.push(ModelEvent::ThinkingDelta(
                        str_field("thinking").unwrap_or("").to_owned(),
                    )),
                    Some("signature_delta") => out.push(ModelEvent::ThinkingSignature(
                        str_field("signature").unwrap_or("").to_owned(),
                    )),
                    Some("input_json_delta") => {
                        self.calls
                            .push(index, None, None, str_field("partial_json").unwrap_or(""));
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(call) = self.calls.take(index) {
                    out.push(ModelEvent::ToolCall(call));
                }
            }
            "message_delta" => {
                if let Some(reason) = value.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.finish = Some(FinishReason::from_wire(reason));
                }
                if let Some(output) = value
                    .pointer("/usage/output_tokens")
                    .and_then(Value::as_u64)
                {
                    self.usage.output_tokens = output;
                }
            }
            "message_stop" => {
                out.extend(self.calls.drain().into_iter().map(ModelEvent::ToolCall));
                out.push(ModelEvent::Usage(self.usage));
                out.push(ModelEvent::Finish(
                    self.finish.take().unwrap_or(FinishReason::Stop),
                ));
                self.done = true;
            }
            "error" => {
                let (code, message) =
                    error_object(&value).unwrap_or((None, "unknown stream error".into()));
                return Err(DecodeFault::provider(code, message));
            }
            // `ping` and event types added after this was written.
            _ => {}
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overloaded_error_event_is_retryable() {
        let mut decoder = AnthropicDecoder::default();
        let event = SseEvent {
            event: Some("error".into()),
            data: r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
                .into(),
            ..SseEvent::default()
        };
        let fault = decoder.decode(&event, &mut Vec::new()).unwrap_err();
        assert_eq!(
            fault,
            DecodeFault::Provider {
                code: Some("overloaded_error".into()),
                message: "Overloaded".into(),
                class: crate::error::ErrorClass::Retryable
            }
        );
    }
}
