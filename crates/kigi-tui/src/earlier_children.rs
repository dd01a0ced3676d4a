//! The children of a resumed session's earlier runs, rebuilt from what is on disk: each
//! child's own transcript (`agents/<id>/wire.jsonl`, read by `child_transcript_files`) for
//! its conversation, model, tokens and how its last turn ended, and the parent's calls that
//! started it for its description, persona and swarm.
//!
//! The rule: pure, and every child built here is finished: the run it belonged to is over.
//! A transcript that stops mid-turn (kigi stopped while the child ran) reads as cancelled,
//! never as running; what cannot be matched to a parent's call is described by its own
//! prompt, never left out.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use kigi_core::StoredEvent;
use kigi_protocol::{SessionEvent, TurnEndReason};
use serde_json::Value;

use crate::children::{Child, ChildFinish, ChildStatus, Swarm, compact_count};
use crate::history_cell::HistoryCell;
use crate::transcript::Transcript;

/// One child's transcript as read from disk.
#[derive(Debug, Clone, Default)]
pub struct StoredChild {
    /// `sub-3`.
    pub id: String,
    /// Its records, in file order.
    pub records: Vec<StoredEvent>,
    /// Bytes in the middle of the file that were not read (it is over the size cap).
    pub skipped_bytes: u64,
    /// Lines that did not parse as records.
    pub unreadable_lines: usize,
}

/// What the parent's transcript says of a child it started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Spawned {
    call_id: String,
    description: String,
    persona: Option<String>,
    background: bool,
    /// The `agent_swarm` call it was a member of.
    swarm: Option<String>,
}

/// The finished children of `stored`, described by the parent's conversation `parent` where
/// it names them; `now` stands for when they started (only their run times are known).
pub fn earlier_children(
    parent: &[SessionEvent],
    stored: Vec<StoredChild>,
    now: Instant,
) -> Vec<Child> {
    let spawned = spawned_children(parent, now);
    stored
        .into_iter()
        .map(|child| {
            let found = spawned.get(&child.id).cloned();
            earlier_child(child, found, now)
        })
        .collect()
}

/// The children the parent's `spawn_subagent` and `agent_swarm` calls started, by id (the
/// call's result names it: `subagent sub-1 [explore] …`, `Subagent sub-2 started …`, a
/// swarm's `#3 item sub-5: completed` lines).
fn spawned_children(parent: &[SessionEvent], now: Instant) -> HashMap<String, Spawned> {
    let mut calls: HashMap<&str, (&str, &str)> = HashMap::new();
    let mut found = HashMap::new();
    for event in parent {
        match event {
            SessionEvent::ToolCall {
                call_id,
                name,
                raw_input,
                ..
            } if name == "spawn_subagent" || name == "agent_swarm" => {
                calls.insert(call_id, (name, raw_input));
            }
            SessionEvent::ToolResult {
                call_id, output, ..
            } => {
                let Some((name, raw_input)) = calls.remove(call_id.as_str()) else {
                    continue;
                };
                let args: Value = serde_json::from_str(raw_input).unwrap_or(Value::Null);
                let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_owned);
                if name == "spawn_subagent" {
                    if let Some(id) = spawned_id(output) {
                        found.insert(
                            id,
                            Spawned {
                                call_id: call_id.clone(),
                                description: text("description").unwrap_or_default(),
                                persona: text("persona"),
                                background: args.get("background").and_then(Value::as_bool)
                                    == Some(true),
                                swarm: None,
                            },
                        );
                    }
                } else {
                    let swarm = Swarm::from_call(call_id, raw_input, now);
                    for (number, id) in swarm_members(output) {
                        found.insert(
                            id,
                            Spawned {
                                call_id: call_id.clone(),
                                description: format!("{} #{number}", swarm.description),
                                persona: None,
                                background: false,
                                swarm: Some(call_id.clone()),
                            },
                        );
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// The first `sub-N` a spawn's result names after `ubagent ` (`subagent sub-1 …`,
/// `Subagent sub-2 started …`).
fn spawned_id(output: &str) -> Option<String> {
    let at = output.find("ubagent sub-")? + "ubagent ".len();
    subagent_id_at(&output[at..])
}

/// `sub-N` at the start of `text`.
fn subagent_id_at(text: &str) -> Option<String> {
    let digits: String = text
        .strip_prefix("sub-")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    (!digits.is_empty()).then(|| format!("sub-{digits}"))
}

/// A swarm report's members: `(N, id)` of each `#N <item> <id>: <outcome>` line.
fn swarm_members(output: &str) -> Vec<(usize, String)> {
    output
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix('#')?;
            let number: usize = rest.split(' ').next()?.parse().ok()?;
            // The item may hold anything: the id is the last ` sub-N:` of the line.
            let mut end = line.len();
            while let Some(at) = line[..end].rfind(" sub-") {
                if let Some(id) = subagent_id_at(&line[at + 1..])
                    && line[at + 1 + id.len()..].starts_with(':')
                {
                    return Some((number, id));
                }
                end = at;
            }
            None
        })
        .collect()
}

impl Transcript {
    /// Replays a resumed session's stored conversation `parent` with the children of its
    /// earlier runs rebuilt from `stored`: each child's block follows the call that started
    /// it, a swarm's block counts its members, and every child is listed and can be opened.
    /// Returns how many children there were.
    pub fn replay_resumed(
        &mut self,
        parent: &[SessionEvent],
        stored: Vec<StoredChild>,
        now: Instant,
    ) -> usize {
        let earlier = earlier_children(parent, stored, now);
        let count = earlier.len();
        // In before the replay, so the replayed calls find them.
        self.children.extend(earlier);
        for event in parent {
            self.apply_session(event, now);
        }
        count
    }
}

/// One child rebuilt from its records.
fn earlier_child(stored: StoredChild, spawned: Option<Spawned>, now: Instant) -> Child {
    let mut transcript = Transcript::default();
    if stored.skipped_bytes > 0 {
        transcript.cells.push(HistoryCell::Info(format!(
            "… {} bytes of its transcript are not shown here (`kigi sessions show <session> --agent {}` shows it all)",
            compact_count(stored.skipped_bytes),
            stored.id
        )));
    }
    let mut agent_type = String::new();
    let mut model = String::new();
    let mut prompt = String::new();
    let mut tokens = 0;
    let mut tool_calls = 0;
    let mut error: Option<String> = None;
    let mut ended: Option<TurnEndReason> = None;
    for record in &stored.records {
        match &record.event {
            SessionEvent::SessionStart {
                agent, model: m, ..
            } => {
                if agent_type.is_empty() {
                    agent_type.clone_from(agent);
                }
                model.clone_from(m);
            }
            SessionEvent::UserMessage { text } => {
                if prompt.is_empty() {
                    prompt.clone_from(text);
                }
                // Sent more input: a new turn, whose end is what counts.
                ended = None;
                error = None;
            }
            SessionEvent::ToolCall { .. } => tool_calls += 1,
            SessionEvent::Usage {
                input_tokens,
                output_tokens,
                ..
            } => tokens += input_tokens + output_tokens,
            SessionEvent::Error { code, message } => error = Some(format!("{code}: {message}")),
            SessionEvent::TurnEnd { reason, .. } => ended = Some(*reason),
            _ => {}
        }
        transcript.apply_session(&record.event, now);
    }
    if stored.unreadable_lines > 0 {
        transcript.cells.push(HistoryCell::Warning(format!(
            "{} lines of its transcript could not be read",
            stored.unreadable_lines
        )));
    }
    let end = match ended {
        Some(TurnEndReason::Completed) => ChildStatus::Completed,
        Some(TurnEndReason::Cancelled) => ChildStatus::Cancelled,
        Some(TurnEndReason::Error | TurnEndReason::MaxTurns) => ChildStatus::Failed,
        None => {
            // Its calls still open are closed as the interrupted turn's.
            transcript.apply_session(
                &SessionEvent::TurnEnd {
                    reason: TurnEndReason::Cancelled,
                    steps: 0,
                },
                now,
            );
            error.get_or_insert_with(|| {
                "its transcript ends mid-turn: kigi stopped while it ran".to_owned()
            });
            ChildStatus::Cancelled
        }
    };
    let finish = ChildFinish {
        end,
        error: error.filter(|_| end != ChildStatus::Completed),
        tool_calls,
        elapsed: run_time(&stored.records),
    };
    let spawned = spawned.unwrap_or_default();
    let description = if spawned.description.is_empty() {
        prompt
            .lines()
            .next()
            .unwrap_or("(no prompt)")
            .chars()
            .take(60)
            .collect()
    } else {
        spawned.description
    };
    Child {
        id: stored.id,
        description,
        agent_type: if agent_type.is_empty() {
            "subagent".to_owned()
        } else {
            agent_type
        },
        persona: spawned.persona,
        model,
        model_source: "its transcript".to_owned(),
        background: spawned.background,
        resumed: false,
        activity: finish.label().to_owned(),
        started: now.checked_sub(finish.elapsed).unwrap_or(now),
        tokens,
        finish: Some(finish),
        swarm: spawned.swarm,
        transcript,
        earlier: true,
        spawn_call: (!spawned.call_id.is_empty()).then_some(spawned.call_id),
    }
}

/// From the first record to the last (the time it ran, idle time between its turns too).
fn run_time(records: &[StoredEvent]) -> Duration {
    let at = |record: Option<&StoredEvent>| {
        record.and_then(|r| chrono::DateTime::parse_from_rfc3339(&r.timestamp).ok())
    };
    match (at(records.first()), at(records.last())) {
        (Some(first), Some(last)) => (last - first).to_std().unwrap_or_default(),
        _ => Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use kigi_protocol::{ErrorCode, ToolStatus};

    fn record(at: &str, event: SessionEvent) -> StoredEvent {
        StoredEvent {
            session_id: "s".into(),
            agent_id: "sub-1".into(),
            timestamp: format!("2026-12-01T10:00:{at}Z"),
            event,
        }
    }

    fn start() -> SessionEvent {
        SessionEvent::SessionStart {
            session_id: "s".into(),
            agent: "explore".into(),
            model: "scripted".into(),
            cwd: "/repo".into(),
            kigi_version: "0".into(),
        }
    }

    fn prompt(text: &str) -> SessionEvent {
        SessionEvent::UserMessage { text: text.into() }
    }

    fn turn_end(reason: TurnEndReason) -> SessionEvent {
        SessionEvent::TurnEnd { reason, steps: 1 }
    }

    fn result(call_id: &str, output: &str) -> SessionEvent {
        SessionEvent::ToolResult {
            call_id: call_id.into(),
            name: "x".into(),
            status: ToolStatus::Completed,
            output: output.into(),
        }
    }

    fn call(call_id: &str, name: &str, input: &str) -> SessionEvent {
        SessionEvent::ToolCall {
            call_id: call_id.into(),
            name: name.into(),
            raw_input: input.into(),
            meta: None,
        }
    }

    fn stored(id: &str, records: Vec<StoredEvent>) -> StoredChild {
        StoredChild {
            id: id.into(),
            records,
            ..StoredChild::default()
        }
    }

    #[test]
    fn the_parents_calls_name_the_children_they_started() {
        let parent = [
            call(
                "c1",
                "spawn_subagent",
                r#"{"description":"read it","persona":"concise","prompt":"p"}"#,
            ),
            result(
                "c1",
                "subagent sub-1 [explore] \"read it\" completed in 1.0s: …",
            ),
            call(
                "c2",
                "spawn_subagent",
                r#"{"description":"watch","background":true,"prompt":"p"}"#,
            ),
            result(
                "c2",
                "Subagent sub-2 started in the background. Its result arrives later.",
            ),
            call(
                "c3",
                "agent_swarm",
                r#"{"description":"sweep","items":["a b sub-9: x","c"]}"#,
            ),
            result(
                "c3",
                "swarm \"sweep\": 2 members …\n\n#1 a b sub-9: x sub-3: completed\nout\n\n#2 c sub-4: rate_limited\nmodel.rate_limited: 429 (after 3 attempts)",
            ),
        ];
        let found = spawned_children(&parent, Instant::now());
        assert_eq!(found.len(), 4, "{found:?}");
        assert_eq!(
            found["sub-1"],
            Spawned {
                call_id: "c1".into(),
                description: "read it".into(),
                persona: Some("concise".into()),
                background: false,
                swarm: None,
            }
        );
        assert!(found["sub-2"].background);
        assert_eq!(found["sub-3"].description, "sweep #1");
        assert_eq!(found["sub-4"].description, "sweep #2");
        assert_eq!(found["sub-4"].swarm.as_deref(), Some("c3"));
        assert_eq!(spawned_id("persona `x` not found"), None);
    }

    #[test]
    fn a_childs_end_is_its_last_turns_and_a_rate_limit_is_told_by_its_code() {
        let now = Instant::now();
        let limited = stored(
            "sub-1",
            vec![
                record("00.000", start()),
                record("00.100", prompt("#child look")),
                record(
                    "01.500",
                    SessionEvent::Error {
                        code: ErrorCode::ModelRateLimited,
                        message: "429 Too Many Requests".into(),
                    },
                ),
                record("01.500", turn_end(TurnEndReason::Error)),
            ],
        );
        let child = earlier_child(limited, None, now);
        let finish = child.finish.as_ref().unwrap();
        assert_eq!(finish.end, ChildStatus::Failed);
        assert!(finish.rate_limited());
        assert_eq!(finish.elapsed, Duration::from_millis(1_500));
        assert_eq!(
            (
                child.description.as_str(),
                child.agent_type.as_str(),
                child.activity.as_str()
            ),
            ("#child look", "explore", "rate-limited")
        );
        assert!(child.earlier && !child.running());
        // A failed turn, then more input and a completed one: completed.
        let again = stored(
            "sub-2",
            vec![
                record("00.000", start()),
                record("00.000", prompt("one")),
                record("00.000", turn_end(TurnEndReason::Error)),
                record("02.000", prompt("two")),
                record("03.000", turn_end(TurnEndReason::Completed)),
            ],
        );
        let child = earlier_child(again, None, now);
        assert_eq!(child.finish.as_ref().unwrap().end, ChildStatus::Completed);
        assert_eq!(child.finish.as_ref().unwrap().error, None);
    }

    #[test]
    fn a_transcript_that_stops_mid_turn_reads_as_cancelled_with_its_calls_closed() {
        let cut = stored(
            "sub-5",
            vec![
                record("00.000", start()),
                record("00.000", prompt("run it")),
                record(
                    "00.500",
                    call("k1", "run_terminal_cmd", r#"{"command":"sleep 9"}"#),
                ),
            ],
        );
        let child = earlier_child(cut, None, Instant::now());
        let finish = child.finish.as_ref().unwrap();
        assert_eq!(finish.end, ChildStatus::Cancelled);
        assert_eq!(finish.tool_calls, 1);
        assert!(finish.error.as_deref().unwrap().contains("ends mid-turn"));
        assert!(child.transcript.running.is_empty());
        assert!(!child.transcript.animating());
        assert_eq!(
            child.transcript.cells.last(),
            Some(&HistoryCell::Warning("■ Interrupted".into()))
        );
    }
}
