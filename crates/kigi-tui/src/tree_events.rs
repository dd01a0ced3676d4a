//! What the agent tree's events do to the transcript: a child's own session events (into
//! its transcript), children started, moved to the background and finished, the swarms that
//! group them counted and summed up, and background commands started and ended.
//!
//! The rule: a child is never dropped when it ends (the tasks pane and its frame still show
//! it); a swarm member's end is counted in its swarm's one block, not printed on its own.

use std::time::{Duration, Instant};

use kigi_protocol::{HostNotice, SessionEvent};

use crate::background_commands::{BackgroundCommand, CommandEnd};
use crate::children::{Child, ChildEnd, ChildFinish, format_elapsed};
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
                let swarm = self
                    .swarms
                    .iter_mut()
                    .find(|s| !*background && s.names_member(description));
                let swarm = swarm.map(|s| {
                    s.members.push(agent_id.to_owned());
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
                    end: ChildEnd::parse(status),
                    error: error.clone(),
                    tool_calls: *tool_calls,
                    elapsed: Duration::from_millis(*elapsed_ms),
                };
                let cell = finished_cell(child, &finish);
                let end = finish.end;
                child.finish = Some(finish);
                child.activity = end.as_str().to_owned();
                match child.swarm.clone() {
                    Some(call_id) => {
                        if let Some(swarm) = self.swarms.iter_mut().find(|s| s.call_id == call_id) {
                            swarm.count(end);
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

    /// The swarm of `call_id` ended: its one block is printed.
    pub(crate) fn finish_swarm(&mut self, call_id: &str, now: Instant) {
        let Some(swarm) = self.swarms.iter_mut().find(|s| s.call_id == call_id) else {
            return;
        };
        let elapsed = now.saturating_duration_since(swarm.started);
        swarm.elapsed = Some(elapsed);
        let mark = if swarm.failed > 0 {
            LifecycleMark::Failed
        } else if swarm.cancelled > 0 && swarm.completed == 0 {
            LifecycleMark::Cancelled
        } else {
            LifecycleMark::Completed
        };
        self.cells.push(HistoryCell::Lifecycle(Lifecycle {
            mark,
            text: swarm.summary(),
            detail: format!("in {}", format_elapsed(elapsed)),
        }));
    }
}
