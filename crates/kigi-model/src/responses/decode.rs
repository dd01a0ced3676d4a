//! Responses SSE events → [`ModelEvent`]s.

use serde_json::Value;

use crate::decoder::{DecodeFault, StreamDecoder, count, error_object, parse_json};
use crate::event::{FinishReason, ModelEvent, Usage};
use crate::sse::SseEvent;
use crate::tool_call_assembly::ToolCallAssembly;

/// Decoder state for one response.
#[derive(Debug, Default)]
pub(crate) struct ResponsesDecoder {
    calls: ToolCallAssembly,
    saw_call: bool,
    done: bool,
}

impl ResponsesDecoder {
    fn complete(&mut self, response: &Value, out: &mut Vec<ModelEvent>) {
        out.extend(self.calls.drain().into_iter().map(ModelEvent::ToolCall));
        completion_events(response, self.saw_call, out);
        self.done = true;
    }
}

/// The usage and finish of a whole `response` object (the `response.completed` event's, or
/// a non-streamed body).
pub(crate) fn completion_events(response: &Value, saw_call: bool, out: &mut Vec<ModelEvent>) {
    let usage = response.get("usage").unwrap_or(&Value::Null);
    out.push(ModelEvent::Usage(Usage {
        input_tokens: count(usage, "/input_tokens"),
        output_tokens: count(usage, "/output_tokens"),
        cached_input_tokens: count(usage, "/input_tokens_details/cached_tokens"),
    }));
    let finish = match response
        .pointer("/incomplete_details/reason")
        .and_then(Value::as_str)
    {
        Some(reason) => FinishReason::from_wire(reason),
        None if saw_call => FinishReason::ToolCalls,
        None => FinishReason::Stop,
    };
    out.push(ModelEvent::Finish(finish));
}

impl StreamDecoder for ResponsesDecoder {
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), DecodeFault> {
        let value = parse_json(event)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        // The bare `{"error": {…}}` proxies send in place of an event.
        if let Some((code, message)) = error_object(&value) {
            return Err(DecodeFault::provider(code, message));
        }
        let index = value
            .get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let delta = || value.get("delta").and_then(Value::as_str).unwrap_or("");
        match kind {
            "response.output_text.delta" => out.push(ModelEvent::TextDelta(delta().to_owned())),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                out.push(ModelEvent::ThinkingDelta(delta().to_owned()));
            }
            "response.output_item.added" => {
                let item = value.get("item").unwrap_or(&Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    let field = |name| item.get(name).and_then(Value::as_str);
                    self.saw_call = true;
                    self.calls.push(
                        index,
                        field("call_id"),
                        field("name"),
                        field("arguments").unwrap_or(""),
                    );
                }
            }
            "response.function_call_arguments.delta" => {
                self.calls.push(index, None, None, delta());
            }
            "response.function_call_arguments.done" => {
                if let Some(arguments) = value.get("arguments").and_then(Value::as_str) {
                    self.calls.set_arguments(index, arguments);
                }
            }
            "response.output_item.done" => {
                if let Some(call) = self.calls.take(index) {
                    out.push(ModelEvent::ToolCall(call));
                }
            }
            "response.completed" | "response.incomplete" => {
                self.complete(value.get("response").unwrap_or(&Value::Null), out);
            }
            "response.failed" | "error" => {
                let source = value.get("response").unwrap_or(&value);
                let (code, message) = error_object(source)
                    .or_else(|| {
                        let message = value.get("message").and_then(Value::as_str)?;
                        let code = value.get("code").and_then(Value::as_str);
                        Some((code.map(str::to_owned), message.to_owned()))
                    })
                    .unwrap_or((None, "the response failed".into()));
                return Err(DecodeFault::provider(code, message));
            }
            _ => {}
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.done
    }
}
