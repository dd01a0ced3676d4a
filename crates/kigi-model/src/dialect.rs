//! Every difference between the chat-completions servers kigi talks to, in one place. The
//! encoder and decoder ask these methods; nothing else branches on a vendor.

use serde_json::Value;

use crate::decoder::count;
use crate::endpoint::Dialect;

impl Dialect {
    /// The body field that caps output tokens. OpenAI's own API replaced `max_tokens` with
    /// `max_completion_tokens` (and rejects `max_tokens` for reasoning models); the compatible
    /// servers still read `max_tokens`.
    pub fn max_tokens_field(self) -> &'static str {
        match self {
            Self::Strict => "max_completion_tokens",
            Self::Openai | Self::Kimi | Self::Deepseek => "max_tokens",
        }
    }

    /// Whether `reasoning_effort` is sent. Kimi and DeepSeek choose thinking by model id.
    pub fn sends_reasoning_effort(self) -> bool {
        matches!(self, Self::Strict | Self::Openai)
    }

    /// Whether an assistant message's reasoning goes back to the server as
    /// `reasoning_content`. Kimi wants it on every assistant turn; DeepSeek only on the turns
    /// after the last user message (its tool loop), and rejects it elsewhere; OpenAI has no
    /// such field.
    pub fn replays_reasoning(self, after_last_user_message: bool) -> bool {
        match self {
            Self::Kimi => true,
            Self::Deepseek => after_last_user_message,
            Self::Openai | Self::Strict => false,
        }
    }

    /// The reasoning text in a streamed `delta`. Kimi and DeepSeek call it
    /// `reasoning_content`; OpenRouter, vLLM and Ollama often `reasoning`.
    pub fn reasoning_delta(self, delta: &Value) -> Option<&str> {
        let field = |name: &str| delta.get(name).and_then(Value::as_str);
        match self {
            Self::Strict => None,
            Self::Kimi | Self::Deepseek => field("reasoning_content"),
            Self::Openai => field("reasoning_content").or_else(|| field("reasoning")),
        }
    }

    /// Cached prompt tokens in a `usage` object.
    pub fn cached_tokens(self, usage: &Value) -> u64 {
        let details = count(usage, "/prompt_tokens_details/cached_tokens");
        match self {
            Self::Strict => details,
            Self::Deepseek => count(usage, "/prompt_cache_hit_tokens"),
            Self::Kimi => count(usage, "/cached_tokens").max(details),
            Self::Openai => details
                .max(count(usage, "/cached_tokens"))
                .max(count(usage, "/prompt_cache_hit_tokens")),
        }
    }

    /// Kimi puts `usage` inside the choice rather than at the top of the chunk.
    pub fn usage_in_choice(self) -> bool {
        matches!(self, Self::Kimi | Self::Openai)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_dialect_reads_its_own_cache_counter() {
        let usage = json!({"prompt_cache_hit_tokens": 7, "cached_tokens": 5,
                           "prompt_tokens_details": {"cached_tokens": 3}});
        assert_eq!(Dialect::Deepseek.cached_tokens(&usage), 7);
        assert_eq!(Dialect::Kimi.cached_tokens(&usage), 5);
        assert_eq!(Dialect::Strict.cached_tokens(&usage), 3);
        assert_eq!(Dialect::Openai.cached_tokens(&usage), 7);
    }

    #[test]
    fn reasoning_is_replayed_only_where_the_server_wants_it() {
        assert!(Dialect::Kimi.replays_reasoning(false));
        assert!(!Dialect::Deepseek.replays_reasoning(false));
        assert!(Dialect::Deepseek.replays_reasoning(true));
        assert!(!Dialect::Strict.replays_reasoning(true));
    }
}
