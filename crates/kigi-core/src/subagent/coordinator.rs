//! The subagent coordinator: the one way children start. It resolves a spawn into a child
//! session (type, tools, permission, model, limits), runs it, waits for it in the foreground
//! up to a budget, and keeps its result for later.
//!
//! The rules: a child never has more than its parent; every child's cancel token descends
//! from the coordinator's, so cancelling the parent (or dropping the coordinator) cancels
//! every child it started; every wait has a ceiling.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use kigi_agent::{Discovery, PermissionMode, ResolvedTool, SubagentsConfig};
use kigi_model::{ModelClient, ModelFlags, ModelsConfig};
use kigi_protocol::SessionEvent;
use kigi_tools::ToolRegistry;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::child_agent::{child_agent, child_permission};
use super::model_layers::{ModelLayers, pick_model};
use super::result::{ChildStatus, SubagentResult};
use super::spawn_args::CheckedSpawn;
use crate::session::{Inbox, Session, SessionSetup, TokenBudget, TreeMeter, TurnError};
use crate::session_store::SessionStore;

/// How long a foreground spawn waits before moving the child to the background.
pub const DEFAULT_AWAIT_BUDGET: Duration = Duration::from_secs(600);
/// A child's wall-clock limit.
pub const DEFAULT_CHILD_TIMEOUT: Duration = Duration::from_secs(2 * 60 * 60);
/// How long a cancelled child may take to wind down before its waiter stops waiting.
const WIND_DOWN: Duration = Duration::from_secs(10);

/// Reads an environment variable.
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Everything the coordinator needs from its parent.
pub struct CoordinatorSetup {
    pub session_id: String,
    pub store: SessionStore,
    pub discovery: Discovery,
    pub models: ModelsConfig,
    /// `--base-url`, which children honour as their parent did.
    pub base_url_override: Option<String>,
    pub env: EnvLookup,
    pub parent_client: ModelClient,
    pub parent_tools: Vec<ResolvedTool>,
    pub parent_mode: PermissionMode,
    pub cwd: PathBuf,
    pub config: SubagentsConfig,
    /// Cancelling this cancels every child.
    pub cancel: CancellationToken,
}

/// One child.
#[derive(Debug)]
struct Child {
    id: String,
    name: Option<String>,
    background: AtomicBool,
    cancel: CancellationToken,
    done: watch::Receiver<bool>,
    result: Mutex<Option<SubagentResult>>,
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
    setup: CoordinatorSetup,
    personas: kigi_agent::PersonaSet,
    roles: kigi_agent::RoleSet,
    children: Mutex<Vec<Arc<Child>>>,
    /// Messages for the parent's next step, by the child they are about.
    inbox: Arc<Mutex<Vec<(String, String)>>>,
    tree: Option<Arc<TreeMeter>>,
    next_id: AtomicU64,
    await_budget: Duration,
    timeout: Duration,
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

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl Coordinator {
    pub fn new(setup: CoordinatorSetup) -> Arc<Self> {
        let await_budget = (setup.env)("KIGI_SUBAGENT_AWAIT_BUDGET_MS")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .or(setup.config.await_budget_ms)
            .map_or(DEFAULT_AWAIT_BUDGET, Duration::from_millis);
        let timeout = setup
            .config
            .timeout_ms
            .map_or(DEFAULT_CHILD_TIMEOUT, Duration::from_millis);
        let tree = setup
            .config
            .max_tokens_per_tree
            .map(|limit| Arc::new(TreeMeter::new(limit)));
        let existing = existing_children(&setup.store, &setup.session_id);
        let paths = setup.discovery.paths.clone();
        let personas = kigi_agent::PersonaSet::discover(&setup.config, &paths, &setup.cwd);
        let roles = kigi_agent::RoleSet::discover(&setup.config, &paths, &setup.cwd);
        Arc::new(Self {
            setup,
            personas,
            roles,
            children: Mutex::new(Vec::new()),
            inbox: Arc::new(Mutex::new(Vec::new())),
            tree,
            next_id: AtomicU64::new(existing),
            await_budget,
            timeout,
        })
    }

    /// Whether subagents are on at all (`[subagents] enabled`, `KIGI_SUBAGENTS`).
    pub fn enabled(&self) -> bool {
        self.setup.config.enabled_with(&*self.setup.env)
    }

    /// The types a spawn may name, with their descriptions, as `name: description` lines.
    pub fn available_types(&self) -> Vec<(String, String)> {
        let report = self.setup.discovery.discover(&self.setup.cwd);
        let roles = self
            .roles
            .entries
            .iter()
            .filter(|(name, _)| report.get(name).is_none() && self.setup.config.type_enabled(name))
            .map(|(name, entry)| (name.clone(), format!("(role) {}", entry.value.description)));
        let mut types: Vec<(String, String)> = report
            .names()
            .into_iter()
            .filter(|name| {
                *name != kigi_agent::DEFAULT_AGENT && self.setup.config.type_enabled(name)
            })
            .filter_map(|name| {
                report
                    .get(name)
                    .map(|a| (name.to_owned(), a.definition.display_description()))
            })
            .collect();
        types.extend(roles);
        types
    }

    fn child(&self, id: &str) -> Option<Arc<Child>> {
        lock(&self.children)
            .iter()
            .find(|c| c.id == id || c.name.as_deref() == Some(id))
            .cloned()
    }

    /// Ids of every child, in start order.
    pub fn ids(&self) -> Vec<String> {
        lock(&self.children).iter().map(|c| c.id.clone()).collect()
    }

    /// Starts a child. `turn_cancel` stops a foreground wait (and its child).
    pub async fn spawn(
        &self,
        spawn: CheckedSpawn,
        turn_cancel: &CancellationToken,
    ) -> Result<SpawnOutcome, String> {
        let prepared = self.prepare(&spawn)?;
        let id = format!("sub-{}", self.next_id.fetch_add(1, Ordering::Relaxed) + 1);
        let cancel = self.setup.cancel.child_token();
        let session = Session::start_child(
            &self.setup.store,
            &self.setup.session_id,
            &id,
            prepared.setup,
            Arc::new(|_: &SessionEvent| {}),
        )
        .map_err(|e| format!("cannot start subagent {id}: {e}"))?;
        let (done_tx, done_rx) = watch::channel(false);
        let child = Arc::new(Child {
            id: id.clone(),
            name: spawn.name.clone(),
            background: AtomicBool::new(spawn.background),
            cancel: cancel.clone(),
            done: done_rx,
            result: Mutex::new(None),
        });
        lock(&self.children).push(Arc::clone(&child));
        let run = ChildRun {
            child: Arc::clone(&child),
            agent_type: spawn.agent_type.clone(),
            description: spawn.description.clone(),
            model: prepared.model,
            model_source: prepared.model_source,
            persona: prepared.persona,
            timeout: self.timeout,
        };
        let inbox = Arc::clone(&self.inbox);
        let prompt = prepared.prompt;
        tokio::spawn(async move {
            let result = run.run(session, &prompt, &cancel).await;
            let background = run.child.background.load(Ordering::Relaxed);
            *lock(&run.child.result) = Some(result.clone());
            if background {
                lock(&inbox).push((
                    result.id.clone(),
                    format!("A background subagent finished.\n{}", result.render()),
                ));
            }
            let _ = done_tx.send(true);
        });
        if spawn.background {
            return Ok(SpawnOutcome::Background {
                id,
                backgrounded: false,
            });
        }
        let mut done = child.done.clone();
        let finished = async move {
            // The guard `wait_for` returns must not live across the other branches' awaits.
            let _ = done.wait_for(|d| *d).await.map(|_| ());
        };
        tokio::select! {
            () = finished => {}
            () = tokio::time::sleep(self.await_budget) => {
                child.background.store(true, Ordering::Relaxed);
                // It may have finished in the same instant: then report it, not the move.
                if !*child.done.borrow() {
                    return Ok(SpawnOutcome::Background { id, backgrounded: true });
                }
            }
            () = turn_cancel.cancelled() => {
                child.cancel.cancel();
                let mut done = child.done.clone();
                let _ = tokio::time::timeout(WIND_DOWN, done.wait_for(|d| *d)).await;
            }
        }
        let result = lock(&child.result).clone();
        result
            .map(|result| SpawnOutcome::Finished(Box::new(result)))
            .ok_or_else(|| format!("subagent {id} was cancelled before it finished"))
    }

    /// Waits for `id` up to `wait` and returns its result, or `None` if it is still running.
    pub async fn result(&self, id: &str, wait: Duration) -> Result<Option<SubagentResult>, String> {
        let child = self.child(id).ok_or_else(|| self.unknown(id))?;
        let mut done = child.done.clone();
        let _ = tokio::time::timeout(wait, done.wait_for(|d| *d)).await;
        let result = lock(&child.result).clone();
        if result.is_some() {
            // Collected here: no need to announce it again at the next step.
            lock(&self.inbox).retain(|(child_id, _)| *child_id != child.id);
        }
        Ok(result)
    }

    /// Cancels `id`.
    pub fn kill(&self, id: &str) -> Result<(), String> {
        let child = self.child(id).ok_or_else(|| self.unknown(id))?;
        child.cancel.cancel();
        Ok(())
    }

    fn unknown(&self, id: &str) -> String {
        let ids = self.ids();
        format!(
            "no subagent `{id}` in this session; its subagents: {}",
            if ids.is_empty() {
                "none".to_owned()
            } else {
                ids.join(", ")
            }
        )
    }

    /// Everything that must hold before a child starts, resolved into its setup.
    fn prepare(&self, spawn: &CheckedSpawn) -> Result<Prepared, String> {
        if !self.setup.config.type_enabled(&spawn.agent_type) {
            return Err(format!(
                "subagent_type `{}` is disabled by [subagents.toggle]",
                spawn.agent_type
            ));
        }
        if let Some(name) = &spawn.name
            && lock(&self.children)
                .iter()
                .any(|c| c.name.as_deref() == Some(name))
        {
            return Err(format!(
                "name `{name}` is already used by a subagent of this session"
            ));
        }
        let (definition, role) = self.type_definition(&spawn.agent_type)?;
        let cwd = self.child_cwd(spawn.cwd.as_deref())?;
        let role_value = role
            .as_ref()
            .and_then(|name| self.roles.get(name))
            .map(|e| e.value.clone());
        let capability = match (
            spawn.capability_mode,
            role_value
                .as_ref()
                .and_then(|r| r.default_capability_mode.as_deref()),
        ) {
            (Some(mode), _) => Some(mode),
            (None, Some(mode)) => {
                Some(mode.parse::<kigi_tools::CapabilityMode>().map_err(|_| {
                    format!(
                        "role `{}`: default_capability_mode `{mode}` is unknown",
                        spawn.agent_type
                    )
                })?)
            }
            (None, None) => None,
        };
        let persona_name = spawn
            .persona
            .clone()
            .or_else(|| role_value.as_ref().and_then(|r| r.persona.clone()));
        let persona = match &persona_name {
            Some(name) => Some((
                name.clone(),
                self.personas.instructions(name)?,
                self.personas
                    .get(name)
                    .map(|e| e.value.clone())
                    .unwrap_or_default(),
            )),
            None => None,
        };
        if let Some((name, _, value)) = &persona
            && value.default_isolation.as_deref() == Some("worktree")
            && spawn.cwd.is_none()
        {
            return Err(format!(
                "persona `{name}` asks for worktree isolation, which is not available in this build of kigi yet"
            ));
        }
        let routed = self
            .setup
            .config
            .models
            .get(&spawn.agent_type)
            .map(String::as_str);
        let aliases: Vec<String> = self.setup.models.models.keys().cloned().collect();
        let definition_alias = match definition.model.effective(&aliases) {
            kigi_agent::ModelChoice::Named(alias) => Some(alias),
            kigi_agent::ModelChoice::Inherit => None,
        };
        let pick = pick_model(ModelLayers {
            spawn: spawn.model.as_deref(),
            role: role_value.as_ref().and_then(|r| r.model.as_deref()),
            persona: persona.as_ref().and_then(|(_, _, p)| p.model.as_deref()),
            routed,
            definition: definition_alias.as_deref(),
        });
        let client = match &pick.alias {
            None => self.setup.parent_client.clone(),
            Some(alias) => self.client_for(alias).map_err(|e| {
                format!(
                    "model `{alias}` (from the {}) cannot be used: {e}",
                    pick.source.as_str()
                )
            })?,
        };
        let mode = child_permission(self.setup.parent_mode, definition.permission_mode);
        let agent = child_agent(
            definition,
            capability,
            &self.setup.parent_tools,
            &cwd,
            &self.setup.discovery.paths,
        )
        .map_err(|e| format!("cannot build subagent_type `{}`: {e}", spawn.agent_type))?;
        let model = client.endpoint().model.clone();
        let mut setup =
            SessionSetup::for_agent(&agent, client, ToolRegistry::built_in(), &cwd, Some(mode));
        setup.runtime = setup.runtime.at_depth(1);
        setup.token_budget = TokenBudget {
            own: self.setup.config.max_tokens_per_child,
            tree: self.tree.clone(),
        };
        if let Some(effort) = persona
            .as_ref()
            .and_then(|(_, _, p)| p.reasoning_effort.as_deref())
        {
            setup.reasoning = match effort {
                "low" => Some(kigi_model::ReasoningEffort::Low),
                "medium" => Some(kigi_model::ReasoningEffort::Medium),
                "high" => Some(kigi_model::ReasoningEffort::High),
                other => {
                    return Err(format!(
                        "persona: reasoning_effort `{other}` is unknown (low, medium or high)"
                    ));
                }
            };
        }
        let prompt = match &persona {
            Some((name, text, _)) => format!(
                "<system-reminder>\nPersona `{name}`:\n{text}\n</system-reminder>\n\n{}",
                spawn.prompt
            ),
            None => spawn.prompt.clone(),
        };
        Ok(Prepared {
            setup,
            model,
            model_source: pick.source.as_str(),
            persona: persona_name,
            prompt,
        })
    }

    /// The definition a type runs: a discovered agent of that name, else a role (which runs
    /// as `general-purpose` with the role's description and prompt). Returns the role's name
    /// when it is one.
    fn type_definition(
        &self,
        agent_type: &str,
    ) -> Result<(kigi_agent::AgentDefinition, Option<String>), String> {
        let lookup = |name: &str| {
            self.setup
                .discovery
                .by_name_in_cwd(name, &self.setup.cwd)
                .map(|found| found.filter(|f| f.definition.name != kigi_agent::DEFAULT_AGENT))
                .map_err(|e| e.to_string())
        };
        if let Some(found) = lookup(agent_type)? {
            return Ok((found.definition, None));
        }
        if let Some(role) = self.roles.get(agent_type) {
            let base = lookup(super::DEFAULT_TYPE)?.ok_or_else(|| {
                format!(
                    "role `{agent_type}` runs as `{}`, which is missing",
                    super::DEFAULT_TYPE
                )
            })?;
            let mut definition = base.definition;
            definition.name = agent_type.to_owned();
            if !role.value.description.is_empty() {
                definition.description = role.value.description.clone();
            }
            if let Some(prompt) = self.roles.prompt(agent_type)? {
                definition.body = prompt;
            }
            return Ok((definition, Some(agent_type.to_owned())));
        }
        let names: Vec<String> = self
            .available_types()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        Err(format!(
            "unknown subagent_type `{agent_type}`; available: {}",
            names.join(", ")
        ))
    }

    fn client_for(&self, alias: &str) -> Result<ModelClient, String> {
        let flags = ModelFlags {
            model: Some(alias.to_owned()),
            base_url: self.setup.base_url_override.clone(),
        };
        let endpoint = self
            .setup
            .models
            .resolve(&flags, &*self.setup.env)
            .map_err(|e| e.to_string())?;
        ModelClient::with_policy(endpoint, self.setup.models.retry.policy())
            .map_err(|e| e.to_string())
    }

    /// `cwd` inside the parent's working directory (a child never reaches outside it).
    fn child_cwd(&self, cwd: Option<&str>) -> Result<PathBuf, String> {
        let Some(cwd) = cwd else {
            return Ok(self.setup.cwd.clone());
        };
        let wanted = if Path::new(cwd).is_absolute() {
            PathBuf::from(cwd)
        } else {
            self.setup.cwd.join(cwd)
        };
        let resolved = wanted
            .canonicalize()
            .map_err(|e| format!("cwd `{cwd}`: {e}"))?;
        let root = self
            .setup
            .cwd
            .canonicalize()
            .map_err(|e| format!("the working directory: {e}"))?;
        if !resolved.starts_with(&root) || !resolved.is_dir() {
            return Err(format!(
                "cwd `{cwd}` must be a folder inside {}",
                root.display()
            ));
        }
        Ok(resolved)
    }
}

/// The highest child number already in the session's folder (a resumed session numbers on).
fn existing_children(store: &SessionStore, session_id: &str) -> u64 {
    let Ok(path) = store.child_wire_path(session_id, "sub-1") else {
        return 0;
    };
    let Some(agents) = path.parent().and_then(Path::parent) else {
        return 0;
    };
    std::fs::read_dir(agents)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| {
                    e.file_name()
                        .to_str()?
                        .strip_prefix("sub-")?
                        .parse::<u64>()
                        .ok()
                })
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0)
}

impl Inbox for Coordinator {
    fn drain(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.inbox))
            .into_iter()
            .map(|(_, message)| message)
            .collect()
    }
}

impl Drop for Coordinator {
    fn drop(&mut self) {
        for child in lock(&self.children).iter() {
            child.cancel.cancel();
        }
    }
}

struct Prepared {
    setup: SessionSetup,
    model: String,
    model_source: &'static str,
    persona: Option<String>,
    /// The task, after the persona's reminder.
    prompt: String,
}

/// A child's run: its session's one turn, under the wall-clock limit.
struct ChildRun {
    child: Arc<Child>,
    agent_type: String,
    description: String,
    model: String,
    model_source: &'static str,
    persona: Option<String>,
    timeout: Duration,
}

impl ChildRun {
    async fn run(
        &self,
        mut session: Session,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> SubagentResult {
        let started = Instant::now();
        let turn = session.run_turn(prompt, cancel);
        tokio::pin!(turn);
        let mut timed_out = false;
        let outcome = tokio::select! {
            outcome = &mut turn => outcome,
            () = tokio::time::sleep(self.timeout) => {
                timed_out = true;
                cancel.cancel();
                turn.await
            }
        };
        let mut result = SubagentResult {
            id: self.child.id.clone(),
            name: self.child.name.clone(),
            agent_type: self.agent_type.clone(),
            description: self.description.clone(),
            status: ChildStatus::Completed,
            message: String::new(),
            error: None,
            steps: 0,
            tool_calls: 0,
            usage: Default::default(),
            duration: started.elapsed(),
            model: self.model.clone(),
            model_source: self.model_source,
            persona: self.persona.clone(),
            backgrounded: self.child.background.load(Ordering::Relaxed),
        };
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
                    "task.timeout: stopped after {:.0}s",
                    self.timeout.as_secs_f64()
                ));
            }
            Err(TurnError::Cancelled) => {
                result.status = ChildStatus::Cancelled;
                result.error = Some("turn.cancelled: the subagent was cancelled".into());
            }
            Err(TurnError::EmptyCompletion) => {
                result.status = ChildStatus::Failed;
                result.error =
                    Some("task.empty_agent_receipt: the subagent's final message was empty".into());
            }
            Err(error) => {
                result.status = ChildStatus::Failed;
                result.error = Some(format!("{}: {error}", error.code()));
            }
        }
        result
    }
}
