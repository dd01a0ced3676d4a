//! Where a model lives and which wire it speaks: the fully resolved form of a `[models.<alias>]`
//! entry, flags and environment (see `model_config`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api_key::ApiKey;

/// The wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// `POST {base}/chat/completions`: OpenAI, Kimi / Moonshot, DeepSeek, OpenRouter, Ollama,
    /// vLLM, llama.cpp.
    OpenaiChat,
    /// `POST {base}/messages`.
    Anthropic,
    /// `POST {base}/responses`.
    OpenaiResponses,
}

impl Provider {
    pub const NAMES: &'static str = "openai-chat, anthropic, openai-responses";

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "openai-chat" | "openai" => Some(Self::OpenaiChat),
            "anthropic" => Some(Self::Anthropic),
            "openai-responses" | "responses" => Some(Self::OpenaiResponses),
            _ => None,
        }
    }

    /// The name `config.toml` spells it with.
    pub fn name(self) -> &'static str {
        match self {
            Self::OpenaiChat => "openai-chat",
            Self::Anthropic => "anthropic",
            Self::OpenaiResponses => "openai-responses",
        }
    }

    /// The path below the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Self::OpenaiChat => "/chat/completions",
            Self::Anthropic => "/messages",
            Self::OpenaiResponses => "/responses",
        }
    }
}

/// The variant of the chat-completions wire a server speaks. Every difference between them is
/// a method of this type (in `dialect.rs`), so no other code branches on a vendor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// OpenAI-compatible servers at large: lenient about what they read, conservative in what
    /// they send.
    #[default]
    Openai,
    /// Exactly OpenAI's API: `max_completion_tokens`, no reasoning fields sent back.
    Strict,
    /// Kimi / Moonshot: `reasoning_content`, sent back on every assistant turn.
    Kimi,
    /// DeepSeek: `reasoning_content`, sent back only within the current turn's tool loop.
    Deepseek,
}

impl Dialect {
    pub const NAMES: &'static str = "openai, strict, kimi, deepseek";

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "openai" => Some(Self::Openai),
            "strict" | "strict-openai" => Some(Self::Strict),
            "kimi" | "moonshot" => Some(Self::Kimi),
            "deepseek" => Some(Self::Deepseek),
            _ => None,
        }
    }
}

/// A model, ready to call.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelEndpoint {
    /// The name the user chose it by: a `[models]` alias, or the raw model id.
    pub alias: String,
    pub provider: Provider,
    pub dialect: Dialect,
    /// Without the provider's path: `https://api.moonshot.ai/v1`.
    pub base_url: String,
    /// The provider's model id.
    pub model: String,
    pub api_key: Option<ApiKey>,
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u32>,
    /// The model reads images (`[models.<alias>] images = true`): tools' images are sent on.
    pub accepts_images: bool,
    /// Extra body fields sent with every request to this model.
    pub request_params: Map<String, Value>,
}

impl ModelEndpoint {
    /// An endpoint with no key or limits, for `provider` at `base_url`.
    pub fn new(provider: Provider, base_url: impl Into<String>, model: impl Into<String>) -> Self {
        let model = model.into();
        Self {
            alias: model.clone(),
            provider,
            dialect: Dialect::default(),
            base_url: base_url.into(),
            model,
            api_key: None,
            context_window: None,
            max_output_tokens: None,
            accepts_images: false,
            request_params: Map::new(),
        }
    }

    /// The full URL requests go to.
    pub fn url(&self) -> String {
        format!(
            "{}{}",
            self.base_url.trim_end_matches('/'),
            self.provider.path()
        )
    }
}
