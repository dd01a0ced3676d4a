//! The session host: the one way to open a session. Every front end (print mode, `kigi
//! swarm`, the demo, the terminal, editors, tests, benchmarks) asks it for a session, drives
//! that session with [`HostCommand`](kigi_protocol::HostCommand)s and reads one
//! [`EventStream`].
//!
//! The rule: nothing outside this module builds a coordinator or starts a session; what a
//! front end can vary is what [`OpenRequest`] carries.

use std::path::PathBuf;
use std::sync::Arc;

use kigi_agent::permissions::PermissionRules;
use kigi_agent::{
    ConfigWarning, Discovery, KigiPaths, LoadedConfig, PermissionMode, SandboxConfig,
};
use kigi_model::{ModelClient, ModelFlags, ModelsConfig};
use kigi_tools::ToolRegistry;
use kigi_tools::sandbox::{SandboxMode, SandboxSupport};
use tokio_util::sync::CancellationToken;

use super::agent_choice::{AgentChoice, build_agent, client_for, main_model_warnings};
use super::approvals::ApprovalBroker;
use super::event_stream::{AgentEmitter, event_channel};
use super::host_error::HostError;
use super::hosted_session::HostedSession;
use crate::hooks::HookIdentity;
use crate::session::{Session, SessionSetup};
use crate::session_id::new_session_id;
use crate::session_store::SessionStore;
use crate::subagent::{Coordinator, CoordinatorSetup, EnvLookup};

/// New, resumed, or the last one used here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SessionStart {
    #[default]
    New,
    /// `--resume ID`.
    Resume(String),
    /// `--continue`: the latest session started in this folder.
    Continue,
}

/// Who answers the asks of the main agent and its foreground children.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApprovalMode {
    /// Nobody: an ask is refused with a reason that names the flag or mode that would allow
    /// it (print mode, scripts).
    #[default]
    Refuse,
    /// A person, through `approval_requested` events and `HostCommand::Approval` answers.
    Ask,
}

/// What a front end asks for.
#[derive(Debug, Clone)]
pub struct OpenRequest {
    pub cwd: PathBuf,
    pub start: SessionStart,
    pub agent: AgentChoice,
    /// `--model` and `--base-url`.
    pub model: ModelFlags,
    /// A client made elsewhere (the demo's scripted model); wins over `model`.
    pub client: Option<ModelClient>,
    /// `--permission-mode`; otherwise the agent's own.
    pub permission_mode: Option<PermissionMode>,
    pub approvals: ApprovalMode,
    /// Tools to run with instead of the built-ins (tests with tools of their own).
    pub registry: Option<ToolRegistry>,
    /// Rules from the front end's flags (`--allowedTools`, `--disallowedTools`), applied
    /// after the configured ones.
    pub rules: PermissionRules,
    /// `--sandbox`: overrides `[sandbox] mode`.
    pub sandbox: Option<SandboxMode>,
    /// MCP servers the front end names for this session (an editor's `session/new`), started
    /// beside the configured ones, as the user's own.
    pub mcp_servers: Vec<(String, kigi_mcp::McpServerConfig)>,
    /// The editor's files (ACP `fs/*`): the main agent's file tools and its children's read
    /// and write through them.
    pub editor_files: Option<Arc<dyn kigi_tools::EditorFiles>>,
    /// The editor's terminal (ACP `terminal/*`): the main agent's foreground commands run
    /// there when its sandbox is `danger-full-access` (never a child's).
    pub editor_terminal: Option<Arc<dyn kigi_tools::EditorTerminal>>,
}

impl OpenRequest {
    /// A new session of the default agent in `cwd`, with the configured model.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            start: SessionStart::New,
            agent: AgentChoice::Default,
            model: ModelFlags::default(),
            client: None,
            permission_mode: None,
            approvals: ApprovalMode::Refuse,
            registry: None,
            rules: PermissionRules::default(),
            sandbox: None,
            mcp_servers: Vec::new(),
            editor_files: None,
            editor_terminal: None,
        }
    }
}

/// Opens sessions from one loaded configuration.
pub struct SessionHost {
    discovery: Discovery,
    models: ModelsConfig,
    env: EnvLookup,
    store: SessionStore,
    /// What loading `config.toml` warned about (unknown keys, bad environment values).
    config_warnings: Vec<ConfigWarning>,
    /// kigi's built-in rules and `[permissions]` of `config.toml`.
    user_rules: PermissionRules,
    /// `[sandbox]` of `config.toml`.
    sandbox: SandboxConfig,
    /// `[hooks]` of `config.toml`.
    user_hooks: kigi_agent::hooks::HookSet,
    /// `[compaction]` of `config.toml`.
    pub(super) compaction: crate::compaction::CompactionPolicy,
    /// `[mcp_servers]` of `config.toml`.
    mcp_servers: std::collections::BTreeMap<String, kigi_mcp::McpServerConfig>,
    /// What the machine offers the sandbox, when told rather than probed.
    sandbox_support: Option<SandboxSupport>,
    /// The ACP client `kind = "acp"` executors run through (see `set_acp_driver`).
    pub(super) acp_driver: Option<Arc<dyn crate::executor::AcpDriver>>,
}

impl std::fmt::Debug for SessionHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionHost")
            .field("sessions", &self.store.root())
            .finish_non_exhaustive()
    }
}

impl SessionHost {
    /// A host over `discovery` and `models` (both from the one loaded `config.toml`); `env`
    /// is read for API keys when a client is made.
    pub fn new(discovery: Discovery, models: ModelsConfig, env: EnvLookup) -> Self {
        let store = SessionStore::new(discovery.paths.sessions_dir());
        let user_rules = PermissionRules::built_in(&discovery.paths.kigi_home);
        Self {
            discovery,
            models,
            env,
            store,
            config_warnings: Vec::new(),
            user_rules,
            sandbox: SandboxConfig::default(),
            user_hooks: kigi_agent::hooks::HookSet::default(),
            mcp_servers: Default::default(),
            compaction: Default::default(),
            sandbox_support: None,
            acp_driver: None,
        }
    }

    /// A host over a loaded `config.toml` (its environment overrides applied) and the trust
    /// store under `paths`.
    pub fn from_config(
        paths: KigiPaths,
        loaded: LoadedConfig,
        env: EnvLookup,
    ) -> Result<Self, HostError> {
        let discovery = Discovery::with_config(paths, &loaded.config)?;
        for warning in &loaded.warnings {
            tracing::warn!(%warning, "config.toml");
        }
        let configured = loaded.config.permission_rules(&loaded.path)?;
        let user_hooks = loaded.config.hook_set(&loaded.path)?;
        let mut host = Self::new(discovery, loaded.config.models(), env);
        host.config_warnings = loaded.warnings;
        host.user_rules.extend(configured);
        host.sandbox = loaded.config.sandbox;
        host.user_hooks = user_hooks;
        host.mcp_servers = loaded.config.mcp_servers;
        host.compaction = crate::compaction::CompactionPolicy {
            enabled: loaded.config.compaction.enabled,
            threshold: loaded.config.compaction.threshold,
            keep_recent_turns: loaded.config.compaction.keep_recent_turns,
            default_context_window: loaded.config.compaction.default_context_window,
        };
        Ok(host)
    }

    /// Reads `config.toml` once (with `env` for its overrides) and the trust store under
    /// `paths`.
    pub fn load(paths: KigiPaths, env: EnvLookup) -> Result<Self, HostError> {
        let loaded = LoadedConfig::load(&paths.config_file(), &*env)?;
        Self::from_config(paths, loaded, env)
    }

    /// What loading `config.toml` warned about; front ends show these at start.
    pub fn config_warnings(&self) -> &[ConfigWarning] {
        &self.config_warnings
    }

    /// Takes `support` as what this machine offers the sandbox instead of probing the kernel
    /// (an embedder that knows better, and tests of the fallback where the kernel cannot).
    /// The ACP client for `kind = "acp"` executors. It comes from the front end's crate
    /// (`kigi-acp`), which depends on this one; without it such a spawn is refused.
    pub fn set_acp_driver(&mut self, driver: Arc<dyn crate::executor::AcpDriver>) {
        self.acp_driver = Some(driver);
    }

    pub fn set_sandbox_support(&mut self, support: SandboxSupport) {
        self.sandbox_support = Some(support);
    }

    /// What this machine offers the sandbox: as told, or probed once.
    pub fn sandbox_support(&self) -> &SandboxSupport {
        self.sandbox_support
            .as_ref()
            .unwrap_or_else(|| kigi_tools::sandbox::sandbox_support())
    }

    /// How this host reads environment variables (API keys, `${VAR}` in MCP entries).
    pub fn env_lookup(&self) -> EnvLookup {
        Arc::clone(&self.env)
    }

    /// `[mcp_servers]` of `config.toml`.
    pub fn user_mcp_servers(
        &self,
    ) -> &std::collections::BTreeMap<String, kigi_mcp::McpServerConfig> {
        &self.mcp_servers
    }

    /// `[hooks]` of `config.toml`.
    pub fn user_hooks(&self) -> &kigi_agent::hooks::HookSet {
        &self.user_hooks
    }

    /// `[sandbox]` as configured (before `--sandbox`).
    pub fn sandbox_config(&self) -> &SandboxConfig {
        &self.sandbox
    }

    /// The rules every session starts from: built in, then `config.toml`'s.
    pub fn user_rules(&self) -> &PermissionRules {
        &self.user_rules
    }

    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    pub fn discovery(&self) -> &Discovery {
        &self.discovery
    }

    pub fn models(&self) -> &ModelsConfig {
        &self.models
    }

    /// Opens a session and starts its runner. Needs a tokio runtime.
    pub fn open(&self, request: OpenRequest) -> Result<HostedSession, HostError> {
        let OpenRequest {
            cwd,
            start,
            agent,
            model,
            client,
            permission_mode,
            approvals,
            registry,
            rules,
            sandbox,
            mcp_servers,
            editor_files,
            editor_terminal,
        } = request;
        let resume_id = match start {
            SessionStart::New => None,
            SessionStart::Resume(id) => Some(id),
            SessionStart::Continue => Some(
                self.store
                    .latest_in(&cwd)?
                    .ok_or_else(|| HostError::NothingToContinue { cwd: cwd.clone() })?,
            ),
        };
        let resumed_agent = match &resume_id {
            Some(id) => self.store.load(id)?.agent().map(str::to_owned),
            None => None,
        };
        let agent = build_agent(&self.discovery, &cwd, agent, resumed_agent.as_deref())?;
        let client = match client {
            Some(client) => client,
            None => client_for(&self.models, &agent, &model, &*self.env)?,
        };
        let main_client = client.clone();
        let session_id = resume_id.clone().unwrap_or_else(new_session_id);
        let (sink, events) = event_channel();
        let main = AgentEmitter::main(sink.clone());
        let cancel = CancellationToken::new();
        let broker = (approvals == ApprovalMode::Ask).then(|| Arc::new(ApprovalBroker::default()));
        let mut setup = SessionSetup::for_agent(
            &agent,
            client.clone(),
            registry.unwrap_or_else(ToolRegistry::built_in),
            &cwd,
            permission_mode,
        );
        setup
            .runtime
            .set_approver(broker.as_ref().map(|b| b.approver_for(main.clone())));
        let (guard, mut rule_notices) = self.guard_for(&cwd, &rules, sandbox)?;
        setup.runtime.guard(&guard);
        setup
            .runtime
            .set_editor(editor_files.clone(), editor_terminal);
        // A main agent with browser tools (`--agent browser-use`) needs a browser here.
        if kigi_agent::drives_browser(&agent.definition) {
            let config = &self.discovery.browser;
            let executable = config
                .locate()
                .map_err(|reason| HostError::BrowserMissing {
                    agent: agent.name.clone(),
                    reason: Box::new(reason),
                })?;
            Session::attach_browser(
                &mut setup,
                kigi_browser::LaunchOptions {
                    executable,
                    headless: config.headless,
                },
            );
        }
        let attachments = crate::attachments::AttachmentReader {
            cwd: cwd.clone(),
            rules: Arc::clone(&guard.rules),
            secrets: setup.runtime.context().secrets.clone(),
        };
        let identity = HookIdentity {
            session_id: session_id.clone(),
            transcript_path: self.store.wire_path(&session_id)?,
            cwd: cwd.clone(),
            project_dir: guard.project_dir.clone(),
            agent_id: kigi_protocol::MAIN_AGENT_ID.to_owned(),
            agent_type: agent.name.clone(),
            parent_agent_id: None,
        };
        let (hooks, hook_warning) =
            guard.agent_hooks(&agent.name, agent.definition.hooks.as_ref(), identity);
        rule_notices.extend(hook_warning);
        if let Some(hooks) = hooks {
            setup.runtime.set_hooks(hooks);
        }
        let (mcp, mcp_notes) = self.start_mcp(&cwd, Some(&agent), mcp_servers)?;
        rule_notices.extend(mcp_notes);
        if let Some(mcp) = &mcp {
            let admits = agent.clone();
            setup.runtime.attach_mcp(
                Arc::clone(mcp),
                Arc::new(move |tool: &kigi_mcp::McpTool| admits.admits_mcp_tool(tool.name())),
            );
        }
        // Cancelling `cancel` (shutdown) stops the turn and every child through one token.
        let coordinator = Coordinator::new(CoordinatorSetup {
            session_id: session_id.clone(),
            store: self.store.clone(),
            discovery: self.discovery.clone(),
            models: self.models.clone(),
            base_url_override: model.base_url.clone(),
            env: Arc::clone(&self.env),
            parent_client: client,
            parent_tools: agent.tools.clone(),
            parent_mode: setup.runtime.shared_mode().clone(),
            cwd: cwd.clone(),
            cancel: cancel.clone(),
            events: main.clone(),
            approvals: broker.clone(),
            guard,
            editor_files,
            acp_driver: self.acp_driver.clone(),
            compaction: self.compaction,
            parent_policy: kigi_agent::PolicyScope::of_agent(&agent.definition),
            mcp: setup
                .runtime
                .mcp_session()
                .cloned()
                .zip(setup.runtime.mcp_admission()),
        });
        let mut setup = setup.with_coordinator(&coordinator);
        let main_mode = setup.runtime.shared_mode().clone();
        let compact = Arc::new(std::sync::atomic::AtomicBool::new(false));
        setup.compact_requested = Some(Arc::clone(&compact));
        setup.compaction = self.compaction.for_agent(agent.definition.compaction);
        let steer = Arc::new(crate::inbox::MessageQueue::default());
        setup.steer = Some(Arc::clone(&steer));
        let model_switch = Arc::new(super::ModelSwitch::default());
        setup.model_switch = Some(Arc::clone(&model_switch));
        let (session, mut warnings) = match &resume_id {
            Some(id) => Session::resume(&self.store, id, setup, main.clone())?,
            None => (
                Session::start_as(&self.store, &session_id, setup, main.clone())?,
                Vec::new(),
            ),
        };
        // A project definition or rule ignored for lack of trust is announced once, at the
        // start.
        warnings.splice(
            0..0,
            agent
                .definition
                .trust_notices
                .iter()
                .map(ToString::to_string)
                .chain(rule_notices)
                .chain(main_model_warnings(&self.models, &agent, &main_client)),
        );
        let children = Arc::clone(&coordinator);
        Ok(HostedSession::start(
            session,
            events,
            warnings,
            coordinator,
            super::hosted_session::Controls {
                coordinator: children,
                cancel,
                steer,
                approvals: broker,
                sink,
                start_source: if resume_id.is_some() {
                    "resume"
                } else {
                    "startup"
                },
                mode: main_mode,
                compact,
                attachments,
                models: super::ModelResolver {
                    models: self.models.clone(),
                    env: Arc::clone(&self.env),
                    base_url_override: model.base_url.clone(),
                },
                model_switch,
                model: std::sync::Mutex::new(main_client.clone()),
                main_events: main.clone(),
            },
        ))
    }
}
