//! Chat-completions SSE chunks → [`ModelEvent`]s.

use serde_json::Value;

use crate::decoder::{DecodeFault, StreamDecoder, count, error_object, parse_json};
use crate::endpoint::Dialect;
use crate::event::{FinishReason, ModelEvent, Usage};
use crate::sse::SseEvent;
use crate::tool_call_assembly::ToolCallAssembly;

/// Decoder state for one response.
#[derive(Debug)]
pub(crate) struct ChatDecoder {
    dialect: Dialect,
    calls: ToolCallAssembly,
    finish: Option<FinishReason>,
    done: bool,
}

impl ChatDecoder {
    pub fn new(dialect: Dialect) -> Self {
        Self {
            dialect,
            calls: ToolCallAssembly::default(),
            finish: None,
            done: false,
        }
    }

    fn usage(&self, usage: &Value) -> Usage {
        chat_usage(self.dialect, usage)
    }

    fn flush(&mut self, out: &mut Vec<ModelEvent>) {
        out.extend(self.calls.drain().into_iter().map(ModelEvent::ToolCall));
        if let Some(finish) = self.finish.take() {
            out.push(ModelEvent::Finish(finish));
        }
    }
}

/// A chat-completions `usage` object in kigi's terms.
pub(crate) fn chat_usage(dialect: Dialect, usage: &Value) -> Usage {
    Usage {
        input_tokens: count(usage, "/prompt_tokens"),
        output_tokens: count(usage, "/completion_tokens"),
        cached_input_tokens: dialect.cached_tokens(usage),
    }
}

impl StreamDecoder for ChatDecoder {
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), DecodeFault> {
        if event.data.trim() == "[DONE]" {
            self.flush(out);
            self.done = true;
            return Ok(());
        }
        let chunk = parse_json(event)?;
        if let Some((code, message)) = error_object(&chunk) {
            return Err(DecodeFault::provider(code, message));
        }
        let choice = chunk.pointer("/choices/0");
        if let Some(delta) = choice.and_then(|c| c.get("delta")) {
            if let Some(thinking) = self.dialect.reasoning_delta(delta)
                && !thinking.is_empty()
            {
                out.push(ModelEvent::ThinkingDelta(thinking.to_owned()));
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str)
                && !text.is_empty()
            {
                out.push(ModelEvent::TextDelta(text.to_owned()));
            }
            for call in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let index = call.get("index").and_then(Value::as_u64).unwrap_or(0);
                let function = call.get("function");
                self.calls.push(
                    index,
                    call.get("id").and_then(Value::as_str),
                    function.and_then(|f| f.get("name")).and_then(Value::as_str),
                    function
                        .and_then(|f| f.get("arguments"))
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                );
            }
        }
        if let Some(reason) = choice
            .and_then(|c| c.get("finish_reason"))
            .and_then(Value::as_str)
        {
            out.extend(self.calls.drain().into_iter().map(ModelEvent::ToolCall));
            self.finish = Some(FinishReason::from_wire(reason));
        }
        let usage = chunk.get("usage").filter(|u| u.is_object()).or_else(|| {
            self.dialect
                .usage_in_choice()
                .then(|| {
                    choice
                        .and_then(|c| c.get("usage"))
                        .filter(|u| u.is_object())
                })
                .flatten()
        });
        if let Some(usage) = usage {
            out.push(ModelEvent::Usage(self.usage(usage)));
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.done
    }

    /// Without `[DONE]`, a clean end after a finish reason still counts as whole: several
    /// local servers never send `[DONE]`.
    fn end_of_body(&mut self, out: &mut Vec<ModelEvent>) -> bool {
        if self.done {
            return true;
        }
        if self.finish.is_some() {
            self.flush(out);
            self.done = true;
        }
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(decoder: &mut ChatDecoder, data: &str) -> Vec<ModelEvent> {
        let mut out = Vec::new();
        let event = SseEvent {
            data: data.into(),
            ..SseEvent::default()
        };
        decoder.decode(&event, &mut out).unwrap();
        out
    }

    #[test]
    fn kimi_usage_inside_the_choice_is_read() {
        let mut decoder = ChatDecoder::new(Dialect::Kimi);
        let out = feed(
            &mut decoder,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":9,"completion_tokens":2,"cached_tokens":4}}]}"#,
        );
        assert_eq!(
            out,
            vec![ModelEvent::Usage(Usage {
                input_tokens: 9,
                output_tokens: 2,
                cached_input_tokens: 4
            })]
        );
        let out = feed(&mut decoder, "[DONE]");
        assert_eq!(out, vec![ModelEvent::Finish(FinishReason::Stop)]);
        assert!(decoder.is_complete());
    }

    #[test]
    fn a_finish_reason_without_done_is_whole_at_a_clean_end() {
        let mut decoder = ChatDecoder::new(Dialect::Openai);
        feed(
            &mut decoder,
            r#"{"choices":[{"delta":{"content":"x"},"finish_reason":"length"}]}"#,
        );
        let mut out = Vec::new();
        assert!(decoder.end_of_body(&mut out));
        assert_eq!(out, vec![ModelEvent::Finish(FinishReason::Length)]);
        let mut cut = ChatDecoder::new(Dialect::Openai);
        feed(&mut cut, r#"{"choices":[{"delta":{"content":"x"}}]}"#);
        assert!(!cut.end_of_body(&mut Vec::new()));
    }
}
