//! How big the next request is, in tokens: the provider's count of the last request where it
//! gave one, plus an estimate (about four characters a token) of what was added since; an
//! estimate of everything where no count exists. Pure.

use kigi_protocol::{ContentPart, Message};

/// Characters per token in the estimate (a common rule of thumb for English and code).
const CHARS_PER_TOKEN: usize = 4;

/// The estimated tokens of `text`.
pub fn estimate_text(text: &str) -> u64 {
    (text.chars().count().div_ceil(CHARS_PER_TOKEN)) as u64
}

/// The estimated tokens of messages.
pub fn estimate_messages(messages: &[Message]) -> u64 {
    messages.iter().map(estimate_message).sum()
}

fn estimate_message(message: &Message) -> u64 {
    // A few tokens of framing per message and per part.
    4 + message
        .content
        .iter()
        .map(|part| {
            4 + match part {
                ContentPart::Text { text } => estimate_text(text),
                ContentPart::Thinking { text, .. } => estimate_text(text),
                ContentPart::ToolCall(call) => {
                    estimate_text(&call.name) + estimate_text(&call.arguments)
                }
                ContentPart::ToolResult(result) => estimate_text(&result.content),
                // Providers count an image as roughly a thousand tokens.
                ContentPart::Image { .. } => 1_000,
            }
        })
        .sum::<u64>()
}

/// What the provider said about the conversation at one point: its input tokens for the
/// request sent with the first `messages` messages, and its output tokens for the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextMark {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub messages: usize,
}

/// The tokens of the next request: from the last mark where there is one (the part since
/// estimated), otherwise all estimated (`fixed` is the system prompt and tool schemas).
pub fn next_request_tokens(mark: Option<ContextMark>, messages: &[Message], fixed: u64) -> u64 {
    match mark {
        Some(mark) if mark.input_tokens > 0 && mark.messages <= messages.len() => {
            // The answer to that request is among the messages after the mark; its output
            // tokens stand for it.
            let since = messages.get(mark.messages + 1..).unwrap_or_default();
            mark.input_tokens + mark.output_tokens + estimate_messages(since)
        }
        _ => fixed + estimate_messages(messages),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_providers_count_is_used_where_it_exists_and_an_estimate_elsewhere() {
        let messages = vec![
            Message::user("a".repeat(400)),
            Message::assistant("ok"),
            Message::user("b".repeat(40)),
        ];
        let estimated = next_request_tokens(None, &messages, 100);
        assert_eq!(estimated, 100 + estimate_messages(&messages));
        let mark = ContextMark {
            input_tokens: 5_000,
            output_tokens: 7,
            messages: 1,
        };
        assert_eq!(
            next_request_tokens(Some(mark), &messages, 100),
            5_000 + 7 + estimate_messages(&messages[2..])
        );
        assert_eq!(estimate_text("abcdefgh"), 2);
    }
}
