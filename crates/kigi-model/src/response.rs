//! A whole answer, folded from a stream of [`ModelEvent`]s.

use kigi_protocol::{ContentPart, Message, Role, ToolCall};

use crate::event::{FinishReason, ModelEvent, Usage};

/// Everything one response said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelResponse {
    pub text: String,
    pub thinking: String,
    pub thinking_signature: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    pub finish: Option<FinishReason>,
    /// How many times the request was sent again.
    pub retries: u32,
}

impl ModelResponse {
    /// Folds one event in. `Retrying` voids what the failed attempt streamed.
    pub fn apply(&mut self, event: ModelEvent) {
        match event {
            ModelEvent::TextDelta(text) => self.text.push_str(&text),
            ModelEvent::ThinkingDelta(text) => self.thinking.push_str(&text),
            ModelEvent::ThinkingSignature(signature) => {
                self.thinking_signature
                    .get_or_insert_with(String::new)
                    .push_str(&signature);
            }
            ModelEvent::ToolCall(call) => self.tool_calls.push(call),
            ModelEvent::Usage(usage) => self.usage = usage,
            ModelEvent::Finish(finish) => self.finish = Some(finish),
            ModelEvent::Retrying { attempt, .. } => {
                *self = Self {
                    retries: attempt,
                    ..Self::default()
                };
            }
        }
    }

    /// The assistant message to append to the conversation.
    pub fn to_message(&self) -> Message {
        let mut content = Vec::new();
        if !self.thinking.is_empty() {
            content.push(ContentPart::Thinking {
                text: self.thinking.clone(),
                signature: self.thinking_signature.clone(),
            });
        }
        if !self.text.is_empty() {
            content.push(ContentPart::Text {
                text: self.text.clone(),
            });
        }
        content.extend(self.tool_calls.iter().cloned().map(ContentPart::ToolCall));
        Message {
            role: Role::Assistant,
            content,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn retrying_discards_the_failed_attempt() {
        let mut response = ModelResponse::default();
        response.apply(ModelEvent::TextDelta("partial".into()));
        response.apply(ModelEvent::Retrying {
            attempt: 1,
            delay: Duration::ZERO,
            reason: "cut".into(),
        });
        response.apply(ModelEvent::TextDelta("whole".into()));
        assert_eq!(response.text, "whole");
        assert_eq!(response.retries, 1);
    }
}
