//! kigi's model layer: one [`ModelClient`] that streams a provider-neutral [`ModelRequest`]
//! to OpenAI Chat Completions (with the Kimi and DeepSeek dialects and a strict mode),
//! Anthropic Messages or OpenAI Responses, and hands back [`ModelEvent`]s. Retries are decided
//! by a typed classification ([`ErrorClass`]), never by reading message text.
//!
//! It knows nothing about tools' behaviour or sessions: tool schemas go in, tool calls come
//! out.

mod anthropic;
mod api_key;
mod base_url;
mod client;
mod decoder;
mod dialect;
mod endpoint;
mod error;
mod event;
mod json_answer;
mod model_choice;
mod model_config;
mod openai_chat;
mod redaction;
mod request;
mod response;
mod responses;
mod retry;
mod retry_settings;
mod sse;
mod stream;
mod tool_call_assembly;

pub use api_key::ApiKey;
pub use base_url::{BaseUrlFault, check_base_url};
pub use client::ModelClient;
pub use endpoint::{Dialect, ModelEndpoint, Provider};
pub use error::{ErrorClass, ModelError, SentKey, classify_status};
pub use event::{FinishReason, ModelEvent, Usage};
pub use model_choice::ModelInput;
pub use model_config::{
    EndpointSettings, ModelConfigError, ModelFlags, ModelSettings, ModelsConfig,
};
pub use redaction::{REDACTED, strip_userinfo};
pub use request::{ModelRequest, ReasoningEffort, ToolSchema};
pub use response::ModelResponse;
pub use retry::{DEFAULT_MAX_RESPONSE_BYTES, RetryCounts, RetryDecision, RetryPolicy};
pub use retry_settings::RetrySettings;
pub use sse::{SseEvent, SseParser};
pub use stream::ModelStream;
pub use tokio_util::sync::CancellationToken;
