//! The host's events as an editor sees them: the main agent's become `session/update`s
//! (message and thought chunks, tool calls and their updates, plans), its subagents' become
//! `_kigi/session/update` notifications, and asks become permission requests.
//!
//! The rule: a pure function of the events (and of what earlier events said about a call),
//! so a live session and a replayed one look the same; nothing here sends or waits. How one
//! tool call and its end look is [`crate::tool_call_updates`]'s.

use std::collections::HashMap;
use std::path::PathBuf;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, EmbeddedResource, EmbeddedResourceResource, ImageContent,
    SessionUpdate, TextContent, TextResourceContents, ToolKind as AcpKind,
};
use kigi_protocol::{
    CanonicalToolMeta, HostEvent, HostEventBody, HostNotice, SessionEvent, ToolCallMeta, ToolStatus,
};
use serde_json::{Value, json};

use crate::terminal_bridge::TerminalLinks;
use crate::tool_call_updates::{CallEnd, CallRecord, tool_call, tool_result};
use crate::tool_call_view::{acp_kind, tool_title};

/// One thing to send for an event.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    /// A `session/update` of the main agent.
    Update(SessionUpdate),
    /// The params of a `_kigi/session/update` notification (a subagent's event), without
    /// the session id, which the sender adds.
    Extension(Value),
    /// A tool call waits for the person: a `session/request_permission`.
    Approval(ApprovalAsk),
}

/// An ask, with what the editor shows about the call.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalAsk {
    pub request_id: String,
    pub call_id: String,
    /// `main`, or the subagent asking.
    pub agent_id: String,
    pub title: String,
    pub kind: AcpKind,
    /// The command line, or the file and a unified diff.
    pub summary: String,
    pub tool: Option<CanonicalToolMeta>,
    pub raw_input: Option<Value>,
}

/// Translates one session's events, in order.
#[derive(Debug)]
pub struct UpdateTranslator {
    cwd: PathBuf,
    /// Calls seen and not finished, by agent and call id.
    calls: HashMap<(String, String), CallRecord>,
    /// Text deltas were sent since the last complete message (so it is not sent twice).
    streamed_text: bool,
    streamed_thinking: bool,
    /// The terminals calls ran in (the editor's), kept in their final update.
    terminals: Option<TerminalLinks>,
}

impl UpdateTranslator {
    /// A translator for a session in `cwd` (relative paths in calls are shown below it).
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            calls: HashMap::new(),
            streamed_text: false,
            streamed_thinking: false,
            terminals: None,
        }
    }

    /// The same, keeping the editor's terminal in the final update of a call that ran in one.
    pub(crate) fn with_terminals(mut self, terminals: TerminalLinks) -> Self {
        self.terminals = Some(terminals);
        self
    }

    /// What to send for one live event.
    pub fn translate(&mut self, event: &HostEvent) -> Vec<Outgoing> {
        if let HostEventBody::Notice(HostNotice::ApprovalRequested {
            request_id,
            call_id,
            name,
            tool,
            summary,
        }) = &event.body
        {
            let record = self
                .calls
                .get(&(event.agent_id.clone(), call_id.clone()))
                .cloned();
            let kind = tool
                .as_ref()
                .map(|t| t.kind)
                .or(record.as_ref().map(|r| r.kind));
            return vec![Outgoing::Approval(ApprovalAsk {
                request_id: request_id.clone(),
                call_id: call_id.clone(),
                agent_id: event.agent_id.clone(),
                title: record.as_ref().map_or_else(
                    || tool_title(name, tool.as_ref(), &Value::Null),
                    |r| r.title.clone(),
                ),
                kind: kind.map_or(AcpKind::Other, acp_kind),
                summary: summary.clone(),
                tool: tool.clone(),
                raw_input: record.map(|r| r.input),
            })];
        }
        if !event.is_main() {
            // Children's calls are remembered for their asks, and forwarded whole.
            if let HostEventBody::Session(session_event) = &event.body {
                self.remember(&event.agent_id, session_event);
            }
            return vec![Outgoing::Extension(json!({
                "agentId": event.agent_id,
                "parentId": event.parent_id,
                "update": event.body,
            }))];
        }
        match &event.body {
            HostEventBody::Session(session_event) => self
                .main_event(session_event, false)
                .into_iter()
                .map(Outgoing::Update)
                .collect(),
            HostEventBody::Notice(_) => Vec::new(),
        }
    }

    /// What a stored event of the main agent replays as (`session/load`): the user's
    /// messages too, and whole messages where the live stream had deltas.
    pub fn replay(&mut self, event: &SessionEvent) -> Vec<SessionUpdate> {
        self.main_event(event, true)
    }

    fn main_event(&mut self, event: &SessionEvent, replaying: bool) -> Vec<SessionUpdate> {
        match event {
            SessionEvent::UserMessage { text } if replaying => {
                vec![SessionUpdate::UserMessageChunk(chunk(text))]
            }
            SessionEvent::UserAttachments { files, images } if replaying => {
                let files = files.iter().map(|file| {
                    ContentBlock::Resource(EmbeddedResource::new(
                        EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                            file.text.as_str(),
                            file.source.as_str(),
                        )),
                    ))
                });
                let images = images.iter().map(|image| {
                    ContentBlock::Image(ImageContent::new(
                        image.data.as_str(),
                        image.media_type.as_str(),
                    ))
                });
                files
                    .chain(images)
                    .map(|block| SessionUpdate::UserMessageChunk(ContentChunk::new(block)))
                    .collect()
            }
            SessionEvent::TextDelta { text } => {
                self.streamed_text = true;
                vec![SessionUpdate::AgentMessageChunk(chunk(text))]
            }
            SessionEvent::ThinkingDelta { text } => {
                self.streamed_thinking = true;
                vec![SessionUpdate::AgentThoughtChunk(chunk(text))]
            }
            SessionEvent::AssistantMessage { text, thinking, .. } => {
                // A provider that did not stream (or a replay) still shows the whole message.
                let mut updates = Vec::new();
                if !self.streamed_thinking && !thinking.is_empty() {
                    updates.push(SessionUpdate::AgentThoughtChunk(chunk(thinking)));
                }
                if !self.streamed_text && !text.is_empty() {
                    updates.push(SessionUpdate::AgentMessageChunk(chunk(text)));
                }
                self.streamed_text = false;
                self.streamed_thinking = false;
                updates
            }
            SessionEvent::ToolCall {
                call_id,
                name,
                raw_input,
                meta,
            } => vec![self.tool_call(call_id, name, raw_input, meta.as_ref())],
            SessionEvent::ToolResult {
                call_id,
                status,
                output,
                ..
            } => self.tool_result(call_id, *status, output),
            _ => Vec::new(),
        }
    }

    /// Remembers a child's call (for the title of its ask) and forgets a finished one.
    fn remember(&mut self, agent_id: &str, event: &SessionEvent) {
        match event {
            SessionEvent::ToolCall {
                call_id,
                name,
                raw_input,
                meta,
            } => {
                let record = CallRecord::of(name, raw_input, meta.as_ref());
                self.calls
                    .insert((agent_id.to_owned(), call_id.clone()), record);
            }
            SessionEvent::ToolResult { call_id, .. } => {
                self.calls.remove(&(agent_id.to_owned(), call_id.clone()));
            }
            _ => {}
        }
    }

    fn tool_call(
        &mut self,
        call_id: &str,
        name: &str,
        raw_input: &str,
        meta: Option<&ToolCallMeta>,
    ) -> SessionUpdate {
        let record = CallRecord::of(name, raw_input, meta);
        let update = tool_call(call_id, &record, meta, &self.cwd);
        self.calls.insert(
            (kigi_protocol::MAIN_AGENT_ID.to_owned(), call_id.to_owned()),
            record,
        );
        update
    }

    fn tool_result(
        &mut self,
        call_id: &str,
        status: ToolStatus,
        output: &str,
    ) -> Vec<SessionUpdate> {
        let record = self
            .calls
            .remove(&(kigi_protocol::MAIN_AGENT_ID.to_owned(), call_id.to_owned()));
        let terminal = self.terminals.as_ref().and_then(|t| t.take(call_id));
        let ended = CallEnd {
            call_id,
            status,
            output,
            terminal,
        };
        tool_result(&ended, record.as_ref(), &self.cwd)
    }
}

fn chunk(text: &str) -> ContentChunk {
    ContentChunk::new(ContentBlock::Text(TextContent::new(text)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::tool_call_updates::TOOL_STATUS_META_KEY;
    use kigi_protocol::{MAIN_AGENT_ID, ToolKind, ToolNamespace};

    fn main(event: SessionEvent) -> HostEvent {
        HostEvent::main(HostEventBody::Session(event))
    }

    fn meta(name: &str, kind: ToolKind, label: &str) -> ToolCallMeta {
        ToolCallMeta {
            tool: CanonicalToolMeta {
                version: 1,
                name: name.into(),
                kind,
                namespace: ToolNamespace::Kigi,
                label: label.into(),
                read_only: false,
                input: Some(json!({"path": "notes.txt"})),
                server: None,
            },
        }
    }

    fn wire(outgoing: &[Outgoing]) -> Vec<Value> {
        outgoing
            .iter()
            .map(|o| match o {
                Outgoing::Update(update) => serde_json::to_value(update).unwrap(),
                Outgoing::Extension(params) => params.clone(),
                Outgoing::Approval(ask) => json!({"ask": ask.request_id}),
            })
            .collect()
    }

    #[test]
    fn deltas_stream_and_the_whole_message_is_not_sent_again() {
        let mut t = UpdateTranslator::new("/repo");
        let mut out = t.translate(&main(SessionEvent::ThinkingDelta { text: "hm".into() }));
        out.extend(t.translate(&main(SessionEvent::TextDelta { text: "Hel".into() })));
        out.extend(t.translate(&main(SessionEvent::TextDelta { text: "lo".into() })));
        out.extend(t.translate(&main(SessionEvent::AssistantMessage {
            text: "Hello".into(),
            thinking: "hm".into(),
            thinking_signature: None,
            tool_calls: Vec::new(),
        })));
        assert_eq!(
            wire(&out),
            [
                json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hm"}}),
                json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hel"}}),
                json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "lo"}}),
            ]
        );
        // A message that was not streamed is sent whole.
        let whole = t.translate(&main(SessionEvent::AssistantMessage {
            text: "Bye".into(),
            thinking: String::new(),
            thinking_signature: None,
            tool_calls: Vec::new(),
        }));
        assert_eq!(
            wire(&whole),
            [
                json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Bye"}})
            ]
        );
    }

    #[test]
    fn a_tool_call_carries_kind_title_location_input_and_the_kigi_tool_envelope() {
        let mut t = UpdateTranslator::new("/repo");
        let out = t.translate(&main(SessionEvent::ToolCall {
            call_id: "c1".into(),
            name: "write_file".into(),
            raw_input: r#"{"path":"notes.txt","content":"hi"}"#.into(),
            meta: Some(meta("write_file", ToolKind::Write, "Write")),
        }));
        assert_eq!(
            wire(&out),
            [json!({
                "sessionUpdate": "tool_call",
                "toolCallId": "c1",
                "title": "Write notes.txt",
                "kind": "edit",
                "locations": [{"path": "/repo/notes.txt"}],
                "rawInput": {"path": "notes.txt", "content": "hi"},
                "_meta": {"kigi/tool": {"version": 1, "name": "write_file", "kind": "write",
                    "namespace": "kigi", "label": "Write", "read_only": false,
                    "input": {"path": "notes.txt"}}},
            })]
        );
        let done = t.translate(&main(SessionEvent::ToolResult {
            call_id: "c1".into(),
            name: "write_file".into(),
            status: ToolStatus::Completed,
            output: "created notes.txt (2 bytes)".into(),
        }));
        assert_eq!(
            wire(&done),
            [json!({
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c1",
                "status": "completed",
                "content": [
                    {"type": "diff", "path": "/repo/notes.txt", "newText": "hi"},
                    {"type": "content", "content": {"type": "text", "text": "created notes.txt (2 bytes)"}},
                ],
            })]
        );
    }

    #[test]
    fn a_refused_call_fails_and_says_why_in_meta() {
        let mut t = UpdateTranslator::new("/repo");
        t.translate(&main(SessionEvent::ToolCall {
            call_id: "c2".into(),
            name: "run_terminal_cmd".into(),
            raw_input: r#"{"command":"rm -rf x"}"#.into(),
            meta: None,
        }));
        let out = t.translate(&main(SessionEvent::ToolResult {
            call_id: "c2".into(),
            name: "run_terminal_cmd".into(),
            status: ToolStatus::Refused,
            output: "denied".into(),
        }));
        let json = &wire(&out)[0];
        assert_eq!(json["status"], "failed");
        assert_eq!(json["_meta"][TOOL_STATUS_META_KEY], "refused");
    }

    #[test]
    fn todo_write_results_become_a_plan() {
        let mut t = UpdateTranslator::new("/repo");
        t.translate(&main(SessionEvent::ToolCall {
            call_id: "t".into(),
            name: "todo_write".into(),
            raw_input: r#"{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"}]}"#.into(),
            meta: Some(meta("todo_write", ToolKind::Plan, "TodoWrite")),
        }));
        let out = t.translate(&main(SessionEvent::ToolResult {
            call_id: "t".into(),
            name: "todo_write".into(),
            status: ToolStatus::Completed,
            output: "[x] a\n[~] b".into(),
        }));
        assert_eq!(
            wire(&out)[1],
            json!({"sessionUpdate": "plan", "entries": [
                {"content": "a", "priority": "medium", "status": "completed"},
                {"content": "b", "priority": "medium", "status": "in_progress"},
            ]})
        );
    }

    #[test]
    fn a_child_event_becomes_a_kigi_session_update_and_its_ask_a_permission_request() {
        let mut t = UpdateTranslator::new("/repo");
        let child = |body| HostEvent {
            agent_id: "sub-1".into(),
            parent_id: Some(MAIN_AGENT_ID.into()),
            body,
        };
        let out = t.translate(&child(HostEventBody::Session(SessionEvent::ToolCall {
            call_id: "c1".into(),
            name: "run_terminal_cmd".into(),
            raw_input: r#"{"command":"make"}"#.into(),
            meta: None,
        })));
        assert_eq!(
            wire(&out),
            [json!({"agentId": "sub-1", "parentId": "main", "update": {
                "type": "tool_call", "call_id": "c1", "name": "run_terminal_cmd",
                "raw_input": "{\"command\":\"make\"}"}})]
        );
        let ask = t.translate(&child(HostEventBody::Notice(
            HostNotice::ApprovalRequested {
                request_id: "approval-1".into(),
                call_id: "c1".into(),
                name: "run_terminal_cmd".into(),
                tool: None,
                summary: "make".into(),
            },
        )));
        let [Outgoing::Approval(ask)] = ask.as_slice() else {
            panic!("{ask:?}")
        };
        assert_eq!(
            (ask.agent_id.as_str(), ask.title.as_str()),
            ("sub-1", "run_terminal_cmd make")
        );
        assert_eq!(ask.raw_input, Some(json!({"command": "make"})));
    }

    #[test]
    fn a_replay_shows_the_user_and_whole_messages() {
        let mut t = UpdateTranslator::new("/repo");
        let mut out = t.replay(&SessionEvent::UserMessage { text: "hi".into() });
        out.extend(t.replay(&SessionEvent::AssistantMessage {
            text: "hello".into(),
            thinking: String::new(),
            thinking_signature: None,
            tool_calls: Vec::new(),
        }));
        let json: Vec<Value> = out
            .iter()
            .map(|u| serde_json::to_value(u).unwrap())
            .collect();
        assert_eq!(json[0]["sessionUpdate"], "user_message_chunk");
        assert_eq!(json[1]["content"]["text"], "hello");
        let record = CallRecord::of("read_file", "not json", None);
        assert_eq!(record.input, json!("not json"));
    }

    #[test]
    fn a_replay_shows_the_users_attachments_as_resources_and_images() {
        let mut t = UpdateTranslator::new("/repo");
        let out = t.replay(&SessionEvent::UserAttachments {
            files: vec![kigi_protocol::AttachedText {
                source: "notes.md".into(),
                text: "unsaved".into(),
            }],
            images: vec![kigi_protocol::ImagePart {
                media_type: "image/png".into(),
                data: "AAAA".into(),
            }],
        });
        let json: Vec<Value> = out
            .iter()
            .map(|u| serde_json::to_value(u).unwrap())
            .collect();
        assert_eq!(
            json,
            [
                json!({"sessionUpdate": "user_message_chunk", "content": {"type": "resource",
                    "resource": {"uri": "notes.md", "text": "unsaved"}}}),
                json!({"sessionUpdate": "user_message_chunk", "content": {"type": "image",
                    "mimeType": "image/png", "data": "AAAA"}}),
            ]
        );
        // Live, the editor already shows what it sent.
        let live = t.translate(&HostEvent {
            agent_id: kigi_protocol::MAIN_AGENT_ID.into(),
            parent_id: None,
            body: HostEventBody::Session(SessionEvent::UserAttachments {
                files: Vec::new(),
                images: Vec::new(),
            }),
        });
        assert!(live.is_empty());
    }
}
