//! Where a compacted conversation's kept part starts: the last few user turns, fewer (down to
//! the last steps of one long turn) when they alone would not fit the share of the window they
//! may keep. Pure.
//!
//! The rule: the split is always at an assistant message or at a person's prompt, never
//! between a tool call and its result, so the conversation stays valid to send.

use kigi_protocol::{ContentPart, Message, Role};

use super::context_estimate::estimate_messages;

/// True for a message a split may start at.
fn is_boundary(message: &Message) -> bool {
    match message.role {
        Role::Assistant => true,
        Role::User => !message
            .content
            .iter()
            .any(|part| matches!(part, ContentPart::ToolResult(_))),
    }
}

/// True for a person's prompt (a user message that is not tool results).
fn is_prompt(message: &Message) -> bool {
    message.role == Role::User && is_boundary(message)
}

/// The index where the kept part starts: at most `keep_turns` user turns, and no more than
/// `keep_tokens` tokens; `None` when nothing older could be summarized.
pub fn split_point(messages: &[Message], keep_turns: usize, keep_tokens: u64) -> Option<usize> {
    let mut turns_start = messages.len();
    let mut seen = 0;
    for (index, message) in messages.iter().enumerate().rev() {
        if is_prompt(message) {
            seen += 1;
            turns_start = index;
            if seen == keep_turns.max(1) {
                break;
            }
        }
    }
    // The earliest boundary at or after the turns' start whose tail fits the token share.
    let split = (turns_start..messages.len())
        .filter(|&index| is_boundary(&messages[index]))
        .find(|&index| estimate_messages(&messages[index..]) <= keep_tokens)
        .unwrap_or(messages.len());
    (split > 0).then_some(split)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kigi_protocol::{ToolCall, ToolResult};

    fn call(id: &str) -> Message {
        Message {
            role: Role::Assistant,
            content: vec![ContentPart::ToolCall(ToolCall {
                id: id.into(),
                name: "read_file".into(),
                arguments: "{}".into(),
            })],
        }
    }

    fn result(id: &str, size: usize) -> Message {
        Message {
            role: Role::User,
            content: vec![ContentPart::ToolResult(ToolResult {
                call_id: id.into(),
                content: "x".repeat(size),
                is_error: false,
            })],
        }
    }

    #[test]
    fn keeps_the_last_turns_and_never_splits_a_call_from_its_result() {
        let messages = vec![
            Message::user("first"),
            call("1"),
            result("1", 10),
            Message::assistant("one"),
            Message::user("second"),
            call("2"),
            result("2", 10),
            Message::assistant("two"),
        ];
        assert_eq!(split_point(&messages, 1, 10_000), Some(4));
        assert_eq!(
            split_point(&messages, 2, 10_000),
            None,
            "everything is kept"
        );
    }

    #[test]
    fn one_long_turn_keeps_only_its_last_steps_that_fit() {
        let mut messages = vec![Message::user("do it all")];
        for n in 0..10 {
            messages.push(call(&n.to_string()));
            messages.push(result(&n.to_string(), 4_000));
        }
        let split = split_point(&messages, 2, 3_000).unwrap();
        assert!(split > 1 && split < messages.len());
        assert_eq!(
            messages[split].role,
            Role::Assistant,
            "a call starts the kept part"
        );
        assert!(estimate_messages(&messages[split..]) <= 3_000);
    }
}
