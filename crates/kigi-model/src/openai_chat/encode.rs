//! [`ModelRequest`] → a chat-completions body.

use kigi_protocol::{ContentPart, Message, Role};
use serde_json::{Value, json};

use crate::endpoint::Dialect;
use crate::request::{ModelRequest, merge_params};

/// Builds the streaming request body.
pub(crate) fn encode(request: &ModelRequest, dialect: Dialect) -> Value {
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    let last_user = request
        .messages
        .iter()
        .rposition(|m| m.role == Role::User && !m.text().is_empty());
    for (position, message) in request.messages.iter().enumerate() {
        match message.role {
            Role::User => push_user(&mut messages, message),
            Role::Assistant => {
                let replay = dialect.replays_reasoning(last_user.is_some_and(|u| position > u));
                messages.push(assistant(message, replay));
            }
        }
    }
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                }})
            })
            .collect();
        body["tools"] = Value::Array(tools);
    }
    if let Some(max) = request.max_output_tokens {
        body[dialect.max_tokens_field()] = json!(max);
    }
    if let Some(effort) = request.reasoning
        && dialect.sends_reasoning_effort()
    {
        body["reasoning_effort"] = json!(effort.as_str());
    }
    merge_params(&mut body, &request.params);
    body
}

/// A user message: tool results become `tool` messages (the wire wants one per result, right
/// after the assistant message that called them); text and images become one user message.
fn push_user(messages: &mut Vec<Value>, message: &Message) {
    let mut parts = Vec::new();
    for part in &message.content {
        match part {
            ContentPart::ToolResult(result) => messages.push(json!({
                "role": "tool",
                "tool_call_id": result.call_id,
                "content": result.content,
            })),
            ContentPart::Text { text } => parts.push(json!({"type": "text", "text": text})),
            ContentPart::Image { media_type, data } => parts.push(json!({
                "type": "image_url",
                "image_url": {"url": format!("data:{media_type};base64,{data}")},
            })),
            ContentPart::Thinking { .. } | ContentPart::ToolCall(_) => {}
        }
    }
    match parts.as_slice() {
        [] => {}
        // A lone text part goes as a plain string: some local servers accept nothing else.
        [only] if only["type"] == "text" => {
            messages.push(json!({"role": "user", "content": only["text"]}));
        }
        _ => messages.push(json!({"role": "user", "content": parts})),
    }
}

fn assistant(message: &Message, replay_reasoning: bool) -> Value {
    let mut reasoning = String::new();
    let mut tool_calls = Vec::new();
    for part in &message.content {
        match part {
            ContentPart::Thinking { text, .. } => reasoning.push_str(text),
            ContentPart::ToolCall(call) => tool_calls.push(json!({
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            })),
            _ => {}
        }
    }
    let text = message.text();
    let mut out = json!({
        "role": "assistant",
        "content": if text.is_empty() && !tool_calls.is_empty() { Value::Null } else { json!(text) },
    });
    if !tool_calls.is_empty() {
        out["tool_calls"] = Value::Array(tool_calls);
    }
    if replay_reasoning && !reasoning.is_empty() {
        out["reasoning_content"] = json!(reasoning);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{ReasoningEffort, ToolSchema};
    use kigi_protocol::{ToolCall, ToolResult};

    fn conversation() -> ModelRequest {
        let mut request = ModelRequest::new("m", "be brief");
        request.messages = vec![
            Message::user("hi"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentPart::Thinking {
                        text: "look".into(),
                        signature: None,
                    },
                    ContentPart::ToolCall(ToolCall {
                        id: "c1".into(),
                        name: "read_file".into(),
                        arguments: "{}".into(),
                    }),
                ],
            },
            Message {
                role: Role::User,
                content: vec![ContentPart::ToolResult(ToolResult {
                    call_id: "c1".into(),
                    content: "data".into(),
                    is_error: false,
                })],
            },
        ];
        request.tools = vec![ToolSchema {
            name: "read_file".into(),
            description: "Read".into(),
            parameters: json!({"type": "object"}),
        }];
        request.max_output_tokens = Some(100);
        request.reasoning = Some(ReasoningEffort::High);
        request
    }

    #[test]
    fn strict_mode_sends_only_openai_fields() {
        let body = encode(&conversation(), Dialect::Strict);
        assert_eq!(body["max_completion_tokens"], 100);
        assert!(body.get("max_tokens").is_none());
        assert_eq!(body["reasoning_effort"], "high");
        assert!(body["messages"][2].get("reasoning_content").is_none());
        assert_eq!(body["messages"][3]["role"], "tool");
        assert_eq!(body["messages"][3]["tool_call_id"], "c1");
    }

    #[test]
    fn kimi_replays_reasoning_and_skips_effort() {
        let body = encode(&conversation(), Dialect::Kimi);
        assert_eq!(body["max_tokens"], 100);
        assert!(body.get("reasoning_effort").is_none());
        assert_eq!(body["messages"][2]["reasoning_content"], "look");
        assert_eq!(body["messages"][2]["content"], Value::Null);
    }

    #[test]
    fn params_override_what_the_encoder_wrote() {
        let mut request = conversation();
        request.params.insert("temperature".into(), json!(0.2));
        request.params.insert("stream_options".into(), json!(null));
        let body = encode(&request, Dialect::Openai);
        assert_eq!(body["temperature"], 0.2);
        assert_eq!(body["stream_options"], Value::Null);
    }
}
