//! `kigi -p PROMPT`: one headless turn of a real session, and `kigi demo`, the same on the
//! bundled scripted model.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use kigi_agent::PermissionMode;
use kigi_core::host::{AgentChoice, HostError, HostedSession, OpenRequest, SessionStart};
use kigi_core::subagent::EnvLookup;
use kigi_model::{ModelConfigError, ModelFlags};

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
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let host = super::session_host()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let request = OpenRequest {
        start: match (&args.resume, args.continue_last) {
            (Some(id), _) => SessionStart::Resume(id.clone()),
            (None, true) => SessionStart::Continue,
            (None, false) => SessionStart::New,
        },
        agent: match (&args.agent_file, &args.agent) {
            (Some(file), _) => AgentChoice::File(file.clone()),
            (None, Some(name)) => AgentChoice::Named(name.clone()),
            (None, None) => AgentChoice::Default,
        },
        model: args.model.clone(),
        permission_mode: args.permission_mode,
        ..OpenRequest::new(&cwd)
    };
    let ran = runtime.block_on(async {
        match host.open(request) {
            Ok(session) => run_session(session, &args.prompt, args.format)
                .await
                .map(Some),
            Err(HostError::Model(
                error @ (ModelConfigError::MissingEndpoint { .. }
                | ModelConfigError::MissingModel { .. }),
            )) if args.or_demo => {
                eprintln!(
                    "kigi: {error}\nkigi: running the offline demo on the bundled scripted model instead: its answers are scripted, its tool calls are real (read-only)."
                );
                Ok(None)
            }
            Err(error) => Err(error.into()),
        }
    })?;
    match ran {
        Some(code) => Ok(code),
        None => demo::run(&args.prompt, args.format),
    }
}

/// The process environment, as the host reads it (API keys).
pub fn process_env() -> EnvLookup {
    Arc::new(|name: &str| std::env::var(name).ok())
}

/// Runs one turn of an open session, shows its events as they come, and prints the result.
pub async fn run_session(
    mut session: HostedSession,
    prompt: &str,
    format: OutputFormat,
) -> anyhow::Result<ExitCode> {
    for warning in session.warnings() {
        eprintln!("kigi: warning: {warning}");
    }
    let control = session.control();
    super::interrupt_on_ctrl_c(&control);
    let outcome = {
        let events = session.events();
        let turn = control.run_turn(prompt);
        tokio::pin!(turn);
        loop {
            tokio::select! {
                biased;
                Some(event) = events.next() => progress::show_event(format, &event),
                outcome = &mut turn => break outcome,
            }
        }
    };
    let id = session.id().to_owned();
    // Children still running end with the session; their last events are shown.
    let mut events = session.shutdown().await;
    while let Some(event) = events.next().await {
        progress::show_event(format, &event);
    }
    Ok(ExitCode::from(progress::finish(format, &id, &outcome)))
}
