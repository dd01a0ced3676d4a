//! One child: its state, its kept session, and the run of one of its turns.
//!
//! A child's session is kept after its turn ends, so a message can continue it with its
//! model, tools and context. `done` goes back to false while a continuation runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, watch};
use tokio_util::sync::CancellationToken;

use super::result::{ChildStatus, SubagentResult};
use crate::host::AgentEmitter;
use crate::inbox::MessageQueue;
use crate::lock::lock;
use crate::session::{Session, TurnError};
use crate::worktree::Worktree;
use kigi_protocol::HostNotice;

/// What stays the same across a child's turns.
#[derive(Debug, Clone)]
pub(crate) struct ChildMeta {
    pub agent_type: String,
    pub description: String,
    pub model: String,
    pub model_source: &'static str,
    pub persona: Option<String>,
    pub timeout: Duration,
    /// `isolation: worktree`: where the child works.
    pub worktree: Option<Worktree>,
    /// Effort and isolation with the layer that chose them, for the result.
    pub effort: Option<String>,
    /// The soft model lists' advisories, for the result.
    pub advice: Vec<String>,
    pub isolation: Option<String>,
    /// The executor its turns run on instead of kigi's loop.
    pub executor: Option<Arc<crate::executor::ExternalEngine>>,
}

/// One child of a session.
#[derive(Debug)]
pub(crate) struct Child {
    pub id: String,
    pub name: Option<String>,
    pub meta: ChildMeta,
    /// True while nobody waits for it in the foreground: its result goes to the parent's
    /// inbox when it ends.
    pub background: AtomicBool,
    /// Cancelled once the child runs in the background: its asks are refused by policy from
    /// then on (see `child_approver`).
    pub foreground: CancellationToken,
    pub cancel: CancellationToken,
    pub done: watch::Sender<bool>,
    pub result: Mutex<Option<SubagentResult>>,
    /// The session between turns; `None` while a turn runs.
    pub session: Mutex<Option<Session>>,
    /// Messages for the child's next step.
    pub inbox: Arc<MessageQueue>,
    /// The child's way into the host's event stream.
    pub events: AgentEmitter,
    /// The session's running slots (`[subagents] max_concurrent`): a turn holds one.
    pub slots: Arc<Semaphore>,
}

impl Child {
    /// Marks the child as running in the background: nobody waits for it now. Front ends
    /// are told once, when a foreground child moves.
    pub fn to_background(&self) {
        let was_background = self.background.swap(true, Ordering::Relaxed);
        self.foreground.cancel();
        if !was_background && !self.finished() {
            self.events
                .notice(kigi_protocol::HostNotice::SubagentMovedToBackground {});
        }
    }

    pub fn finished(&self) -> bool {
        *self.done.borrow()
    }

    /// Waits until the current turn ends, at most `ceiling`. Returns whether it ended.
    pub async fn wait(&self, ceiling: Duration) -> bool {
        let mut done = self.done.subscribe();
        let ended = tokio::time::timeout(ceiling, async move {
            // Drop the guard `wait_for` returns before anything else awaits.
            done.wait_for(|d| *d).await.is_ok()
        })
        .await;
        ended.unwrap_or(false)
    }

    /// Runs one turn on `session` with `prompt`, then records the result, keeps the session,
    /// and (in the background) tells the parent.
    pub async fn run_turn(
        self: Arc<Self>,
        mut session: Session,
        prompt: String,
        parent: Arc<MessageQueue>,
    ) {
        let started = Instant::now();
        let cancel = self.cancel.clone();
        let mut timed_out = false;
        // A turn runs only in a free slot; a child cancelled while it waits still records
        // its (cancelled) turn below.
        let _slot = match Arc::clone(&self.slots).try_acquire_owned() {
            Ok(slot) => Some(slot),
            Err(_) => {
                self.events.activity("Waiting for a free slot".to_owned());
                tokio::select! {
                    slot = Arc::clone(&self.slots).acquire_owned() => slot.ok(),
                    () = cancel.cancelled() => None,
                }
            }
        };
        let mut engine_model = None;
        let outcome = {
            let turn = async {
                let Some(engine) = &self.meta.executor else {
                    return session.run_turn(&prompt, &cancel).await;
                };
                let cwd = session.tool_context().cwd.clone();
                let limit = self.meta.timeout;
                let (outcome, report) = crate::executor::run_external_turn(
                    &mut session,
                    engine,
                    &prompt,
                    &cwd,
                    limit,
                    &cancel,
                )
                .await;
                engine_model = report.model;
                outcome
            };
            tokio::pin!(turn);
            tokio::select! {
                outcome = &mut turn => outcome,
                () = tokio::time::sleep(self.meta.timeout) => {
                    timed_out = true;
                    cancel.cancel();
                    turn.await
                }
            }
        };
        // Servers the child started itself stop with its turn, and so does its browser (a
        // later message starts a new one).
        if let Some(own) = session.own_mcp() {
            own.shutdown().await;
        }
        if let Some(browser) = session.browser() {
            browser.close().await;
        }
        let so_far = session.last_turn().clone();
        let mut result = self.result_of(outcome, &so_far, timed_out, started.elapsed());
        if let Some(model) = engine_model {
            result.model = model;
        }
        if let Some(worktree) = self.meta.worktree.clone() {
            let message = format!("kigi subagent {}: {}", self.id, self.meta.description);
            let finished = tokio::task::spawn_blocking(move || worktree.finish(&message)).await;
            result.worktree = Some(match finished {
                Ok(Ok(summary)) if summary.removed => {
                    "no changes; the worktree was removed".to_owned()
                }
                Ok(Ok(summary)) => format!(
                    "{} on branch {} ({} file(s) changed; apply_worktree brings them into the main working tree)\n{}",
                    self.meta
                        .worktree
                        .as_ref()
                        .map_or(String::new(), |w| w.path.display().to_string()),
                    self.meta
                        .worktree
                        .as_ref()
                        .map_or("", |w| w.branch.as_str()),
                    summary.changed_files.len(),
                    summary.stat
                ),
                Ok(Err(error)) => format!("could not record the worktree's changes: {error}"),
                Err(_) => "could not record the worktree's changes".to_owned(),
            });
        }
        self.events.notice(HostNotice::SubagentFinished {
            status: result.status,
            error: result.error.clone(),
            input_tokens: result.usage.input_tokens,
            output_tokens: result.usage.output_tokens,
            tool_calls: result.tool_calls,
            steps: result.steps,
            elapsed_ms: u64::try_from(result.duration.as_millis()).unwrap_or(u64::MAX),
        });
        *lock(&self.result) = Some(result.clone());
        *lock(&self.session) = Some(session);
        if self.background.load(Ordering::Relaxed) {
            parent.push(
                Some(&self.id),
                format!("A background subagent finished.\n{}", result.render()),
            );
        }
        // `send_replace` stores the value even when nobody is subscribed yet (`send` would drop it).
        self.done.send_replace(true);
    }

    /// The result of a turn; `so_far` is what the turn did (its real steps, calls and tokens,
    /// also when it failed).
    fn result_of(
        &self,
        outcome: Result<crate::TurnSummary, TurnError>,
        so_far: &crate::TurnSummary,
        timed_out: bool,
        duration: Duration,
    ) -> SubagentResult {
        let mut result = SubagentResult {
            id: self.id.clone(),
            name: self.name.clone(),
            agent_type: self.meta.agent_type.clone(),
            description: self.meta.description.clone(),
            status: ChildStatus::Completed,
            message: String::new(),
            error: None,
            steps: 0,
            tool_calls: 0,
            usage: Default::default(),
            duration,
            model: self.meta.model.clone(),
            model_source: self.meta.model_source,
            persona: self.meta.persona.clone(),
            effort: self.meta.effort.clone(),
            advice: self.meta.advice.clone(),
            isolation: self.meta.isolation.clone(),
            worktree: None,
            rate_limited: false,
            backgrounded: self.background.load(Ordering::Relaxed),
        };
        result.steps = so_far.steps;
        result.tool_calls = so_far.tool_calls;
        result.usage = so_far.usage;
        match outcome {
            Ok(summary) => {
                result.message = summary.text;
                result.steps = summary.steps;
                result.tool_calls = summary.tool_calls;
                result.usage = summary.usage;
            }
            Err(_) if timed_out => {
                result.status = ChildStatus::TimedOut;
                result.error = Some(format!(
                    "task.timeout: stopped after {:.1}s",
                    self.meta.timeout.as_secs_f64()
                ));
            }
            Err(TurnError::Cancelled) => {
                result.status = ChildStatus::Cancelled;
                result.error = Some("turn.cancelled: the subagent was cancelled".into());
            }
            Err(TurnError::Model(error)) if error.is_rate_limited() => {
                result.status = ChildStatus::Failed;
                result.rate_limited = true;
                result.error = Some(format!("model.rate_limited: {error}"));
            }
            Err(TurnError::ExecutorRateLimited(reason)) => {
                result.status = ChildStatus::Failed;
                result.rate_limited = true;
                result.error = Some(format!("model.rate_limited: {reason}"));
            }
            Err(TurnError::EmptyCompletion) => {
                result.status = ChildStatus::Failed;
                result.error =
                    Some("task.empty_agent_receipt: the subagent's final message was empty".into());
            }
            Err(error) => {
                result.status = ChildStatus::Failed;
                // One code first, whether or not the error's own text starts with it.
                let code = error.code();
                let text = error.to_string();
                result.error = Some(if text.starts_with(&format!("{code}:")) {
                    text
                } else {
                    format!("{code}: {text}")
                });
            }
        }
        result
    }
}
