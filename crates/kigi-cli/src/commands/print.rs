//! `kigi -p PROMPT`: one headless turn of a real session, and `kigi demo`, the same on the
//! bundled scripted model.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use kigi_agent::{
    Agent, AgentBuilder, AgentDefinition, DEFAULT_AGENT, Discovery, KigiPaths, ModelChoice,
    PermissionMode,
};
use kigi_core::subagent::{Coordinator, CoordinatorSetup};
use kigi_core::{Session, SessionSetup, SessionStore, new_session_id};
use kigi_model::CancellationToken;
use kigi_model::{ModelClient, ModelConfigError, ModelFlags, ModelsConfig};
use kigi_protocol::SessionEvent;
use kigi_testkit::ScriptedServer;
use kigi_tools::ToolRegistry;

use super::demo;
use super::progress::{self, OutputFormat};

/// Everything `kigi -p` was told.
#[derive(Debug, Clone)]
pub struct PrintArgs {
    pub prompt: String,
    pub format: OutputFormat,
    pub agent: Option<String>,
    pub agent_file: Option<PathBuf>,
    pub permission_mode: Option<PermissionMode>,
    pub resume: Option<String>,
    pub continue_last: bool,
    pub or_demo: bool,
    pub model: ModelFlags,
}

/// Runs `kigi -p`.
pub fn run(args: PrintArgs) -> anyhow::Result<ExitCode> {
    let paths = KigiPaths::from_env();
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let store = SessionStore::new(paths.sessions_dir());
    let resume_id =
        match (&args.resume, args.continue_last) {
            (Some(id), _) => Some(id.clone()),
            (None, true) => Some(store.latest_in(&cwd)?.with_context(|| {
                format!("--continue: no session was started in {}", cwd.display())
            })?),
            (None, false) => None,
        };
    let session_agent = match &resume_id {
        Some(id) => store.load(id)?.agent().map(str::to_owned),
        None => None,
    };
    let discovery = Discovery::load(paths.clone())?;
    let agent = build_agent(
        &discovery,
        &cwd,
        args.agent_file.as_deref(),
        args.agent.as_deref().or(session_agent.as_deref()),
    )?;
    let models = ModelsConfig::load(&paths.config_file())?;
    let client = match client_for(&models, &agent, &args.model) {
        Ok(client) => client,
        Err(
            error @ (ModelConfigError::MissingEndpoint { .. }
            | ModelConfigError::MissingModel { .. }),
        ) if args.or_demo => {
            eprintln!(
                "kigi: {error}\nkigi: running the offline demo on the bundled scripted model instead: its answers are scripted, its tool calls are real (read-only)."
            );
            return demo::run(&args.prompt, args.format);
        }
        Err(error) => return Err(error.into()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let run = Run {
        store: &store,
        discovery,
        models,
        agent: &agent,
        cwd: &cwd,
        args: &args,
        resume: resume_id.as_deref(),
    };
    runtime.block_on(run_session(run, client, None))
}

/// What one print-mode run works with.
#[derive(Debug)]
pub struct Run<'a> {
    pub store: &'a SessionStore,
    pub discovery: Discovery,
    pub models: ModelsConfig,
    pub agent: &'a Agent,
    pub cwd: &'a Path,
    pub args: &'a PrintArgs,
    pub resume: Option<&'a str>,
}

/// The agent: `--agent-file`, `--agent`, the resumed session's, or the default `kigi`.
pub fn build_agent(
    discovery: &Discovery,
    cwd: &Path,
    agent_file: Option<&Path>,
    name: Option<&str>,
) -> anyhow::Result<Agent> {
    let definition = match agent_file {
        Some(file) => AgentDefinition::from_file(file)
            .with_context(|| format!("--agent-file {}", file.display()))?,
        None => {
            let name = name.unwrap_or(DEFAULT_AGENT);
            match discovery.by_name_in_cwd(name, cwd)? {
                Some(found) => found.definition,
                None => anyhow::bail!(
                    "no agent named `{name}`; available: {}",
                    discovery.discover(cwd).names().join(", ")
                ),
            }
        }
    };
    Ok(AgentBuilder::new(cwd)
        .with_paths(discovery.paths.clone())
        .from_definition(definition)
        .build()?)
}

/// The model: `--model`, else the agent's `model:` when it names a configured alias, else
/// `KIGI_MODEL` and `default_model`.
fn client_for(
    models: &ModelsConfig,
    agent: &Agent,
    flags: &ModelFlags,
) -> Result<ModelClient, ModelConfigError> {
    let mut flags = flags.clone();
    if flags.model.is_none()
        && let ModelChoice::Named(alias) = agent.definition.model.effective(&models.aliases())
    {
        flags.model = Some(alias);
    }
    models.client(&flags, &|name| std::env::var(name).ok())
}

/// Runs one turn and prints the result. `server` keeps a demo's scripted model alive.
pub async fn run_session(
    run: Run<'_>,
    client: ModelClient,
    server: Option<ScriptedServer>,
) -> anyhow::Result<ExitCode> {
    let Run {
        store,
        discovery,
        models,
        agent,
        cwd,
        args,
        resume,
    } = run;
    let session_id = resume.map_or_else(new_session_id, str::to_owned);
    let cancel = CancellationToken::new();
    let setup = SessionSetup::for_agent(
        agent,
        client.clone(),
        ToolRegistry::built_in(),
        cwd,
        args.permission_mode,
    );
    // Cancelling `cancel` (Ctrl-C) stops the turn and every child through the same token.
    let coordinator = Coordinator::new(CoordinatorSetup {
        session_id: session_id.clone(),
        store: store.clone(),
        discovery,
        models,
        base_url_override: args.model.base_url.clone(),
        env: Arc::new(|name: &str| std::env::var(name).ok()),
        parent_client: client,
        parent_tools: agent.tools.clone(),
        parent_mode: setup.runtime.mode(),
        cwd: cwd.to_path_buf(),
        cancel: cancel.clone(),
    });
    let setup = setup.with_coordinator(&coordinator);
    let format = args.format;
    let on_event = Arc::new(move |event: &SessionEvent| progress::show_event(format, event));
    let mut session = match resume {
        Some(id) => {
            let (session, warnings) = Session::resume(store, id, setup, on_event)?;
            for warning in warnings {
                eprintln!("kigi: warning: {warning}");
            }
            session
        }
        None => Session::start_as(store, &session_id, setup, on_event)?,
    };
    super::cancel_on_ctrl_c(&cancel);
    let outcome = session.run_turn(&args.prompt, &cancel).await;
    drop(server);
    Ok(ExitCode::from(progress::finish(
        format,
        session.id(),
        &outcome,
    )))
}
