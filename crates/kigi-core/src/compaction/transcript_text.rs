//! The older part of a conversation as plain text for the summarizer: who said what, which
//! tools were called with which arguments, what they returned; long results cut in the
//! middle, and the whole held to a budget so the summary request itself fits. Pure.

use kigi_protocol::{ContentPart, Message, Role};
use kigi_tools::clamp_head_tail;

/// Characters of one tool result kept in the text.
const RESULT_CHARS: usize = 4_000;

/// `messages` as text of at most `max_chars` characters (its middle cut when longer).
pub fn transcript_text(messages: &[Message], max_chars: usize) -> String {
    let mut out = String::new();
    for message in messages {
        for part in &message.content {
            let line = match (message.role, part) {
                (Role::User, ContentPart::Text { text }) => format!("[user]\n{text}\n"),
                (_, ContentPart::Text { text }) => format!("[assistant]\n{text}\n"),
                (_, ContentPart::ToolCall(call)) => {
                    format!("[tool call {}] {} {}\n", call.id, call.name, call.arguments)
                }
                (_, ContentPart::ToolResult(result)) => format!(
                    "[tool result {}{}]\n{}\n",
                    result.call_id,
                    if result.is_error { ", failed" } else { "" },
                    clamp_head_tail(&result.content, RESULT_CHARS)
                ),
                (_, ContentPart::Image { media_type, .. }) => format!("[image {media_type}]\n"),
                (_, ContentPart::Thinking { .. }) => continue,
            };
            out.push_str(&line);
        }
    }
    clamp_head_tail(&out, max_chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_calls_and_results_are_written_out_within_the_budget() {
        let messages = vec![Message::user("fix the bug"), Message::assistant("looking")];
        let text = transcript_text(&messages, 10_000);
        assert_eq!(text, "[user]\nfix the bug\n[assistant]\nlooking\n");
        let long = vec![Message::user("x".repeat(50_000))];
        assert!(transcript_text(&long, 1_000).chars().count() <= 1_100);
    }
}
