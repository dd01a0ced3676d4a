//! `session/load`: a stored transcript (`wire.jsonl`, legacy `_x.ai/session/update` records
//! included: the store reads both) replayed as the `session/update`s the editor would have
//! seen live.
//!
//! The rule: only the main agent's records replay as updates; a subagent's transcript is its
//! own file and shows through `_kigi/session/update` when it runs again.

use std::path::Path;

use agent_client_protocol::v1::schema::SessionUpdate;
use kigi_core::{MAIN_AGENT, StoredEvent};

use crate::update_translation::UpdateTranslator;

/// The updates `events` replay as, in order.
pub fn replay_updates(events: &[StoredEvent], cwd: &Path) -> Vec<SessionUpdate> {
    let mut translator = UpdateTranslator::new(cwd);
    events
        .iter()
        .filter(|stored| stored.agent_id == MAIN_AGENT)
        .flat_map(|stored| translator.replay(&stored.event))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use kigi_protocol::{SessionEvent, ToolStatus};

    fn stored(agent: &str, event: SessionEvent) -> StoredEvent {
        StoredEvent {
            session_id: "s".into(),
            agent_id: agent.into(),
            timestamp: "t".into(),
            event,
        }
    }

    #[test]
    fn replays_the_main_transcript_in_order() {
        let events = vec![
            stored(
                MAIN_AGENT,
                SessionEvent::UserMessage {
                    text: "list it".into(),
                },
            ),
            stored(
                MAIN_AGENT,
                SessionEvent::ToolCall {
                    call_id: "c1".into(),
                    name: "list_dir".into(),
                    raw_input: "{}".into(),
                    meta: None,
                },
            ),
            stored(
                "sub-1",
                SessionEvent::UserMessage {
                    text: "child".into(),
                },
            ),
            stored(
                MAIN_AGENT,
                SessionEvent::ToolResult {
                    call_id: "c1".into(),
                    name: "list_dir".into(),
                    status: ToolStatus::Completed,
                    output: "a.txt".into(),
                },
            ),
            stored(
                MAIN_AGENT,
                SessionEvent::AssistantMessage {
                    text: "one file".into(),
                    thinking: String::new(),
                    thinking_signature: None,
                    tool_calls: Vec::new(),
                },
            ),
        ];
        let kinds: Vec<String> = replay_updates(&events, Path::new("/repo"))
            .iter()
            .map(|u| {
                serde_json::to_value(u).unwrap()["sessionUpdate"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "user_message_chunk",
                "tool_call",
                "tool_call_update",
                "agent_message_chunk"
            ]
        );
    }
}
