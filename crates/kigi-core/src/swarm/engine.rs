//! `run`: drives the schedule. Members launch on the ramp, under the (adaptive) cap; a member
//! that comes back rate-limited is retried, a bounded number of times, after a wait; the
//! whole swarm has a wall-clock deadline; results are reported in item order.
//!
//! The rules: every wait has a ceiling (the deadline); dropping the swarm's future cancels
//! every live member (a guard, because a caller's turn can vanish without a cooperative
//! cancel); the engine knows members only through [`SwarmBackend`], so tests drive it with a
//! backend that awaits.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kigi_agent::SwarmConfig;

use kigi_tools::clamp_head_tail;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::plan::{MemberSpec, SwarmPlan};
use super::schedule::{AdaptiveCapacity, Schedule};

/// How one run of a member ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberRun {
    Completed {
        output: String,
        tokens: u64,
    },
    Failed {
        error: String,
    },
    /// The provider throttled it (the typed flag, never read from text).
    RateLimited {
        error: String,
    },
    /// It outlived the foreground budget and keeps running.
    Backgrounded,
    Cancelled,
}

/// The member's id, filled in by the backend as soon as it has one.
pub type IdSlot = Arc<Mutex<Option<String>>>;

/// A member's future; `'static` so the engine can run it as a task.
pub type MemberFuture = Pin<Box<dyn Future<Output = MemberRun> + Send>>;

/// Where members run: the subagent coordinator, or a test's fake.
pub trait SwarmBackend: Send + Sync {
    fn run(&self, member: &MemberSpec, cancel: CancellationToken, id: IdSlot) -> MemberFuture;
}

/// What a swarm's caller sees while it runs.
pub trait SwarmWatch: Sync {
    /// The counts after every change.
    fn counts(&self, counts: &SwarmCounts);
    /// A member's final line, as soon as it has one: `kigi swarm` streams and records it.
    fn member(&self, _member: &MemberReport) {}
}

/// A closure over the counts watches only the counts.
impl<F: Fn(&SwarmCounts) + Sync> SwarmWatch for F {
    fn counts(&self, counts: &SwarmCounts) {
        self(counts);
    }
}

/// A member's final outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwarmOutcome {
    Completed,
    Failed,
    /// Rate-limited on every attempt.
    RateLimited,
    /// Outlived the foreground budget: still running, never offered for resume, not failed.
    Backgrounded,
    Cancelled,
    /// Running when the swarm's deadline passed.
    StillRunning,
}

impl SwarmOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::RateLimited => "rate_limited",
            Self::Backgrounded => "backgrounded",
            Self::Cancelled => "cancelled",
            Self::StillRunning => "still_running",
        }
    }
}

/// One member's line in the report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MemberReport {
    pub index: usize,
    pub item: String,
    pub outcome: SwarmOutcome,
    pub id: Option<String>,
    /// Clamped head and tail, with the loss stated.
    pub output: String,
    pub error: Option<String>,
    pub attempts: u32,
    pub tokens: u64,
}

/// The aggregate, members in item order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SwarmReport {
    pub description: String,
    pub members: Vec<MemberReport>,
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
    pub tokens: u64,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

/// Counts by outcome, for progress and the report's top line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SwarmCounts {
    pub running: usize,
    pub queued: usize,
    pub completed: usize,
    pub failed: usize,
    pub rate_limited: usize,
    pub backgrounded: usize,
    pub cancelled: usize,
    pub still_running: usize,
}

/// Engine settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSettings {
    pub schedule: Schedule,
    /// Extra attempts for a rate-limited member.
    pub rate_limit_retries: u32,
    /// The first wait before a rate-limited member runs again (doubles per retry).
    pub retry_delay: Duration,
    /// Wall-clock limit of the whole swarm.
    pub deadline: Duration,
    /// Characters of each member's output in the report; the rest is clamped.
    pub member_output_chars: usize,
    /// Keep each member's output in the final report. Off when the caller streams members
    /// as they finish ([`SwarmWatch::member`]): then the report holds outcomes only, and
    /// memory does not grow with the answers of thousands of members.
    pub keep_outputs: bool,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            schedule: Schedule::default(),
            rate_limit_retries: SwarmConfig::DEFAULT_RATE_LIMIT_RETRIES,
            retry_delay: Duration::from_millis(SwarmConfig::DEFAULT_RETRY_DELAY_MS),
            deadline: Duration::from_millis(SwarmConfig::DEFAULT_DEADLINE_MS),
            member_output_chars: 2_000,
            keep_outputs: true,
        }
    }
}

/// The characters each member gets so that the whole report fits in one tool result.
pub fn member_budget(members: usize) -> usize {
    (24_000 / members.max(1)).clamp(200, 6_000)
}

struct Live {
    cancel: CancellationToken,
    id: IdSlot,
}

/// Runs `plan` on `backend`. `progress` sees the counts after every change.
pub async fn run(
    plan: &SwarmPlan,
    backend: Arc<dyn SwarmBackend>,
    settings: &EngineSettings,
    cancel: &CancellationToken,
    progress: &dyn SwarmWatch,
) -> SwarmReport {
    let swarm = cancel.child_token();
    // Dropped with this future (the caller vanished): every live member is cancelled.
    let guard = swarm.clone().drop_guard();
    let started = Instant::now();
    let deadline = started + settings.deadline;
    let count = plan.members.len();
    let mut queue: VecDeque<usize> = (0..count).collect();
    let mut attempts = vec![0u32; count];
    let mut not_before: Vec<Option<Instant>> = vec![None; count];
    let mut live: Vec<Option<Live>> = (0..count).map(|_| None).collect();
    let mut reports: Vec<Option<MemberReport>> = vec![None; count];
    let mut capacity = AdaptiveCapacity::new(settings.schedule.max_concurrency);
    let mut launched = 0usize;
    let mut running: JoinSet<(usize, MemberRun)> = JoinSet::new();
    // Which member a task runs, so a task that panicked is still reported as that member.
    let mut tasks: HashMap<tokio::task::Id, usize> = HashMap::new();
    // Final outcomes so far, kept as they settle (a batch of 10,000 is not rescanned per event).
    let mut tally = SwarmCounts::default();
    let report =
        |index: usize, outcome: SwarmOutcome, id: Option<String>, attempts: u32| MemberReport {
            index: plan.members[index].index,
            item: plan.members[index].item.clone(),
            outcome,
            id,
            output: String::new(),
            error: None,
            attempts,
            tokens: 0,
        };
    loop {
        let now = Instant::now();
        let mut wake: Option<Instant> = None;
        while running.len() < capacity.current() {
            let Some(&next) = queue.front() else { break };
            let ready = (started + settings.schedule.ramp_time(launched))
                .max(not_before[next].unwrap_or(started));
            if ready > now {
                wake = Some(ready);
                break;
            }
            queue.pop_front();
            launched += 1;
            attempts[next] += 1;
            let token = swarm.child_token();
            let id: IdSlot = Arc::new(Mutex::new(None));
            let member = backend.run(&plan.members[next], token.clone(), Arc::clone(&id));
            live[next] = Some(Live { cancel: token, id });
            let task = running.spawn(async move { (next, member.await) });
            tasks.insert(task.id(), next);
        }
        progress.counts(&SwarmCounts {
            running: running.len(),
            queued: queue.len(),
            ..tally
        });
        if running.is_empty() && queue.is_empty() {
            break;
        }
        let wake_at = wake.unwrap_or(deadline).min(deadline);
        tokio::select! {
            joined = running.join_next_with_id(), if !running.is_empty() => {
                let (index, outcome) = match joined {
                    Some(Ok((task, ran))) => {
                        tasks.remove(&task);
                        ran
                    }
                    Some(Err(error)) => match tasks.remove(&error.id()) {
                        Some(index) => (index, MemberRun::Failed { error: format!("the member's task ended abnormally: {error}") }),
                        None => continue,
                    },
                    None => continue,
                };
                let id = live[index].take().and_then(|l| lock_id(&l.id));
                match outcome {
                    MemberRun::RateLimited { .. } if attempts[index] <= settings.rate_limit_retries => {
                        capacity.rate_limited();
                        let wait = settings.retry_delay.saturating_mul(1 << (attempts[index] - 1).min(10));
                        not_before[index] = Some(Instant::now() + wait);
                        queue.push_front(index);
                    }
                    outcome => {
                        let mut line = report(index, SwarmOutcome::Completed, id, attempts[index]);
                        match outcome {
                            MemberRun::Completed { output, tokens } => {
                                capacity.succeeded();
                                line.output = clamp_head_tail(&output, settings.member_output_chars);
                                line.tokens = tokens;
                            }
                            MemberRun::Failed { error } => {
                                capacity.succeeded();
                                line.outcome = SwarmOutcome::Failed;
                                line.error = Some(error);
                            }
                            MemberRun::RateLimited { error } => {
                                capacity.rate_limited();
                                line.outcome = SwarmOutcome::RateLimited;
                                line.error = Some(format!("{error} (after {} attempts)", attempts[index]));
                            }
                            MemberRun::Backgrounded => line.outcome = SwarmOutcome::Backgrounded,
                            MemberRun::Cancelled => line.outcome = SwarmOutcome::Cancelled,
                        }
                        settle(&mut reports, &mut tally, index, line, progress, settings.keep_outputs);
                    }
                }
            }
            () = tokio::time::sleep_until(wake_at) => {
                if Instant::now() >= deadline {
                    // Stragglers keep running and are reported with their ids; members never
                    // started are cancelled.
                    for (index, slot) in live.iter_mut().enumerate() {
                        if let Some(l) = slot.take() {
                            let line = report(index, SwarmOutcome::StillRunning, lock_id(&l.id), attempts[index]);
                            settle(&mut reports, &mut tally, index, line, progress, settings.keep_outputs);
                        }
                    }
                    for index in queue.drain(..) {
                        let mut line = report(index, SwarmOutcome::Cancelled, None, attempts[index]);
                        line.error = Some("not started before the swarm's deadline".into());
                        settle(&mut reports, &mut tally, index, line, progress, settings.keep_outputs);
                    }
                    running.detach_all();
                    let _ = guard.disarm();
                    return finish(plan, reports, started, progress);
                }
            }
            () = cancel.cancelled() => {
                for slot in live.iter().flatten() {
                    slot.cancel.cancel();
                }
                while let Some(joined) = running.join_next_with_id().await {
                    let task = match &joined {
                        Ok((task, _)) => *task,
                        Err(error) => error.id(),
                    };
                    if let Some(index) = tasks.remove(&task) {
                        let id = live[index].take().and_then(|l| lock_id(&l.id));
                        let line = report(index, SwarmOutcome::Cancelled, id, attempts[index]);
                        settle(&mut reports, &mut tally, index, line, progress, settings.keep_outputs);
                    }
                }
                for index in queue.drain(..) {
                    let line = report(index, SwarmOutcome::Cancelled, None, attempts[index]);
                    settle(&mut reports, &mut tally, index, line, progress, settings.keep_outputs);
                }
                break;
            }
        }
    }
    let _ = guard.disarm();
    finish(plan, reports, started, progress)
}

/// A member's final line: shown to the watcher, then kept (without its output when the
/// watcher was the one to keep it).
fn settle(
    reports: &mut [Option<MemberReport>],
    tally: &mut SwarmCounts,
    position: usize,
    mut line: MemberReport,
    watch: &dyn SwarmWatch,
    keep_outputs: bool,
) {
    watch.member(&line);
    tally.add(line.outcome);
    if !keep_outputs {
        // The plan holds the item, the watcher had the answer: keep the outcome.
        line.output = String::new();
        line.item = String::new();
    }
    reports[position] = Some(line);
}

fn lock_id(slot: &IdSlot) -> Option<String> {
    slot.lock().ok().and_then(|id| id.clone())
}

fn counts(reports: &[Option<MemberReport>], running: usize, queued: usize) -> SwarmCounts {
    counts_of(
        reports.iter().flatten().map(|report| report.outcome),
        running,
        queued,
    )
}

fn counts_of(
    outcomes: impl Iterator<Item = SwarmOutcome>,
    running: usize,
    queued: usize,
) -> SwarmCounts {
    let mut counts = SwarmCounts {
        running,
        queued,
        ..SwarmCounts::default()
    };
    outcomes.for_each(|outcome| counts.add(outcome));
    counts
}

impl SwarmCounts {
    /// One more member ended with `outcome`.
    fn add(&mut self, outcome: SwarmOutcome) {
        match outcome {
            SwarmOutcome::Completed => self.completed += 1,
            SwarmOutcome::Failed => self.failed += 1,
            SwarmOutcome::RateLimited => self.rate_limited += 1,
            SwarmOutcome::Backgrounded => self.backgrounded += 1,
            SwarmOutcome::Cancelled => self.cancelled += 1,
            SwarmOutcome::StillRunning => self.still_running += 1,
        }
    }
}

fn finish(
    plan: &SwarmPlan,
    reports: Vec<Option<MemberReport>>,
    started: Instant,
    progress: &dyn SwarmWatch,
) -> SwarmReport {
    progress.counts(&counts(&reports, 0, 0));
    let members: Vec<MemberReport> = reports
        .into_iter()
        .enumerate()
        .map(|(position, report)| {
            report.unwrap_or_else(|| MemberReport {
                index: plan.members[position].index,
                item: plan.members[position].item.clone(),
                outcome: SwarmOutcome::Cancelled,
                id: None,
                output: String::new(),
                error: Some("never ran".into()),
                attempts: 0,
                tokens: 0,
            })
        })
        .collect();
    SwarmReport {
        description: plan.description.clone(),
        tokens: members.iter().map(|m| m.tokens).sum(),
        members,
        duration: started.elapsed(),
    }
}

impl SwarmReport {
    pub fn counts(&self) -> SwarmCounts {
        counts_of(self.members.iter().map(|member| member.outcome), 0, 0)
    }

    /// The aggregate as the parent's model reads it: totals first, then each member in item
    /// order.
    pub fn render(&self) -> String {
        let mut out = self.render_totals();
        self.render_members(&mut out);
        out
    }

    /// The first line of [`Self::render`]: what a batch whose members were streamed as they
    /// finished records at its end, the members being in `swarm.jsonl` already.
    pub fn render_totals(&self) -> String {
        let c = self.counts();
        format!(
            "swarm \"{}\": {} members in {:.1}s, {} tokens: {} completed, {} failed, {} rate_limited, {} backgrounded, {} cancelled, {} still_running",
            self.description,
            self.members.len(),
            self.duration.as_secs_f64(),
            self.tokens,
            c.completed,
            c.failed,
            c.rate_limited,
            c.backgrounded,
            c.cancelled,
            c.still_running
        )
    }

    fn render_members(&self, out: &mut String) {
        for member in &self.members {
            let id = member
                .id
                .as_deref()
                .map(|id| format!(" {id}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "\n\n#{} {}{id}: {}",
                member.index + 1,
                member.item,
                member.outcome.as_str()
            ));
            match member.outcome {
                SwarmOutcome::Backgrounded => {
                    out.push_str(" (keeps running; its result arrives later; do not relaunch it)")
                }
                SwarmOutcome::StillRunning => out.push_str(
                    " (past the deadline; wait for it with get_command_or_subagent_output)",
                ),
                _ => {}
            }
            if let Some(error) = &member.error {
                out.push_str(&format!("\n{error}"));
            }
            if !member.output.is_empty() {
                out.push('\n');
                out.push_str(&member.output);
            }
        }
    }
}
