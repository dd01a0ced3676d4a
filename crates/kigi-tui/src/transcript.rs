//! The conversation as the terminal shows it, built from host events only: finished cells
//! (printed once into the terminal's scrollback) and what is still live (the answer and
//! thinking streaming in, calls running, children at work).
//!
//! The rule: a cell, once finished, never changes; everything that can still change stays
//! live until its ending event arrives. A resumed session replays its stored events through
//! the same code ([`Transcript::replay_resumed`], with its earlier children read from disk:
//! `earlier_children`). How a cell is drawn is `history_cell`'s; what the agent tree's events
//! do here is `tree_events`'.

use std::time::Instant;

use kigi_protocol::{
    HookOutcome, HostEvent, HostEventBody, SessionEvent, ToolStatus, TurnEndReason,
};

use crate::attachments::describe_file;
use crate::background_commands::BackgroundCommand;
use crate::children::{Child, Swarm};
pub use crate::history_cell::HistoryCell;
use crate::todos::{TodoItem, parse_todo_write};
use crate::tool_view::ToolBlock;

/// Token counts of the whole tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenCount {
    pub input: u64,
    pub output: u64,
}

/// The conversation: finished cells and what is live.
#[derive(Debug, Default)]
pub struct Transcript {
    pub cells: Vec<HistoryCell>,
    /// The main agent's answer streaming in.
    pub streaming: String,
    /// The main agent's thinking streaming in.
    pub thinking: String,
    /// Calls running, in the order they started.
    pub running: Vec<ToolBlock>,
    /// Every child of the session, in the order they started (ended ones too).
    pub children: Vec<Child>,
    /// Every `agent_swarm` call of the session.
    pub swarms: Vec<Swarm>,
    /// Every background command of the session (ended ones too), in the order they started.
    pub commands: Vec<BackgroundCommand>,
    /// The list `todo_write` last set.
    pub todos: Vec<TodoItem>,
    /// `todo_write` calls waiting for their result, with the list each would set.
    pending_todos: Vec<(String, Vec<TodoItem>)>,
    pub tokens: TokenCount,
    /// The main agent's last request, in input tokens: how full its context is.
    pub context_tokens: u64,
    pub model: Option<String>,
    /// What the main agent does now, when it is not streaming (`Retrying (2)`, `Compacting`).
    pub activity: Option<String>,
    /// The part of the streaming answer already printed as cells (finished blocks).
    committed: String,
    /// The streaming answer's thinking was printed already.
    thinking_committed: bool,
}

impl Transcript {
    /// Forgets everything of the session but the printed cells (another session opens).
    pub fn restart(&mut self) {
        *self = Self {
            cells: std::mem::take(&mut self.cells),
            ..Self::default()
        };
    }

    /// Takes one host event (approval notices are the caller's).
    pub fn apply(&mut self, event: &HostEvent) {
        self.apply_at(event, Instant::now());
    }

    /// Takes one host event arriving at `now`.
    pub fn apply_at(&mut self, event: &HostEvent, now: Instant) {
        let main = event.is_main();
        match &event.body {
            HostEventBody::Session(session) if main => self.apply_session(session, now),
            HostEventBody::Session(session) => self.apply_child(&event.agent_id, session, now),
            HostEventBody::Notice(notice) => self.apply_notice(&event.agent_id, notice, now),
        }
    }

    /// The child `id`.
    pub fn child(&self, id: &str) -> Option<&Child> {
        self.children.iter().find(|c| c.id == id)
    }

    /// Children still running.
    pub fn running_children(&self) -> usize {
        self.children.iter().filter(|c| c.running()).count()
    }

    /// Background commands still running.
    pub fn running_commands(&self) -> usize {
        self.commands.iter().filter(|c| c.running()).count()
    }

    /// One agent's own session event (the main agent's here, a child's in its transcript).
    pub(crate) fn apply_session(&mut self, event: &SessionEvent, now: Instant) {
        match event {
            SessionEvent::SessionStart { model, .. } => self.model = Some(model.clone()),
            SessionEvent::UserMessage { text } => {
                self.cells.push(HistoryCell::User(text.clone()));
                self.activity = Some("Thinking".to_owned());
            }
            SessionEvent::UserAttachments { files, images } => {
                let mut items: Vec<String> = files.iter().map(describe_file).collect();
                items.extend(
                    images
                        .iter()
                        .map(|image| format!("an image ({})", image.media_type)),
                );
                if !items.is_empty() {
                    self.cells.push(HistoryCell::Attachments(items));
                }
            }
            SessionEvent::ThinkingDelta { text } => self.thinking.push_str(text),
            SessionEvent::TextDelta { text } => {
                self.activity = None;
                self.streaming.push_str(text);
                self.commit_finished_blocks();
            }
            SessionEvent::AssistantMessage { text, thinking, .. } => {
                if !self.thinking_committed {
                    let thinking = if thinking.is_empty() {
                        &self.thinking
                    } else {
                        thinking
                    };
                    if !thinking.trim().is_empty() {
                        self.cells.push(HistoryCell::Thinking(thinking.clone()));
                    }
                }
                // What streamed and was printed already is not printed again.
                let rest = if self.committed.is_empty() {
                    text.as_str()
                } else {
                    text.strip_prefix(self.committed.as_str())
                        .unwrap_or(self.streaming.as_str())
                };
                if !rest.trim().is_empty() {
                    self.cells.push(HistoryCell::Answer(rest.to_owned()));
                }
                self.streaming.clear();
                self.thinking.clear();
                self.committed.clear();
                self.thinking_committed = false;
            }
            SessionEvent::ToolCall {
                call_id,
                name,
                raw_input,
                meta,
            } => {
                self.activity = None;
                if name == "agent_swarm" {
                    self.swarms.push(Swarm::from_call(call_id, raw_input, now));
                } else if name == "todo_write"
                    && let Some(todos) = parse_todo_write(raw_input)
                {
                    self.pending_todos.push((call_id.clone(), todos));
                }
                self.running.push(ToolBlock::new(
                    call_id,
                    kigi_protocol::MAIN_AGENT_ID,
                    name,
                    raw_input,
                    meta.as_ref().map(|m| &m.tool),
                ));
            }
            SessionEvent::ToolResult {
                call_id,
                status,
                output,
                ..
            } => {
                if let Some(at) = self.pending_todos.iter().position(|(id, _)| id == call_id) {
                    let (_, todos) = self.pending_todos.remove(at);
                    if *status == ToolStatus::Completed {
                        self.todos = todos;
                    }
                }
                self.finish_call(call_id, *status, output);
                self.print_earlier_children(call_id);
                self.finish_swarm(call_id, now);
            }
            SessionEvent::Usage {
                input_tokens,
                output_tokens,
                ..
            } => {
                self.context_tokens = *input_tokens;
                self.count(*input_tokens, *output_tokens);
            }
            SessionEvent::Retrying {
                attempt, reason, ..
            } => self.activity = Some(format!("Retrying ({attempt}): {reason}")),
            SessionEvent::TurnEnd { reason, .. } => self.end_turn(*reason),
            SessionEvent::Error { code, message } => self
                .cells
                .push(HistoryCell::Error(format!("{message} ({code})"))),
            SessionEvent::CompactionStarted { .. } => {
                self.activity = Some("Compacting the conversation".to_owned());
            }
            SessionEvent::Compaction {
                tokens_before,
                tokens_after,
                ..
            } => {
                self.activity = None;
                self.cells.push(HistoryCell::Info(format!(
                    "Compacted the conversation: {tokens_before} → {tokens_after} tokens"
                )));
            }
            SessionEvent::HookRun {
                event,
                command,
                outcome,
                message,
                ..
            } if *outcome != HookOutcome::Ok => self.cells.push(HistoryCell::Warning(format!(
                "{event} hook `{command}`: {outcome:?} {message}"
            ))),
            _ => {}
        }
    }

    /// Prints the finished blocks of the streaming answer (up to its last blank line outside
    /// a code fence, before a block that starts at the margin), so a long answer reaches the
    /// scrollback as it streams instead of all at its end.
    fn commit_finished_blocks(&mut self) {
        let Some(split) = finished_prefix(&self.streaming) else {
            return;
        };
        if !self.thinking_committed {
            if !self.thinking.trim().is_empty() {
                self.cells
                    .push(HistoryCell::Thinking(self.thinking.clone()));
            }
            self.thinking_committed = true;
        }
        let done: String = self.streaming.drain(..split).collect();
        self.committed.push_str(&done);
        if !done.trim().is_empty() {
            self.cells
                .push(HistoryCell::Answer(done.trim_end().to_owned()));
        }
    }

    pub(crate) fn count(&mut self, input: u64, output: u64) {
        self.tokens.input += input;
        self.tokens.output += output;
    }

    fn finish_call(&mut self, call_id: &str, status: ToolStatus, output: &str) {
        let Some(at) = self.running.iter().position(|b| b.call_id == call_id) else {
            return;
        };
        let mut block = self.running.remove(at);
        block.status = Some(status);
        block.output = output.to_owned();
        self.cells.push(HistoryCell::Tool(block));
        if self.running.is_empty() {
            self.activity = Some("Thinking".to_owned());
        }
    }

    fn end_turn(&mut self, reason: TurnEndReason) {
        if !self.streaming.trim().is_empty() {
            let text = std::mem::take(&mut self.streaming);
            self.cells.push(HistoryCell::Answer(text));
        }
        self.streaming.clear();
        self.thinking.clear();
        for mut block in std::mem::take(&mut self.running) {
            block.status = Some(ToolStatus::Cancelled);
            self.cells.push(HistoryCell::Tool(block));
        }
        self.activity = None;
        match reason {
            TurnEndReason::Cancelled => self
                .cells
                .push(HistoryCell::Warning("■ Interrupted".to_owned())),
            TurnEndReason::MaxTurns => self.cells.push(HistoryCell::Warning(
                "The turn stopped at its maxTurns limit".to_owned(),
            )),
            TurnEndReason::Completed | TurnEndReason::Error => {}
        }
    }

    /// Whether something live animates (a spinner).
    pub fn animating(&self) -> bool {
        !self.running.is_empty()
            || self.activity.is_some()
            || self.children.iter().any(Child::running)
    }
}

/// The length of `text`'s finished blocks: up to the last blank line outside a code fence
/// that a block starting at the margin follows (not a list's continuation, not a table row).
fn finished_prefix(text: &str) -> Option<usize> {
    let mut in_fence = false;
    let mut offset = 0;
    let mut previous_blank = false;
    let mut split = None;
    for line in text.split_inclusive('\n') {
        let complete = line.ends_with('\n');
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            if !in_fence && previous_blank && line == trimmed && complete {
                split = Some(offset);
            }
            in_fence = !in_fence;
        } else if !in_fence
            && previous_blank
            && complete
            && !line.starts_with(char::is_whitespace)
            && !line.starts_with(['|', '-', '*', '+', '>'])
            && !line.starts_with(|c: char| c.is_ascii_digit())
        {
            split = Some(offset);
        }
        previous_blank = !in_fence && line.trim().is_empty() && complete;
        offset += line.len();
    }
    split
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn main(event: SessionEvent) -> HostEvent {
        HostEvent::main(HostEventBody::Session(event))
    }

    #[test]
    fn a_streamed_answer_becomes_one_cell_when_the_message_completes() {
        let mut t = Transcript::default();
        t.apply(&main(SessionEvent::TextDelta { text: "Hel".into() }));
        t.apply(&main(SessionEvent::TextDelta { text: "lo".into() }));
        assert_eq!(t.streaming, "Hello");
        assert!(t.cells.is_empty());
        t.apply(&main(SessionEvent::AssistantMessage {
            text: "Hello".into(),
            thinking: String::new(),
            thinking_signature: None,
            tool_calls: vec![],
        }));
        assert_eq!(t.cells, [HistoryCell::Answer("Hello".into())]);
        assert!(t.streaming.is_empty());
    }

    #[test]
    fn finished_blocks_of_a_streaming_answer_are_printed_as_they_complete() {
        let mut t = Transcript::default();
        t.apply(&main(SessionEvent::ThinkingDelta { text: "hmm".into() }));
        for delta in [
            "# Title\n\nFirst para",
            "graph.\n\n```\ncode\n\nmore\n",
            "```\n\nLast",
        ] {
            t.apply(&main(SessionEvent::TextDelta { text: delta.into() }));
        }
        assert_eq!(
            t.cells,
            [
                HistoryCell::Thinking("hmm".into()),
                HistoryCell::Answer("# Title\n\nFirst paragraph.".into()),
            ]
        );
        let full = "# Title\n\nFirst paragraph.\n\n```\ncode\n\nmore\n```\n\nLast";
        t.apply(&main(SessionEvent::AssistantMessage {
            text: full.into(),
            thinking: "hmm".into(),
            thinking_signature: None,
            tool_calls: vec![],
        }));
        assert_eq!(t.cells.len(), 3);
        assert_eq!(
            t.cells[2],
            HistoryCell::Answer("```\ncode\n\nmore\n```\n\nLast".into())
        );
    }

    #[test]
    fn an_interrupted_turn_keeps_what_streamed_and_cancels_running_calls() {
        let mut t = Transcript::default();
        t.apply(&main(SessionEvent::TextDelta {
            text: "partial".into(),
        }));
        t.apply(&main(SessionEvent::ToolCall {
            call_id: "c1".into(),
            name: "run_terminal_cmd".into(),
            raw_input: r#"{"command":"sleep 9"}"#.into(),
            meta: None,
        }));
        t.apply(&main(SessionEvent::TurnEnd {
            reason: TurnEndReason::Cancelled,
            steps: 1,
        }));
        assert_eq!(t.cells[0], HistoryCell::Answer("partial".into()));
        assert!(
            matches!(&t.cells[1], HistoryCell::Tool(b) if b.status == Some(ToolStatus::Cancelled))
        );
        assert_eq!(t.cells[2], HistoryCell::Warning("■ Interrupted".into()));
        assert!(!t.animating());
    }
}
