//! The hooks of one agent (the session's and its own inline ones) and who it is, so each run
//! says which agent fired it: `agent_id`, `agent_type`, `parent_agent_id` beside Claude Code's
//! fields. Hooks of one event run in parallel; their answers are combined (any block blocks,
//! the strictest permission decision wins) and every run is kept for the transcript.
//!
//! The rule: an event no hook matches costs nothing (no process, no allocation of input).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use kigi_agent::PermissionMode;
use kigi_agent::hooks::{HookEvent, HookSet};
use kigi_protocol::{HookOutcome, SessionEvent};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::hook_process::run_hook;
use super::hook_response::{HookResponse, PermissionDecision};

/// Who fires an agent's hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookIdentity {
    pub session_id: String,
    /// The agent's own `wire.jsonl`.
    pub transcript_path: PathBuf,
    pub cwd: PathBuf,
    /// `KIGI_PROJECT_DIR`: the project root.
    pub project_dir: PathBuf,
    /// `main` or the child's id (`sub-1`).
    pub agent_id: String,
    /// The agent's name (`kigi`, `explore`, …).
    pub agent_type: String,
    pub parent_agent_id: Option<String>,
}

/// What the hooks of one event said, combined.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookVerdict {
    /// Blocked, with the reasons.
    pub block: Option<String>,
    /// Context for the model.
    pub context: Vec<String>,
    /// The strictest `PreToolUse` decision and its reason.
    pub permission: Option<(PermissionDecision, String)>,
    pub updated_input: Option<Value>,
    /// `continue: false`.
    pub stop: Option<String>,
}

/// An agent's hooks.
#[derive(Debug, Clone)]
pub struct Hooks {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    set: HookSet,
    identity: HookIdentity,
    /// Runs not yet written to the transcript.
    records: Mutex<Vec<SessionEvent>>,
    /// A hook's `continue: false` during tool calls: the turn ends after this step.
    stop: Mutex<Option<String>>,
}

impl Hooks {
    pub fn new(set: HookSet, identity: HookIdentity) -> Self {
        Self {
            inner: Arc::new(Inner {
                set,
                identity,
                records: Mutex::new(Vec::new()),
                stop: Mutex::new(None),
            }),
        }
    }

    pub fn identity(&self) -> &HookIdentity {
        &self.inner.identity
    }

    /// True when some hook of `event` matches `names`.
    pub fn wants(&self, event: HookEvent, names: &[&str]) -> bool {
        self.inner.set.for_event(event, names).next().is_some()
    }

    /// Runs the hooks of `event` matching `names`, each with Claude Code's input plus
    /// `fields`, in parallel; returns what they said together.
    pub async fn run(
        &self,
        event: HookEvent,
        names: &[&str],
        fields: Map<String, Value>,
        mode: PermissionMode,
        cancel: &CancellationToken,
    ) -> HookVerdict {
        let hooks: Vec<_> = self.inner.set.for_event(event, names).cloned().collect();
        if hooks.is_empty() {
            return HookVerdict::default();
        }
        let input = self.input(event, fields, mode);
        let input = Arc::new(serde_json::to_vec(&input).unwrap_or_default());
        let identity = &self.inner.identity;
        let mut running = Vec::with_capacity(hooks.len());
        for hook in hooks {
            let (input, cwd, project) = (
                Arc::clone(&input),
                identity.cwd.clone(),
                identity.project_dir.clone(),
            );
            let cancel = cancel.clone();
            running.push(tokio::spawn(async move {
                let started = Instant::now();
                let exit = run_hook(&hook, &input, &cwd, &project, &cancel).await;
                (hook, exit, started.elapsed())
            }));
        }
        let mut verdict = HookVerdict::default();
        for handle in running {
            let Ok((hook, exit, took)) = handle.await else {
                continue;
            };
            let response = HookResponse::read(event, &exit);
            self.record(SessionEvent::HookRun {
                event: event.name().to_owned(),
                command: hook.command.clone(),
                exit_code: exit.code,
                duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
                outcome: response.outcome.unwrap_or(HookOutcome::Ok),
                message: tail(&response.message),
            });
            combine(&mut verdict, response);
        }
        verdict
    }

    /// Runs the hooks of `event` in the background (nothing waits for a `Notification`).
    pub fn run_detached(&self, event: HookEvent, fields: Map<String, Value>, mode: PermissionMode) {
        if !self.wants(event, &[]) {
            return;
        }
        let hooks = self.clone();
        tokio::spawn(async move {
            hooks
                .run(event, &[], fields, mode, &CancellationToken::new())
                .await;
        });
    }

    /// Asks the turn to end after its current step (a hook said `continue: false`).
    pub fn request_stop(&self, reason: String) {
        lock(&self.inner.stop).get_or_insert(reason);
    }

    /// The stop a hook asked for, once.
    pub fn take_stop(&self) -> Option<String> {
        lock(&self.inner.stop).take()
    }

    /// The runs since the last call, for the transcript.
    pub fn take_records(&self) -> Vec<SessionEvent> {
        std::mem::take(&mut *lock(&self.inner.records))
    }

    fn record(&self, event: SessionEvent) {
        lock(&self.inner.records).push(event);
    }

    /// Claude Code's input, with kigi's agent identity.
    fn input(&self, event: HookEvent, fields: Map<String, Value>, mode: PermissionMode) -> Value {
        let identity = &self.inner.identity;
        let mut input = json!({
            "session_id": identity.session_id,
            "transcript_path": identity.transcript_path,
            "cwd": identity.cwd,
            "hook_event_name": event.name(),
            "permission_mode": mode.spelling(),
            "agent_id": identity.agent_id,
            "agent_type": identity.agent_type,
            "parent_agent_id": identity.parent_agent_id,
        });
        if let Some(object) = input.as_object_mut() {
            object.extend(fields);
        }
        input
    }
}

fn combine(verdict: &mut HookVerdict, response: HookResponse) {
    if let Some(reason) = response.block {
        verdict.block = Some(match verdict.block.take() {
            Some(earlier) => format!("{earlier}\n{reason}"),
            None => reason,
        });
    }
    verdict.context.extend(response.context);
    if let Some(decision) = response.permission
        && verdict
            .permission
            .as_ref()
            .is_none_or(|(d, _)| decision.0 < *d)
    {
        verdict.permission = Some(decision);
    }
    if verdict.updated_input.is_none() {
        verdict.updated_input = response.updated_input;
    }
    if verdict.stop.is_none() {
        verdict.stop = response.stop;
    }
}

/// The last 2,000 characters of a message, for the transcript.
fn tail(message: &str) -> String {
    let count = message.chars().count();
    if count <= 2_000 {
        return message.to_owned();
    }
    let skipped: String = message.chars().skip(count - 2_000).collect();
    format!("…{skipped}")
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
