//! What kigi asks a model: one provider-neutral request. Each provider's `encode` module turns
//! it into that provider's JSON body.

use kigi_protocol::Message;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A request to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// The provider's model id (`kimi-k2-0905-preview`), not a kigi alias.
    pub model: String,
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSchema>,
    pub reasoning: Option<ReasoningEffort>,
    pub max_output_tokens: Option<u32>,
    /// Extra top-level body fields (`temperature`, `top_p`, …), merged last so they win.
    pub params: Map<String, Value>,
}

/// A tool as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// How hard a reasoning model should think.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    Low,
    Medium,
    High,
}

impl ReasoningEffort {
    /// `low`, `medium` or `high`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "low" => Some(Self::Low),
            "medium" => Some(Self::Medium),
            "high" => Some(Self::High),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }

    /// Anthropic takes a token budget rather than a level.
    pub fn thinking_budget_tokens(self) -> u32 {
        match self {
            Self::Low => 2_048,
            Self::Medium => 8_192,
            Self::High => 24_576,
        }
    }
}

impl ModelRequest {
    /// A request with no messages, tools or settings yet.
    pub fn new(model: impl Into<String>, system: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            system: system.into(),
            messages: Vec::new(),
            tools: Vec::new(),
            reasoning: None,
            max_output_tokens: None,
            params: Map::new(),
        }
    }
}

/// Merges `params` into a body object; extra params win over what the encoder wrote.
pub(crate) fn merge_params(body: &mut Value, params: &Map<String, Value>) {
    if let Value::Object(object) = body {
        for (key, value) in params {
            object.insert(key.clone(), value.clone());
        }
    }
}
