//! [`ModelRequest`] → a Responses body.

use kigi_protocol::{ContentPart, Role};
use serde_json::{Value, json};

use crate::request::{ModelRequest, merge_params};

/// Builds the streaming request body. `store: false`: kigi keeps its own transcript and
/// sends the whole conversation each time.
pub(crate) fn encode(request: &ModelRequest) -> Value {
    let mut input = Vec::new();
    for message in &request.messages {
        let mut content = Vec::new();
        let (text_type, role) = match message.role {
            Role::User => ("input_text", "user"),
            Role::Assistant => ("output_text", "assistant"),
        };
        for part in &message.content {
            match part {
                ContentPart::Text { text } => {
                    content.push(json!({"type": text_type, "text": text}))
                }
                ContentPart::Image { media_type, data } => content.push(json!({
                    "type": "input_image",
                    "image_url": format!("data:{media_type};base64,{data}"),
                })),
                ContentPart::ToolCall(call) => input.push(json!({
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                })),
                ContentPart::ToolResult(result) => input.push(json!({
                    "type": "function_call_output",
                    "call_id": result.call_id,
                    "output": result.content,
                })),
                // Reasoning items need the server's encrypted state; kigi does not store it.
                ContentPart::Thinking { .. } => {}
            }
        }
        if !content.is_empty() {
            input.push(json!({"type": "message", "role": role, "content": content}));
        }
    }
    let mut body = json!({
        "model": request.model,
        "input": input,
        "stream": true,
        "store": false,
    });
    if !request.system.is_empty() {
        body["instructions"] = json!(request.system);
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                })
            })
            .collect();
        body["tools"] = Value::Array(tools);
    }
    if let Some(max) = request.max_output_tokens {
        body["max_output_tokens"] = json!(max);
    }
    if let Some(effort) = request.reasoning {
        body["reasoning"] = json!({"effort": effort.as_str(), "summary": "auto"});
    }
    merge_params(&mut body, &request.params);
    body
}
