//! Rebuilding the conversation from a session's events, to resume it.
//!
//! The rule: the rebuilt conversation is always valid to send. A tool call whose result never
//! reached the file (a crash or a cancel mid-tools) gets a result saying it did not finish.

use kigi_protocol::{ContentPart, Message, Role, SessionEvent, ToolResult, ToolStatus};
use kigi_tools::{MODEL_OUTPUT_CHARS, clamp_head_tail};

/// What a missing result says.
pub const UNFINISHED_CALL: &str = "not finished: the session stopped before this call returned";

/// The messages `events` describe.
pub fn messages_from<'a>(events: impl IntoIterator<Item = &'a SessionEvent>) -> Vec<Message> {
    let mut messages: Vec<Message> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for event in events {
        match event {
            SessionEvent::UserMessage { text } | SessionEvent::Reminder { text, .. } => {
                close_pending(&mut messages, &mut pending);
                messages.push(Message::user(text.clone()));
            }
            SessionEvent::AssistantMessage {
                text,
                thinking,
                thinking_signature,
                tool_calls,
            } => {
                close_pending(&mut messages, &mut pending);
                let mut content = Vec::new();
                if !thinking.is_empty() {
                    content.push(ContentPart::Thinking {
                        text: thinking.clone(),
                        signature: thinking_signature.clone(),
                    });
                }
                if !text.is_empty() {
                    content.push(ContentPart::Text { text: text.clone() });
                }
                for call in tool_calls {
                    pending.push(call.id.clone());
                    content.push(ContentPart::ToolCall(call.clone()));
                }
                messages.push(Message {
                    role: Role::Assistant,
                    content,
                });
            }
            SessionEvent::ToolResult {
                call_id,
                status,
                output,
                ..
            } => {
                pending.retain(|id| id != call_id);
                push_result(
                    &mut messages,
                    ToolResult {
                        call_id: call_id.clone(),
                        content: clamp_head_tail(output, MODEL_OUTPUT_CHARS),
                        is_error: *status != ToolStatus::Completed,
                    },
                );
            }
            SessionEvent::UserAttachments { files, images } => {
                let parts = crate::attachments::attachment_parts(files, images);
                match messages.last_mut() {
                    Some(last) if last.role == Role::User && pending.is_empty() => {
                        last.content.extend(parts);
                    }
                    _ => messages.push(Message {
                        role: Role::User,
                        content: parts,
                    }),
                }
            }
            event @ SessionEvent::ToolImages { .. } => {
                close_pending(&mut messages, &mut pending);
                messages.extend(image_message(event));
            }
            SessionEvent::Compaction {
                summary,
                kept_messages,
                ..
            } => {
                close_pending(&mut messages, &mut pending);
                let keep = (*kept_messages as usize).min(messages.len());
                let kept = messages.split_off(messages.len() - keep);
                messages.clear();
                messages.push(crate::compaction::summary_message(summary));
                messages.extend(kept);
            }
            _ => {}
        }
    }
    close_pending(&mut messages, &mut pending);
    messages
}

/// The user message that carries a tool's images to the model.
pub fn image_message(event: &SessionEvent) -> Option<Message> {
    let SessionEvent::ToolImages { name, images, .. } = event else {
        return None;
    };
    let mut content = vec![ContentPart::Text {
        text: format!("Images from `{name}`:"),
    }];
    content.extend(images.iter().map(|image| ContentPart::Image {
        media_type: image.media_type.clone(),
        data: image.data.clone(),
    }));
    Some(Message {
        role: Role::User,
        content,
    })
}

/// Adds a result to the trailing tool-results message, or starts one.
pub fn push_result(messages: &mut Vec<Message>, result: ToolResult) {
    let part = ContentPart::ToolResult(result);
    match messages.last_mut() {
        Some(last)
            if last.role == Role::User
                && !last.content.is_empty()
                && last
                    .content
                    .iter()
                    .all(|p| matches!(p, ContentPart::ToolResult(_))) =>
        {
            last.content.push(part);
        }
        _ => messages.push(Message {
            role: Role::User,
            content: vec![part],
        }),
    }
}

fn close_pending(messages: &mut Vec<Message>, pending: &mut Vec<String>) {
    for call_id in pending.drain(..) {
        push_result(
            messages,
            ToolResult {
                call_id,
                content: UNFINISHED_CALL.into(),
                is_error: true,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kigi_protocol::ToolCall;

    #[test]
    fn a_call_without_a_result_gets_one_saying_it_did_not_finish() {
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments: "{}".into(),
        };
        let events = vec![
            SessionEvent::UserMessage { text: "go".into() },
            SessionEvent::AssistantMessage {
                text: String::new(),
                thinking: String::new(),
                thinking_signature: None,
                tool_calls: vec![call("a"), call("b")],
            },
            SessionEvent::ToolResult {
                call_id: "a".into(),
                name: "read_file".into(),
                status: ToolStatus::Completed,
                output: "data".into(),
            },
        ];
        let messages = messages_from(&events);
        assert_eq!(messages.len(), 3);
        assert_eq!(
            messages[2].content,
            vec![
                ContentPart::ToolResult(ToolResult {
                    call_id: "a".into(),
                    content: "data".into(),
                    is_error: false
                }),
                ContentPart::ToolResult(ToolResult {
                    call_id: "b".into(),
                    content: UNFINISHED_CALL.into(),
                    is_error: true
                }),
            ]
        );
    }
}
