//! Anthropic Messages: content blocks, `tool_use` with `input_json_delta`, thinking blocks
//! with signatures.

mod decode;
mod encode;

pub(crate) use decode::{AnthropicDecoder, InputCounts};
pub(crate) use encode::encode;

/// The API version header value kigi speaks.
pub(crate) const API_VERSION: &str = "2023-06-01";
