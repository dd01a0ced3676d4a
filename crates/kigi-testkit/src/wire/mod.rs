//! The three wire formats the server speaks. Each module renders a [`Step`] as a streamed
//! SSE answer or a whole JSON body, an error body, and reads a request's conversation.
//!
//! This is written from the providers' documentation, independently of `kigi-model`'s
//! decoders, so a test against the server can catch a decoder that misreads the wire.

pub mod anthropic;
pub mod openai_chat;
pub mod responses;

use serde_json::Value;

use crate::script::{ScriptedUsage, Step};

/// Which wire a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    OpenaiChat,
    Anthropic,
    Responses,
}

impl Wire {
    /// The wire served at `path`.
    pub fn from_path(path: &str) -> Option<Self> {
        match path.trim_end_matches('/') {
            "/v1/chat/completions" => Some(Self::OpenaiChat),
            "/v1/messages" => Some(Self::Anthropic),
            "/v1/responses" => Some(Self::Responses),
            _ => None,
        }
    }

    /// The identifying parts of a request's conversation.
    pub fn conversation(self, body: &Value) -> Conversation {
        match self {
            Self::OpenaiChat => openai_chat::conversation(body),
            Self::Anthropic => anthropic::conversation(body),
            Self::Responses => responses::conversation(body),
        }
    }

    /// The answer as SSE events, each a complete `event:`/`data:` block.
    pub fn stream(self, answer: &Answer) -> Vec<String> {
        match self {
            Self::OpenaiChat => openai_chat::stream(answer),
            Self::Anthropic => anthropic::stream(answer),
            Self::Responses => responses::stream(answer),
        }
    }

    /// The answer as one JSON body.
    pub fn body(self, answer: &Answer) -> Value {
        match self {
            Self::OpenaiChat => openai_chat::body(answer),
            Self::Anthropic => anthropic::body(answer),
            Self::Responses => responses::body(answer),
        }
    }

    /// An error body in this wire's shape.
    pub fn error_body(self, code: &str, message: &str) -> Value {
        match self {
            Self::Anthropic => serde_json::json!({
                "type": "error",
                "error": {"type": code, "message": message},
            }),
            Self::OpenaiChat | Self::Responses => serde_json::json!({
                "error": {"message": message, "type": code, "code": code},
            }),
        }
    }
}

/// What identifies a conversation and how far along it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conversation {
    pub system: String,
    pub first_user: String,
    /// Assistant turns already in the request: the step to answer with.
    pub assistant_turns: usize,
}

/// One step, ready to render: the step plus what the request decides (model, turn, ids).
#[derive(Debug, Clone)]
pub struct Answer<'a> {
    pub step: &'a Step,
    pub model: String,
    /// Used to make ids unique and stable: `call_<turn>_<n>`.
    pub turn: usize,
    /// Input size of the request, for estimated usage.
    pub request_chars: usize,
}

impl Conversation {
    /// The conversation of a `messages` array with `role`s (chat completions, Messages).
    pub fn of_messages(system: String, messages: &[Value]) -> Self {
        let role = |m: &Value| m.get("role").and_then(Value::as_str) == Some("user");
        Self {
            system,
            first_user: messages
                .iter()
                .find(|m| role(m))
                .map(|m| content_text(&m["content"]))
                .unwrap_or_default(),
            assistant_turns: messages
                .iter()
                .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
                .count(),
        }
    }
}

impl Answer<'_> {
    /// The step's stated finish reason, or the wire's word for "stopped" or "called tools".
    pub fn finish_or(&self, stopped: &str, called_tools: &str) -> String {
        self.step.finish.clone().unwrap_or_else(|| {
            if self.step.tool_calls.is_empty() {
                stopped
            } else {
                called_tools
            }
            .to_owned()
        })
    }

    pub fn chunk_chars(&self) -> usize {
        self.step.chunk_chars.unwrap_or(8).max(1)
    }

    /// Stated usage, or an estimate of a quarter token per character.
    pub fn usage(&self) -> ScriptedUsage {
        self.step.usage.unwrap_or_else(|| {
            let produced = self.step.text.as_deref().map_or(0, str::len)
                + self.step.thinking.as_deref().map_or(0, str::len)
                + self
                    .step
                    .tool_calls
                    .iter()
                    .map(|c| c.arguments_text().len() + c.name.len())
                    .sum::<usize>();
            ScriptedUsage {
                input: (self.request_chars / 4) as u64,
                output: (produced / 4).max(1) as u64,
                cached: 0,
            }
        })
    }

    /// The id of tool call `n`.
    pub fn call_id(&self, n: usize) -> String {
        self.step.tool_calls[n]
            .id
            .clone()
            .unwrap_or_else(|| format!("call_{}_{n}", self.turn))
    }

    /// The id of this response.
    pub fn response_id(&self) -> String {
        format!("resp_{}", self.turn)
    }
}

/// Splits `text` into pieces of at most `size` characters.
pub fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// One SSE event block.
pub fn sse(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// The text of every `text`/`content` string in a message's content (string or parts).
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_split_on_characters_not_bytes() {
        assert_eq!(pieces("héllo", 2), vec!["hé", "ll", "o"]);
        assert!(pieces("", 3).is_empty());
    }
}
