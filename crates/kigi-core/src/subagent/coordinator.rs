//! The subagent coordinator: the one way children start. It resolves a spawn into a child
//! session (type, tools, permission, model, limits), runs it, waits for it in the foreground
//! up to a budget, and keeps its result for later.
//!
//! The rules: a child never has more than its parent; every child's cancel token descends
//! from the coordinator's, so cancelling the parent (or dropping the coordinator) cancels
//! every child it started; every wait has a ceiling.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::lock::lock;
use std::time::Duration;

use kigi_agent::{Discovery, ResolvedTool};
use kigi_model::{ModelClient, ModelsConfig};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::child::{Child, ChildMeta};
use super::child_approver::ChildApprover;
use super::messaging::NotifyParent;
use super::resolve::existing_children;
use super::result::ChildStatus;
use super::result::SubagentResult;
use super::resume::ResumeSource;
use super::spawn_args::CheckedSpawn;
use super::spawn_error::{ChildError, SpawnError};
use crate::approval::Approver;
use crate::host::{AgentEmitter, ApprovalBroker};
use crate::inbox::{Inbox, MessageQueue};
use crate::session::Session;
use crate::session_store::SessionStore;
use crate::token_budget::TreeMeter;
use kigi_protocol::HostNotice;

/// How long a foreground spawn waits before moving the child to the background.
pub const DEFAULT_AWAIT_BUDGET: Duration =
    Duration::from_millis(kigi_agent::SubagentsConfig::DEFAULT_AWAIT_BUDGET_MS);
/// A child's wall-clock limit.
pub const DEFAULT_CHILD_TIMEOUT: Duration =
    Duration::from_millis(kigi_agent::SubagentsConfig::DEFAULT_TIMEOUT_MS);
/// How long a cancelled child may take to wind down before its waiter stops waiting.
const WIND_DOWN: Duration = Duration::from_secs(10);

/// Reads an environment variable (for API keys, when a child's model client is made).
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Everything the coordinator needs from its parent. Made only by the session host.
pub(crate) struct CoordinatorSetup {
    pub session_id: String,
    pub store: SessionStore,
    pub discovery: Discovery,
    pub models: ModelsConfig,
    /// `--base-url`, which children honour as their parent did.
    pub base_url_override: Option<String>,
    pub env: EnvLookup,
    pub parent_client: ModelClient,
    pub parent_tools: Vec<ResolvedTool>,
    /// The parent's mode, read at each spawn (a front end may switch it).
    pub parent_mode: crate::shared_mode::SharedMode,
    pub cwd: PathBuf,
    /// Cancelling this cancels every child.
    pub cancel: CancellationToken,
    /// The parent's way into the host's event stream; children get their own under it.
    pub events: AgentEmitter,
    /// Where a foreground child's asks wait; `None` refuses them.
    pub approvals: Option<Arc<ApprovalBroker>>,
    /// The session's guard, which every child runs under unchanged.
    pub guard: crate::runtime_guard::RuntimeGuard,
    /// The editor's files, when the session runs in one: children read and write through
    /// them as their parent does.
    pub editor_files: Option<Arc<dyn kigi_tools::EditorFiles>>,
    /// The ACP client `kind = "acp"` executors run through; `None` refuses such a spawn.
    pub acp_driver: Option<Arc<dyn crate::executor::AcpDriver>>,
    /// When a child compacts (each with its own model's window).
    pub compaction: crate::compaction::CompactionPolicy,
    /// The parent's own hard model lists: a child is never looser than its parent.
    pub parent_policy: kigi_agent::PolicyScope,
    /// The session's MCP servers and the parent's admission of their tools: a child gets
    /// only tools its parent could have.
    pub mcp: Option<(
        std::sync::Arc<crate::mcp_session::SessionMcp>,
        crate::mcp_session::McpAdmission,
    )>,
}

/// What a spawn returned to the tool.
#[derive(Debug, Clone, PartialEq)]
pub enum SpawnOutcome {
    Finished(Box<SubagentResult>),
    /// Running in the background (asked for, or past the foreground budget).
    Background {
        id: String,
        backgrounded: bool,
    },
}

/// The coordinator of one session's children.
pub struct Coordinator {
    pub(super) setup: CoordinatorSetup,
    pub(super) children: Mutex<Vec<Arc<Child>>>,
    /// Messages for the parent's next step, by the child they are about.
    inbox: Arc<MessageQueue>,
    pub(super) tree: Option<Arc<TreeMeter>>,
    /// Held while a child's worktree is made (see `prepare`).
    pub(super) worktree_lock: tokio::sync::Mutex<()>,
    /// Running slots for children (`[subagents] max_concurrent`).
    slots: Arc<tokio::sync::Semaphore>,
    /// One model client per alias, shared by every child (see `client_for`).
    pub(super) clients: Mutex<std::collections::HashMap<String, ModelClient>>,
    next_id: AtomicU64,
    await_budget: Duration,
    timeout: Duration,
    /// What a person changed while the session runs (see `session_choices`).
    pub(super) choices: super::session_choices::SessionChoices,
}

impl std::fmt::Debug for CoordinatorSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoordinatorSetup")
            .field("session_id", &self.session_id)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Coordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator")
            .field("session", &self.setup.session_id)
            .field("children", &lock(&self.children).len())
            .finish_non_exhaustive()
    }
}

impl Coordinator {
    pub(crate) fn new(setup: CoordinatorSetup) -> Arc<Self> {
        // `KIGI_SUBAGENT_AWAIT_BUDGET_MS` and `KIGI_SUBAGENTS` were applied when the
        // configuration was loaded.
        let await_budget = setup
            .discovery
            .subagents
            .await_budget_ms
            .map_or(DEFAULT_AWAIT_BUDGET, Duration::from_millis);
        let timeout = setup
            .discovery
            .subagents
            .timeout_ms
            .map_or(DEFAULT_CHILD_TIMEOUT, Duration::from_millis);
        let tree = setup
            .discovery
            .subagents
            .max_tokens_per_tree
            .map(|limit| Arc::new(TreeMeter::new(limit)));
        let existing = existing_children(&setup.store, &setup.session_id);
        let slots = Arc::new(tokio::sync::Semaphore::new(
            setup
                .discovery
                .subagents
                .max_concurrent
                .unwrap_or(kigi_agent::SubagentsConfig::DEFAULT_MAX_CONCURRENT)
                .max(1),
        ));
        Arc::new(Self {
            setup,
            children: Mutex::new(Vec::new()),
            inbox: Arc::new(MessageQueue::default()),
            tree,
            clients: Mutex::default(),
            worktree_lock: tokio::sync::Mutex::new(()),
            slots,
            next_id: AtomicU64::new(existing),
            choices: Default::default(),
            await_budget,
            timeout,
        })
    }

    /// `[swarm]`, for `agent_swarm`.
    pub fn swarm_config(&self) -> &kigi_agent::SwarmConfig {
        &self.setup.discovery.swarm
    }

    /// Whether subagents are on at all (`[subagents] enabled`, `KIGI_SUBAGENTS`).
    pub fn enabled(&self) -> bool {
        self.setup.discovery.subagents.enabled
    }

    /// The types a spawn may name, with their descriptions (and their soft model lists, as
    /// advice), as `name: description` lines.
    pub fn available_types(&self) -> Vec<(String, String)> {
        let report = self.setup.discovery.discover(&self.setup.cwd);
        let role_set = self.roles();
        let roles = role_set
            .entries
            .iter()
            .filter(|(name, _)| report.get(name).is_none() && self.type_enabled(name))
            .map(|(name, entry)| (name.clone(), format!("(role) {}", entry.value.description)));
        let mut types: Vec<(String, String)> = report
            .names()
            .into_iter()
            .filter(|name| *name != kigi_agent::DEFAULT_AGENT && self.type_enabled(name))
            .filter_map(|name| {
                // A private profile keeps running where it runs, but is offered to no one.
                report.get(name).filter(|a| !a.definition.private).map(|a| {
                    let mut description = a.definition.dispatch_description();
                    // The soft model lists advise where the model chooses.
                    if let Some(advice) = a.definition.model_lists.advice_summary() {
                        description.push_str(&format!(" [{advice}]"));
                    }
                    // Its per-model recipes, and when to pick each (configured aliases only).
                    let models = &self.setup.models.models;
                    let menu: Vec<String> = a
                        .definition
                        .model_profiles
                        .iter()
                        .filter(|p| models.contains_key(&p.alias))
                        .map(|p| match p.when.as_deref().map(str::trim) {
                            Some(when) if !when.is_empty() => format!("{}: {when}", p.alias),
                            _ => p.alias.clone(),
                        })
                        .collect();
                    if !menu.is_empty() {
                        description.push_str(&format!(" [models: {}]", menu.join("; ")));
                    }
                    (name.to_owned(), description)
                })
            })
            .collect();
        types.extend(roles);
        // Routes of the types offered above (a route of a private or switched-off profile is
        // not offered either).
        let offered: Vec<String> = types.iter().map(|(name, _)| name.clone()).collect();
        for route in self.setup.discovery.routes(&self.setup.cwd).routes {
            if offered.contains(&route.profile) && self.type_enabled(&route.id) {
                let model = route
                    .model()
                    .map(|m| format!(" [model {m}]"))
                    .unwrap_or_default();
                types.push((
                    route.id.clone(),
                    format!(
                        "(route of {}) {}{model}",
                        route.profile,
                        route.description()
                    ),
                ));
            }
        }
        types
    }

    pub(super) fn child(&self, id: &str) -> Option<Arc<Child>> {
        lock(&self.children)
            .iter()
            .find(|c| c.id == id || c.name.as_deref() == Some(id))
            .cloned()
    }

    /// Ids of every child, in start order.
    pub fn ids(&self) -> Vec<String> {
        lock(&self.children).iter().map(|c| c.id.clone()).collect()
    }

    /// Lets go of finished child `id`: its transcript stays on disk (and a later session can
    /// resume it from there), but this session no longer holds its conversation. A batch
    /// swarm does this for every member, so memory does not grow with the number of items.
    pub(crate) fn release(&self, id: &str) {
        lock(&self.children).retain(|child| child.id != id || !child.finished());
        self.inbox.forget(id);
    }

    /// Ids of the children running now, in start order.
    pub fn running(&self) -> Vec<String> {
        lock(&self.children)
            .iter()
            .filter(|c| !c.finished())
            .map(|c| c.id.clone())
            .collect()
    }

    /// Waits until every child has finished its turn, at most `ceiling` in all. Returns the
    /// ids of those still running at the ceiling.
    pub async fn wait_all(&self, ceiling: Duration) -> Vec<String> {
        let deadline = tokio::time::Instant::now() + ceiling;
        let children = lock(&self.children).clone();
        for child in &children {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            child.wait(left).await;
        }
        self.running()
    }

    /// The last results of `ids` (children that have finished a turn), in that order.
    pub fn results_of(&self, ids: &[String]) -> Vec<SubagentResult> {
        ids.iter()
            .filter_map(|id| self.child(id))
            .filter_map(|child| lock(&child.result).clone())
            .collect()
    }

    /// Starts a child. `turn_cancel` stops a foreground wait (and its child).
    pub async fn spawn(
        &self,
        spawn: CheckedSpawn,
        turn_cancel: &CancellationToken,
    ) -> Result<SpawnOutcome, SpawnError> {
        let background = spawn.background;
        let child = self.start(spawn).await?;
        let id = child.id.clone();
        if background {
            return Ok(SpawnOutcome::Background {
                id,
                backgrounded: false,
            });
        }
        self.await_foreground(&child, turn_cancel).await
    }

    /// Starts a child and returns once it runs; nobody waits for it yet.
    pub(crate) async fn start(&self, spawn: CheckedSpawn) -> Result<Arc<Child>, SpawnError> {
        let source = match &spawn.resume_from {
            Some(source) => Some(self.resume_source(source, &spawn.agent_type)?),
            None => None,
        };
        let id = self.reserve_id();
        self.launch(spawn, id, source).await
    }

    /// The next child id. Taken before anything awaits, so children numbered in the order
    /// they were asked for (a swarm's items) keep that order.
    pub(crate) fn reserve_id(&self) -> String {
        format!("sub-{}", self.next_id.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Starts child `id` (from [`Self::reserve_id`]).
    pub(crate) async fn launch(
        &self,
        spawn: CheckedSpawn,
        id: String,
        source: Option<ResumeSource>,
    ) -> Result<Arc<Child>, SpawnError> {
        let mut prepared = match self.prepare_external(&spawn, &id, source.is_some())? {
            Some(external) => external,
            None => {
                self.prepare(&spawn, &id, source.as_ref().map(|s| &s.client))
                    .await?
            }
        };
        let child_inbox = Arc::new(MessageQueue::default());
        prepared.setup.inbox = Some(Arc::clone(&child_inbox) as Arc<dyn Inbox>);
        prepared.setup.runtime.register(Arc::new(NotifyParent {
            parent: Arc::clone(&self.inbox),
            child: id.clone(),
        }));
        if let Some(source) = &source {
            // A resumed child keeps its source's model (bound in `prepare`) and tool state.
            prepared.setup.runtime.share_state(&source.tools);
            prepared.setup.system_prompt = source.system_prompt.clone();
        }
        let events = self.setup.events.child(&id);
        let foreground = CancellationToken::new();
        if spawn.background {
            foreground.cancel();
        }
        prepared
            .setup
            .runtime
            .set_approver(self.setup.approvals.as_ref().map(|broker| {
                Arc::new(ChildApprover {
                    person: broker.approver_for(events.clone()),
                    foreground: foreground.clone(),
                }) as Arc<dyn Approver>
            }));
        events.notice(HostNotice::SubagentStarted {
            description: spawn.description.clone(),
            agent_type: spawn.agent_type.clone(),
            persona: prepared.persona.clone(),
            model: prepared.model.clone(),
            model_source: prepared.model_source.to_owned(),
            background: spawn.background,
            worktree: prepared
                .worktree
                .as_ref()
                .map(|w| w.path.display().to_string()),
            resumed: source.is_some(),
        });
        let opened = Session::start_child(
            &self.setup.store,
            &self.setup.session_id,
            &id,
            prepared.setup,
            events.clone(),
        )
        .and_then(|mut session| match &source {
            Some(source) => session.inherit(&source.events).map(|()| session),
            None => Ok(session),
        });
        let session = match opened {
            Ok(session) => session,
            Err(error) => {
                // Started was announced: say it ended, and leave no worktree behind.
                events.notice(HostNotice::SubagentFinished {
                    status: ChildStatus::Failed,
                    error: Some(format!("spawn.store: {error}")),
                    input_tokens: 0,
                    output_tokens: 0,
                    tool_calls: 0,
                    steps: 0,
                    elapsed_ms: 0,
                });
                if let Some(worktree) = prepared.worktree {
                    let _ = tokio::task::spawn_blocking(move || worktree.remove()).await;
                }
                return Err(SpawnError::Store { id, source: error });
            }
        };
        let (done, _) = watch::channel(false);
        let child = Arc::new(Child {
            id: id.clone(),
            name: spawn.name.clone(),
            meta: ChildMeta {
                agent_type: spawn.agent_type.clone(),
                description: spawn.description.clone(),
                model: prepared.model,
                model_source: prepared.model_source,
                persona: prepared.persona,
                timeout: self.timeout,
                worktree: prepared.worktree,
                effort: prepared.effort,
                advice: prepared.advice,
                isolation: prepared.isolation,
                executor: prepared.executor,
            },
            background: AtomicBool::new(spawn.background),
            foreground,
            cancel: self.setup.cancel.child_token(),
            done,
            result: Mutex::new(None),
            session: Mutex::new(None),
            inbox: child_inbox,
            events,
            slots: Arc::clone(&self.slots),
        });
        lock(&self.children).push(Arc::clone(&child));
        tokio::spawn(Arc::clone(&child).run_turn(
            session,
            prepared.prompt,
            Arc::clone(&self.inbox),
        ));
        Ok(child)
    }

    /// Waits for a foreground child up to the budget; past it, the child moves to the
    /// background and keeps running.
    pub(crate) async fn await_foreground(
        &self,
        child: &Arc<Child>,
        turn_cancel: &CancellationToken,
    ) -> Result<SpawnOutcome, SpawnError> {
        let id = child.id.clone();
        tokio::select! {
            _ = child.wait(self.await_budget) => {
                if !child.finished() {
                    child.to_background();
                    // It may have ended in the same instant: then report it, not the move.
                    if !child.finished() {
                        return Ok(SpawnOutcome::Background { id, backgrounded: true });
                    }
                    self.inbox.forget(&id);
                }
            }
            () = turn_cancel.cancelled() => {
                child.cancel.cancel();
                child.wait(WIND_DOWN).await;
            }
        }
        let result = lock(&child.result).clone();
        result
            .map(|result| SpawnOutcome::Finished(Box::new(result)))
            .ok_or(SpawnError::Cancelled { id })
    }

    /// Waits for `id` up to `wait` and returns its result, or `None` if it is still running.
    pub async fn result(
        &self,
        id: &str,
        wait: Duration,
    ) -> Result<Option<SubagentResult>, ChildError> {
        let child = self.child(id).ok_or_else(|| self.unknown(id))?;
        if !child.wait(wait).await {
            return Ok(None);
        }
        // Collected here: no need to announce it again at the next step.
        self.inbox.forget(&child.id);
        Ok(lock(&child.result).clone())
    }

    /// Cancels `id`.
    pub fn kill(&self, id: &str) -> Result<(), ChildError> {
        let child = self.child(id).ok_or_else(|| self.unknown(id))?;
        child.cancel.cancel();
        Ok(())
    }

    /// Gives a direct child more input: at its next step if it is running; a stopped child
    /// continues in the background with its model, tools and context.
    pub fn send(&self, target: &str, message: &str) -> Result<String, ChildError> {
        let child = self.child(target).ok_or_else(|| self.unknown(target))?;
        if child.cancel.is_cancelled() {
            return Err(ChildError::Cancelled {
                id: child.id.clone(),
            });
        }
        let text = format!("Message from your parent agent:\n{message}");
        let stopped = if child.finished() {
            lock(&child.session).take()
        } else {
            None
        };
        let Some(session) = stopped else {
            child.inbox.push(None, text);
            return Ok(format!(
                "delivered: subagent {} reads it at its next step",
                child.id
            ));
        };
        child.to_background();
        child.done.send_replace(false);
        tokio::spawn(Arc::clone(&child).run_turn(session, text, Arc::clone(&self.inbox)));
        Ok(format!(
            "subagent {} continues with your message in the background; its result arrives at a later step",
            child.id
        ))
    }

    /// Brings child `target`'s worktree changes into the main working tree.
    pub async fn apply_worktree(
        &self,
        target: &str,
    ) -> Result<crate::worktree::ApplyOutcome, ChildError> {
        let child = self.child(target).ok_or_else(|| self.unknown(target))?;
        let Some(worktree) = child.meta.worktree.clone() else {
            return Err(ChildError::NoWorktree {
                id: child.id.clone(),
            });
        };
        if !child.finished() {
            return Err(ChildError::StillRunning {
                id: child.id.clone(),
            });
        }
        let cwd = self.setup.cwd.clone();
        tokio::task::spawn_blocking(move || crate::worktree::apply(&cwd, &worktree.branch))
            .await
            .map_err(|_| ChildError::ApplyInterrupted)?
            .map_err(ChildError::from)
    }

    fn unknown(&self, id: &str) -> ChildError {
        ChildError::UnknownChild {
            id: id.to_owned(),
            known: self.ids(),
        }
    }
}

impl Inbox for Coordinator {
    fn drain(&self) -> Vec<String> {
        self.inbox.drain()
    }
}

impl Drop for Coordinator {
    fn drop(&mut self) {
        for child in lock(&self.children).iter() {
            child.cancel.cancel();
        }
    }
}
