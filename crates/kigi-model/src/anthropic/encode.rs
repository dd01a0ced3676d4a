//! [`ModelRequest`] → a Messages body.

use kigi_protocol::{ContentPart, Message, Role};
use serde_json::{Value, json};

use crate::request::{ModelRequest, merge_params};

/// Messages requires `max_tokens`; this is used when neither request nor model sets one.
const DEFAULT_MAX_TOKENS: u32 = 8_192;

/// Builds the streaming request body.
pub(crate) fn encode(request: &ModelRequest) -> Value {
    let messages: Vec<Value> = request.messages.iter().map(message).collect();
    let mut max_tokens = request.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "stream": true,
    });
    if !request.system.is_empty() {
        // The system prompt is the same on every turn: mark it for the prompt cache.
        body["system"] = json!([{
            "type": "text",
            "text": request.system,
            "cache_control": {"type": "ephemeral"},
        }]);
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.parameters,
                })
            })
            .collect();
        body["tools"] = Value::Array(tools);
    }
    if let Some(effort) = request.reasoning {
        let budget = effort.thinking_budget_tokens();
        // The thinking budget counts against max_tokens, which must exceed it.
        max_tokens = max_tokens.max(budget + 4_096);
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
    }
    body["max_tokens"] = json!(max_tokens);
    merge_params(&mut body, &request.params);
    body
}

fn message(message: &Message) -> Value {
    let blocks: Vec<Value> = message.content.iter().filter_map(block).collect();
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    json!({"role": role, "content": blocks})
}

fn block(part: &ContentPart) -> Option<Value> {
    Some(match part {
        ContentPart::Text { text } => json!({"type": "text", "text": text}),
        ContentPart::Image { media_type, data } => json!({
            "type": "image",
            "source": {"type": "base64", "media_type": media_type, "data": data},
        }),
        // Unsigned thinking (from another provider) is refused by the API: leave it out.
        ContentPart::Thinking { text, signature } => json!({
            "type": "thinking",
            "thinking": text,
            "signature": signature.as_ref()?,
        }),
        ContentPart::ToolCall(call) => json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            // The wire wants an object. Arguments that do not parse are sent as an empty
            // object; the tool runtime already told the model they were malformed.
            "input": serde_json::from_str::<Value>(&call.arguments)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({})),
        }),
        ContentPart::ToolResult(result) => json!({
            "type": "tool_result",
            "tool_use_id": result.call_id,
            "content": result.content,
            "is_error": result.is_error,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::ReasoningEffort;

    #[test]
    fn thinking_budget_fits_under_max_tokens_and_unsigned_thinking_is_dropped() {
        let mut request = ModelRequest::new("claude", "sys");
        request.reasoning = Some(ReasoningEffort::Medium);
        request.max_output_tokens = Some(1_000);
        request.messages = vec![Message {
            role: Role::Assistant,
            content: vec![
                ContentPart::Thinking {
                    text: "t".into(),
                    signature: None,
                },
                ContentPart::Text { text: "a".into() },
            ],
        }];
        let body = encode(&request);
        assert_eq!(body["thinking"]["budget_tokens"], 8_192);
        assert_eq!(body["max_tokens"], 8_192 + 4_096);
        assert_eq!(
            body["messages"][0]["content"],
            json!([{"type": "text", "text": "a"}])
        );
        assert_eq!(body["system"][0]["text"], "sys");
    }
}
