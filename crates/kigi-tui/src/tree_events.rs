//! What the agent tree's events do to the transcript: a child's own session events (into
//! its transcript), children started, moved to the background and finished, the swarms that
//! group them counted and summed up, and background commands started and ended.
//!
//! The rule: a child is never dropped when it ends (the tasks pane and its frame still show
//! it); a swarm member's end is counted in its swarm's one block, not printed on its own.

use std::time::{Duration, Instant};

use kigi_protocol::{HostNotice, SessionEvent};

use crate::background_commands::{BackgroundCommand, CommandEnd};
use crate::children::{Child, ChildFinish, MemberEnd, format_elapsed, member_number};
use crate::history_cell::HistoryCell;
use crate::lifecycle_view::{Lifecycle, LifecycleMark, finished_cell};
use crate::transcript::Transcript;

impl Transcript {
    /// One event of a child's own session: counted, and added to its transcript.
    pub(crate) fn apply_child(&mut self, agent_id: &str, event: &SessionEvent, now: Instant) {
        if let SessionEvent::Usage {
            input_tokens,
            output_tokens,
            ..
        } = event
        {
            self.count(*input_tokens, *output_tokens);
        }
        if let Some(child) = self.children.iter_mut().find(|c| c.id == agent_id) {
            if let SessionEvent::Usage {
                input_tokens,
                output_tokens,
                ..
            } = event
            {
                child.tokens += input_tokens + output_tokens;
            }
            child.transcript.apply_session(event, now);
        }
    }

    /// One host notice (approval notices are the caller's, but for a child's activity).
    pub(crate) fn apply_notice(&mut self, agent_id: &str, notice: &HostNotice, now: Instant) {
        match notice {
            HostNotice::SubagentStarted {
                description,
                agent_type,
                persona,
                model,
                model_source,
                background,
                resumed,
                ..
            } => {
                let swarm = self.swarms.iter_mut().find_map(|s| {
                    let number = s.member_number(description).filter(|_| !*background)?;
                    Some((s, number))
                });
                let swarm = swarm.map(|(s, number)| {
                    s.members.push(agent_id.to_owned());
                    s.member_started(number);
                    s.call_id.clone()
                });
                let child = Child {
                    id: agent_id.to_owned(),
                    description: description.clone(),
                    agent_type: agent_type.clone(),
                    persona: persona.clone(),
                    model: model.clone(),
                    model_source: model_source.clone(),
                    background: *background,
                    resumed: *resumed,
                    activity: "Starting".to_owned(),
                    started: now,
                    tokens: 0,
                    finish: None,
                    swarm,
                    transcript: Transcript::default(),
                    earlier: false,
                    spawn_call: None,
                };
                if child.background {
                    self.cells.push(HistoryCell::Lifecycle(Lifecycle {
                        mark: LifecycleMark::Started,
                        text: format!(
                            "Subagent started: \"{description}\" ({} · {agent_id})",
                            child.label()
                        ),
                        detail: format!("{model} from {model_source}"),
                    }));
                }
                self.children.push(child);
            }
            HostNotice::SubagentActivity { label } => {
                if let Some(child) = self.children.iter_mut().find(|c| c.id == agent_id) {
                    child.activity.clone_from(label);
                }
            }
            HostNotice::SubagentFinished {
                status,
                error,
                tool_calls,
                elapsed_ms,
                ..
            } => {
                let Some(child) = self.children.iter_mut().find(|c| c.id == agent_id) else {
                    return;
                };
                let finish = ChildFinish {
                    end: *status,
                    error: error.clone(),
                    tool_calls: *tool_calls,
                    elapsed: Duration::from_millis(*elapsed_ms),
                };
                let cell = finished_cell(child, &finish);
                let member_end = MemberEnd::of(&finish);
                child.activity = finish.label().to_owned();
                child.finish = Some(finish);
                match &child.swarm {
                    Some(call_id) => {
                        let swarm = self.swarms.iter_mut().find(|s| &s.call_id == call_id);
                        if let Some(swarm) = swarm
                            && let Some(number) =
                                member_number(&swarm.description, &child.description)
                        {
                            swarm.count(number, member_end);
                        }
                    }
                    None => self.cells.push(HistoryCell::Lifecycle(cell)),
                }
            }
            HostNotice::ApprovalRequested { .. } => {
                if let Some(child) = self.children.iter_mut().find(|c| c.id == agent_id) {
                    "Waiting for approval".clone_into(&mut child.activity);
                }
            }
            HostNotice::SubagentMovedToBackground {} => {
                if let Some(child) = self.children.iter_mut().find(|c| c.id == agent_id) {
                    child.background = true;
                    self.cells.push(HistoryCell::Lifecycle(Lifecycle {
                        mark: LifecycleMark::Started,
                        text: format!(
                            "Subagent moved to the background: \"{}\" ({} · {agent_id})",
                            child.description,
                            child.label()
                        ),
                        detail: "it goes on; its end is reported here".to_owned(),
                    }));
                }
            }
            HostNotice::BackgroundCommandStarted { task_id, command } => {
                self.commands.push(BackgroundCommand {
                    task_id: task_id.clone(),
                    agent_id: agent_id.to_owned(),
                    command: command.clone(),
                    started: now,
                    finish: None,
                });
            }
            HostNotice::BackgroundCommandFinished {
                task_id,
                status,
                exit_code,
            } => {
                if let Some(command) = self
                    .commands
                    .iter_mut()
                    .find(|c| &c.task_id == task_id && c.running())
                {
                    let elapsed = now.saturating_duration_since(command.started);
                    command.finish = Some((CommandEnd::from_status(*status, *exit_code), elapsed));
                }
            }
            HostNotice::ModelChanged { model, .. } => {
                if agent_id == kigi_protocol::MAIN_AGENT_ID {
                    self.model = Some(model.clone());
                }
            }
            HostNotice::ApprovalResolved { .. } => {}
        }
    }

    /// The parent's call `call_id` ended while its conversation is replayed: the blocks of
    /// the earlier children it started (outside swarms) follow it, as they did live.
    pub(crate) fn print_earlier_children(&mut self, call_id: &str) {
        let started = self
            .children
            .iter()
            .filter(|c| c.earlier && c.swarm.is_none() && c.spawn_call.as_deref() == Some(call_id));
        for child in started {
            if let Some(finish) = &child.finish {
                self.cells
                    .push(HistoryCell::Lifecycle(finished_cell(child, finish)));
            }
        }
    }

    /// The swarm of `call_id` ended: its one block is printed (with the members known only
    /// from their transcripts on disk counted, when a resumed session replays it).
    pub(crate) fn finish_swarm(&mut self, call_id: &str, now: Instant) {
        let Some(swarm) = self.swarms.iter_mut().find(|s| s.call_id == call_id) else {
            return;
        };
        let mut from_disk = false;
        for child in &self.children {
            if child.swarm.as_deref() == Some(call_id) && !swarm.members.contains(&child.id) {
                from_disk |= child.earlier;
                swarm.members.push(child.id.clone());
                if let (Some(finish), Some(number)) = (
                    &child.finish,
                    member_number(&swarm.description, &child.description),
                ) {
                    swarm.count(number, MemberEnd::of(finish));
                }
            }
        }
        let elapsed = now.saturating_duration_since(swarm.started);
        swarm.elapsed = Some(elapsed);
        let mark = if swarm.had_failures() {
            LifecycleMark::Failed
        } else if swarm.ended(MemberEnd::Cancelled) > 0 && swarm.ended(MemberEnd::Completed) == 0 {
            LifecycleMark::Cancelled
        } else {
            LifecycleMark::Completed
        };
        // A replayed swarm's time is not known here (its members' transcripts say theirs).
        let detail = if from_disk {
            "its members ran before the session was resumed".to_owned()
        } else {
            format!("in {}", format_elapsed(elapsed))
        };
        self.cells.push(HistoryCell::Lifecycle(Lifecycle {
            mark,
            text: swarm.summary(),
            detail,
        }));
    }
}
