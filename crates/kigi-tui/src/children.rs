//! The agent tree as the terminal knows it: every child of this session, running or ended,
//! with its own transcript built from its tagged events, and the swarms that group children.
//!
//! The rule: built from host events only (the `subagent_*` notices and each child's session
//! events, tagged with its `agent_id`), or for a resumed session's earlier children from
//! their transcripts (`earlier_children`); a child is kept when it ends, so the tasks pane
//! and the framed view can still show it. A swarm is recognised from the main agent's
//! `agent_swarm` call: its members are the foreground children started while that call runs
//! whose description is the swarm's followed by ` #N` (how the swarm engine names them), and
//! it counts each member `N` once, by how its last run ended (the engine runs a rate-limited
//! member again as a new child of the same name).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kigi_protocol::ErrorCode;
use serde_json::Value;

use crate::transcript::Transcript;

/// How a child's turn ended: `subagent_finished`'s typed `status`.
pub use kigi_protocol::ChildStatus;

/// What `subagent_finished` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildFinish {
    pub end: ChildStatus,
    pub error: Option<String>,
    pub tool_calls: u32,
    pub elapsed: Duration,
}

impl ChildFinish {
    /// How it ended, in a word or two (`completed`, `rate-limited`, `timed out`).
    pub fn label(&self) -> &'static str {
        if self.rate_limited() {
            "rate-limited"
        } else {
            self.end.label()
        }
    }

    /// It failed because its provider refused it for rate or quota: the host leads the
    /// error with the stable code (`model.rate_limited: …`), as the child's transcript does.
    pub fn rate_limited(&self) -> bool {
        let code = ErrorCode::ModelRateLimited;
        self.end == ChildStatus::Failed
            && self.error.as_deref().is_some_and(|error| {
                error
                    .strip_prefix(code.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
            })
    }
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
    /// It ran before this session was resumed: all that is known of it was read from its
    /// transcript on disk.
    pub earlier: bool,
    /// For an earlier child, the parent's call that started it (its block is printed after
    /// that call's when the parent's conversation is replayed).
    pub spawn_call: Option<String>,
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
    /// Ids of the members' children started so far, in launch order (a member the engine
    /// ran again after a rate limit has one child per run).
    pub members: Vec<String>,
    /// How each member ended, by its number (`#N`): a member run again counts once, by its
    /// last run, and not at all while that run goes on.
    pub ends: BTreeMap<usize, MemberEnd>,
    pub started: Instant,
    /// Set when the call's result arrives.
    pub elapsed: Option<Duration>,
}

/// How a swarm member ended, as the swarm's block counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberEnd {
    Completed,
    Failed,
    /// Its provider refused it for rate or quota (`model.rate_limited`): counted apart from
    /// other failures, since running it again later may well succeed.
    RateLimited,
    Cancelled,
}

impl MemberEnd {
    /// How the child's `finish` counts in its swarm.
    pub fn of(finish: &ChildFinish) -> Self {
        match finish.end {
            ChildStatus::Completed => Self::Completed,
            ChildStatus::Cancelled => Self::Cancelled,
            ChildStatus::Failed if finish.rate_limited() => Self::RateLimited,
            ChildStatus::Failed | ChildStatus::TimedOut => Self::Failed,
        }
    }
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
            ends: BTreeMap::new(),
            started: now,
            elapsed: None,
        }
    }

    /// Members that ended, however they ended.
    pub fn done(&self) -> usize {
        self.ends.len()
    }

    /// Members that ended `end`.
    pub fn ended(&self, end: MemberEnd) -> usize {
        self.ends.values().filter(|e| **e == end).count()
    }

    /// Some member failed, a rate limit included (the block's final colour says so).
    pub fn had_failures(&self) -> bool {
        self.ended(MemberEnd::Failed) + self.ended(MemberEnd::RateLimited) > 0
    }

    pub fn running(&self) -> bool {
        self.elapsed.is_none()
    }

    /// The member number (`N`) of a child described `description`, when it is one of this
    /// running swarm's members.
    pub fn member_number(&self, description: &str) -> Option<usize> {
        if !self.running() {
            return None;
        }
        member_number(&self.description, description)
    }

    /// Whether a child described `description` is one of this swarm's members.
    pub fn names_member(&self, description: &str) -> bool {
        self.member_number(description).is_some()
    }

    /// Member `number` runs (again): it is not counted as ended until this run ends.
    pub fn member_started(&mut self, number: usize) {
        self.ends.remove(&number);
    }

    /// Counts member `number`'s end (its last run's, when the engine ran it again).
    pub fn count(&mut self, number: usize, end: MemberEnd) {
        self.ends.insert(number, end);
    }

    /// `Swarm "review": 37/128 done · 2 failed · 1 rate-limited`.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "Swarm \"{}\": {}/{} done",
            self.description,
            self.done(),
            self.total.max(self.done())
        );
        for (end, label) in [
            (MemberEnd::Failed, "failed"),
            (MemberEnd::RateLimited, "rate-limited"),
            (MemberEnd::Cancelled, "cancelled"),
        ] {
            let n = self.ended(end);
            if n > 0 {
                text.push_str(&format!(" · {n} {label}"));
            }
        }
        text
    }
}

/// `N` when `description` is `"<swarm> #N"`, how the swarm engine names its members.
pub fn member_number(swarm: &str, description: &str) -> Option<usize> {
    description
        .strip_prefix(swarm)
        .and_then(|rest| rest.strip_prefix(" #"))
        .and_then(|n| n.parse::<usize>().ok())
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

    fn finish(end: ChildStatus, error: Option<&str>) -> ChildFinish {
        ChildFinish {
            end,
            error: error.map(Into::into),
            tool_calls: 0,
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn the_summary_counts_ends_and_leaves_out_zeroes() {
        let mut swarm = Swarm::from_call(
            "c1",
            r#"{"description":"d","items":[1,2,3,4]}"#,
            Instant::now(),
        );
        swarm.count(1, MemberEnd::Completed);
        swarm.count(2, MemberEnd::of(&finish(ChildStatus::TimedOut, None)));
        assert_eq!(swarm.summary(), "Swarm \"d\": 2/4 done · 1 failed");
        assert_eq!(format_elapsed(Duration::from_millis(65_400)), "1m05s");
        assert_eq!(compact_count(1_234), "1.2k");
    }

    #[test]
    fn a_rate_limited_failure_is_told_by_its_code_and_counted_apart() {
        let limited = finish(
            ChildStatus::Failed,
            Some("model.rate_limited: 429 Too Many"),
        );
        assert!(limited.rate_limited());
        assert_eq!(MemberEnd::of(&limited), MemberEnd::RateLimited);
        for other in [
            finish(ChildStatus::Failed, Some("model.unavailable: 503")),
            finish(ChildStatus::Failed, Some("model.rate_limited_extra: x")),
            finish(ChildStatus::Failed, Some("the model.rate_limited: text")),
            finish(ChildStatus::Failed, None),
            finish(ChildStatus::Cancelled, Some("model.rate_limited: 429")),
        ] {
            assert!(!other.rate_limited(), "{other:?}");
        }
        let mut swarm = Swarm::from_call(
            "c1",
            r#"{"description":"d","items":[1,2,3,4,5]}"#,
            Instant::now(),
        );
        swarm.count(1, MemberEnd::Completed);
        swarm.count(2, MemberEnd::RateLimited);
        swarm.count(3, MemberEnd::Failed);
        swarm.count(4, MemberEnd::Cancelled);
        assert_eq!(
            swarm.summary(),
            "Swarm \"d\": 4/5 done · 1 failed · 1 rate-limited · 1 cancelled"
        );
        // The engine runs a rate-limited member again: while it runs it is not done, and its
        // last run is what counts.
        swarm.member_started(2);
        assert_eq!(
            swarm.summary(),
            "Swarm \"d\": 3/5 done · 1 failed · 1 cancelled"
        );
        swarm.count(2, MemberEnd::Completed);
        assert_eq!(swarm.ended(MemberEnd::Completed), 2);
        assert_eq!(swarm.done(), 4);
    }
}
