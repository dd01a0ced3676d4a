//! The agent tree as the terminal knows it: every child of this session, running or ended,
//! with its own transcript built from its tagged events, and the swarms that group children.
//!
//! The rule: built from host events only (the `subagent_*` notices and each child's session
//! events, tagged with its `agent_id`); a child is kept when it ends, so the tasks pane and
//! the framed view can still show it. A swarm is recognised from the main agent's
//! `agent_swarm` call: its members are the foreground children started while that call runs
//! whose description is the swarm's followed by ` #N` (how the swarm engine names them).

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::transcript::Transcript;

/// How a child's turn ended (`subagent_finished`'s `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildEnd {
    Completed,
    Failed,
    Cancelled,
    /// Its wall-clock budget ran out.
    TimedOut,
}

impl ChildEnd {
    /// The host's spelling; anything unknown reads as a failure.
    pub fn parse(status: &str) -> Self {
        match status {
            "completed" => Self::Completed,
            "cancelled" => Self::Cancelled,
            "timed_out" => Self::TimedOut,
            _ => Self::Failed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::TimedOut => "timed out",
        }
    }
}

/// What `subagent_finished` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildFinish {
    pub end: ChildEnd,
    pub error: Option<String>,
    pub tool_calls: u32,
    pub elapsed: Duration,
}

/// One child of this session.
#[derive(Debug)]
pub struct Child {
    /// `sub-3`.
    pub id: String,
    pub description: String,
    /// The subagent type (agent or role name).
    pub agent_type: String,
    pub persona: Option<String>,
    pub model: String,
    /// The layer that chose the model (`spawn parameter`, `persona`, `parent`, …).
    pub model_source: String,
    /// Started in the background, or moved there when its parent stopped waiting.
    pub background: bool,
    /// It continues an earlier child's conversation (`resume` of `spawn_subagent`).
    pub resumed: bool,
    /// What it does now (`Thinking`, `Running: cargo test`), from `subagent_activity`.
    pub activity: String,
    pub started: Instant,
    /// Input + output tokens so far.
    pub tokens: u64,
    /// `None` while it runs.
    pub finish: Option<ChildFinish>,
    /// The `agent_swarm` call it is a member of.
    pub swarm: Option<String>,
    /// Its own conversation (prompt, thinking, answers, tool calls).
    pub transcript: Transcript,
}

impl Child {
    pub fn running(&self) -> bool {
        self.finish.is_none()
    }

    /// The persona when it has one, else its type (`Implementer`, `explore`).
    pub fn label(&self) -> &str {
        self.persona.as_deref().unwrap_or(&self.agent_type)
    }

    /// How long it ran (so far).
    pub fn elapsed(&self, now: Instant) -> Duration {
        match &self.finish {
            Some(finish) => finish.elapsed,
            None => now.saturating_duration_since(self.started),
        }
    }
}

/// One `agent_swarm` call and what its members did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swarm {
    pub call_id: String,
    pub description: String,
    /// Items in the request.
    pub total: usize,
    /// Ids of the members started so far, in launch order.
    pub members: Vec<String>,
    pub completed: usize,
    pub failed: usize,
    pub cancelled: usize,
    pub started: Instant,
    /// Set when the call's result arrives.
    pub elapsed: Option<Duration>,
}

impl Swarm {
    /// The swarm of an `agent_swarm` call's arguments.
    pub fn from_call(call_id: &str, raw_input: &str, now: Instant) -> Self {
        let input: Value = serde_json::from_str(raw_input).unwrap_or(Value::Null);
        Self {
            call_id: call_id.to_owned(),
            description: input
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("swarm")
                .to_owned(),
            total: input
                .get("items")
                .and_then(Value::as_array)
                .map_or(0, Vec::len),
            members: Vec::new(),
            completed: 0,
            failed: 0,
            cancelled: 0,
            started: now,
            elapsed: None,
        }
    }

    /// Members that ended, however they ended.
    pub fn done(&self) -> usize {
        self.completed + self.failed + self.cancelled
    }

    pub fn running(&self) -> bool {
        self.elapsed.is_none()
    }

    /// Whether a child described `description` is one of this swarm's members.
    pub fn names_member(&self, description: &str) -> bool {
        self.running()
            && description
                .strip_prefix(self.description.as_str())
                .and_then(|rest| rest.strip_prefix(" #"))
                .is_some_and(|n| n.parse::<usize>().is_ok())
    }

    /// Counts one member's end.
    pub fn count(&mut self, end: ChildEnd) {
        match end {
            ChildEnd::Completed => self.completed += 1,
            ChildEnd::Cancelled => self.cancelled += 1,
            ChildEnd::Failed | ChildEnd::TimedOut => self.failed += 1,
        }
    }

    /// `Swarm "review": 37/128 done · 2 failed`.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "Swarm \"{}\": {}/{} done",
            self.description,
            self.done(),
            self.total.max(self.members.len())
        );
        if self.failed > 0 {
            text.push_str(&format!(" · {} failed", self.failed));
        }
        if self.cancelled > 0 {
            text.push_str(&format!(" · {} cancelled", self.cancelled));
        }
        text
    }
}

/// `4.2s`, `1m05s`.
pub fn format_elapsed(elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    if secs < 60.0 {
        format!("{secs:.1}s")
    } else {
        let whole = elapsed.as_secs();
        format!("{}m{:02}s", whole / 60, whole % 60)
    }
}

/// `950`, `1.2k`, `340k`, `1.5M`.
pub fn compact_count(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 100_000 {
        format!("{}k", n / 1_000)
    } else if n >= 1_000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_named_by_the_swarm_description_and_a_number() {
        let swarm = Swarm::from_call(
            "c1",
            r#"{"description":"review","items":["a","b","c"]}"#,
            Instant::now(),
        );
        assert_eq!(swarm.total, 3);
        assert!(swarm.names_member("review #2"));
        assert!(!swarm.names_member("review"));
        assert!(!swarm.names_member("review #x"));
        assert!(!swarm.names_member("other #1"));
    }

    #[test]
    fn the_summary_counts_ends_and_leaves_out_zeroes() {
        let mut swarm = Swarm::from_call(
            "c1",
            r#"{"description":"d","items":[1,2,3,4]}"#,
            Instant::now(),
        );
        swarm.count(ChildEnd::Completed);
        swarm.count(ChildEnd::TimedOut);
        assert_eq!(swarm.summary(), "Swarm \"d\": 2/4 done · 1 failed");
        assert_eq!(format_elapsed(Duration::from_millis(65_400)), "1m05s");
        assert_eq!(compact_count(1_234), "1.2k");
    }
}
