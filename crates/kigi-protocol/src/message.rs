//! A conversation as every provider and the session file see it: messages made of content
//! parts. Provider wire formats are translated to and from this shape in `kigi-model`; nothing
//! here knows a provider.
//!
//! The rule: a tool call's `arguments` stay the raw JSON text the model produced. Parsing
//! them is the tool runtime's job, so a malformed argument string reaches it intact and can be
//! reported back to the model.

use serde::{Deserialize, Serialize};

/// Who wrote a message. System text travels separately, as the request's system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentPart>,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    Text {
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        media_type: String,
        data: String,
    },
    /// The model's reasoning. `signature` is the opaque token Anthropic needs to accept the
    /// block back in a later request.
    Thinking {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    ToolCall(ToolCall),
    ToolResult(ToolResult),
}

/// A call the model asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id; results name it.
    pub id: String,
    /// The model-facing tool name.
    pub name: String,
    /// Raw JSON text, as the model wrote it.
    pub arguments: String,
}

/// What a tool call returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    pub call_id: String,
    pub content: String,
    #[serde(default)]
    pub is_error: bool,
}

impl Message {
    /// A user message holding one text part.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![ContentPart::Text { text: text.into() }],
        }
    }

    /// An assistant message holding one text part.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: vec![ContentPart::Text { text: text.into() }],
        }
    }

    /// The text parts, joined.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|part| match part {
                ContentPart::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|part| match part {
            ContentPart::ToolCall(call) => Some(call),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_parts_have_stable_wire_names() {
        let message = Message {
            role: Role::Assistant,
            content: vec![
                ContentPart::Thinking {
                    text: "hm".into(),
                    signature: None,
                },
                ContentPart::ToolCall(ToolCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: "{\"path\":\"a\"}".into(),
                }),
            ],
        };
        let json = serde_json::to_value(&message).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "role": "assistant",
                "content": [
                    {"type": "thinking", "text": "hm"},
                    {"type": "tool_call", "id": "c1", "name": "read_file", "arguments": "{\"path\":\"a\"}"}
                ]
            })
        );
        let back: Message = serde_json::from_value(json).unwrap();
        assert_eq!(back, message);
    }
}
