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
    input: InputCounts,
    output_tokens: u64,
    finish: Option<FinishReason>,
    done: bool,
}

/// Anthropic's three input counts, kept apart until the end: `message_start` gives them, and
/// a `message_delta` may give them again (the API's cumulative usage, and proxies that report
/// 0 at the start and the real figure at the end).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct InputCounts {
    fresh: u64,
    cache_read: u64,
    cache_creation: u64,
}

impl InputCounts {
    /// Every count `usage` carries that is above zero replaces the one held.
    pub(crate) fn update(&mut self, usage: &Value) {
        for (field, pointer) in [
            (&mut self.fresh, "/input_tokens"),
            (&mut self.cache_read, "/cache_read_input_tokens"),
            (&mut self.cache_creation, "/cache_creation_input_tokens"),
        ] {
            let value = count(usage, pointer);
            if value > 0 {
                *field = value;
            }
        }
    }

    /// kigi reports the whole input with the cached part inside it; Anthropic counts cached
    /// and freshly written input apart.
    pub(crate) fn usage(self, output_tokens: u64) -> Usage {
        Usage {
            input_tokens: self.fresh + self.cache_read + self.cache_creation,
            output_tokens,
            cached_input_tokens: self.cache_read,
        }
    }
}

impl StreamDecoder for AnthropicDecoder {
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), DecodeFault> {
        let value = parse_json(event)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        // `{"type": "error", "error": {…}}`, and the bare `{"error": {…}}` proxies send.
        if let Some((code, message)) = error_object(&value) {
            return Err(DecodeFault::provider(code, message));
        }
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                let usage = value.pointer("/message/usage").unwrap_or(&Value::Null);
                self.input.update(usage);
                self.output_tokens = count(usage, "/output_tokens");
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
                let usage = value.get("usage").unwrap_or(&Value::Null);
                self.input.update(usage);
                if let Some(output) = usage.get("output_tokens").and_then(Value::as_u64) {
                    self.output_tokens = output;
                }
            }
            "message_stop" => {
                out.extend(self.calls.drain().into_iter().map(ModelEvent::ToolCall));
                out.push(ModelEvent::Usage(self.input.usage(self.output_tokens)));
                out.push(ModelEvent::Finish(
                    self.finish.take().unwrap_or(FinishReason::Stop),
                ));
                self.done = true;
            }
            "error" => {
                return Err(DecodeFault::provider(None, "unknown stream error".into()));
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

    fn feed(decoder: &mut AnthropicDecoder, data: &str) -> Vec<ModelEvent> {
        let mut out = Vec::new();
        let event = SseEvent {
            data: data.into(),
            ..SseEvent::default()
        };
        decoder.decode(&event, &mut out).unwrap();
        out
    }

    #[test]
    fn input_tokens_in_message_delta_replace_a_zero_from_message_start() {
        let mut decoder = AnthropicDecoder::default();
        feed(
            &mut decoder,
            r#"{"type":"message_start","message":{"usage":{"input_tokens":0,"output_tokens":1}}}"#,
        );
        feed(
            &mut decoder,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":1234,"cache_read_input_tokens":200,"output_tokens":56}}"#,
        );
        let out = feed(&mut decoder, r#"{"type":"message_stop"}"#);
        assert_eq!(
            out,
            vec![
                ModelEvent::Usage(Usage {
                    input_tokens: 1434,
                    output_tokens: 56,
                    cached_input_tokens: 200
                }),
                ModelEvent::Finish(FinishReason::Stop)
            ]
        );
    }

    #[test]
    fn a_delta_without_input_tokens_keeps_the_start_figures() {
        let mut decoder = AnthropicDecoder::default();
        feed(
            &mut decoder,
            r#"{"type":"message_start","message":{"usage":{"input_tokens":90,"cache_read_input_tokens":10,"output_tokens":1}}}"#,
        );
        feed(
            &mut decoder,
            r#"{"type":"message_delta","delta":{},"usage":{"output_tokens":7}}"#,
        );
        let out = feed(&mut decoder, r#"{"type":"message_stop"}"#);
        assert_eq!(
            out[0],
            ModelEvent::Usage(Usage {
                input_tokens: 100,
                output_tokens: 7,
                cached_input_tokens: 10
            })
        );
    }

    #[test]
    fn a_bare_error_object_is_the_providers_error() {
        let mut decoder = AnthropicDecoder::default();
        let event = SseEvent {
            data: r#"{"error":{"message":"upstream timed out","type":"api_error"}}"#.into(),
            ..SseEvent::default()
        };
        assert_eq!(
            decoder.decode(&event, &mut Vec::new()).unwrap_err(),
            DecodeFault::Provider {
                code: Some("api_error".into()),
                message: "upstream timed out".into(),
                class: crate::error::ErrorClass::Retryable
            }
        );
    }

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
