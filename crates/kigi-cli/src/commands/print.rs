//! `kigi -p PROMPT`: one headless turn of a real session, and `kigi demo`, the same on the
//! bundled scripted model.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use kigi_agent::PermissionMode;
use kigi_core::host::{EventStream, HostError, HostedSession};
use kigi_core::subagent::{DEFAULT_CHILD_TIMEOUT, EnvLookup};
use kigi_model::CancellationToken;
use kigi_model::ModelConfigError;
use kigi_protocol::HostCommand;

use super::demo;
use super::progress::{self, EventView, OutputFormat, RunFacts};
use super::text_progress::TICK;

/// Everything `kigi -p` was told.
#[derive(Debug, Clone)]
pub struct PrintArgs {
    pub prompt: String,
    pub format: OutputFormat,
    pub or_demo: bool,
    /// `--no-wait`: cancel background children still running at the answer.
    pub no_wait: bool,
    /// Which session, agent and model, and under which rules.
    pub session: super::session_flags::SessionFlags,
}

/// Runs `kigi -p`.
pub fn run(args: PrintArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let host = super::session_host()?;
    let runtime = super::runtime()?;
    let request = args.session.open_request(&cwd);
    let ran = runtime.block_on(async {
        match host.open(request) {
            Ok(session) => run_session(session, &args.prompt, args.format, args.no_wait)
                .await
                .map(Some),
            Err(HostError::Model(
                error @ (ModelConfigError::MissingEndpoint { .. }
                | ModelConfigError::MissingModel { .. }),
            )) if args.or_demo => {
                errln!(
                    "kigi: {error}\nkigi: running the offline demo on the bundled scripted model instead: its answers are scripted, its tool calls are real (read-only)."
                );
                Ok(None)
            }
            Err(error) => Err(error.into()),
        }
    });
    // A tool stuck in a system call (a FIFO read on the blocking pool) must not hold the exit.
    runtime.shutdown_timeout(super::RUNTIME_SHUTDOWN);
    match ran? {
        Some(code) => Ok(code),
        None => demo::run(&args.prompt, args.format),
    }
}

/// The process environment, as the host reads it (API keys).
pub fn process_env() -> EnvLookup {
    Arc::new(|name: &str| std::env::var(name).ok())
}

/// Runs one turn of an open session, shows its events as they come, waits for the background
/// children it started (unless `no_wait`), and prints the result.
pub async fn run_session(
    mut session: HostedSession,
    prompt: &str,
    format: OutputFormat,
    no_wait: bool,
) -> anyhow::Result<ExitCode> {
    for warning in session.warnings() {
        errln!("kigi: warning: {warning}");
    }
    if session.permission_mode() == PermissionMode::BypassPermissions {
        errln!(
            "kigi: permission mode bypassPermissions: every tool call runs without asking (writes to kigi's instruction files and outside the workspace are still refused)"
        );
    }
    let control = session.control();
    // The first signal interrupts the turn and stops the wait for children; a second exits.
    let stop = CancellationToken::new();
    {
        let (control, stop) = (control.clone(), stop.clone());
        super::signals::on_ending_signal(move || {
            let _ = control.submit(HostCommand::Interrupt);
            stop.cancel();
        });
    }
    let coordinator = Arc::clone(session.coordinator());
    let id = session.id().to_owned();
    let started = std::time::Instant::now();
    let mut view = EventView::new(format);
    let events = session.events();
    let outcome = showing_events(events, &mut view, control.run_turn(prompt)).await;
    let background = coordinator.running();
    if !background.is_empty() && !no_wait && !stop.is_cancelled() {
        errln!(
            "kigi: waiting for {} background subagent(s) to finish ({}); Ctrl-C stops them, --no-wait does not wait",
            background.len(),
            background.join(", ")
        );
        let waited = async {
            tokio::select! {
                _ = coordinator.wait_all(DEFAULT_CHILD_TIMEOUT) => {}
                () = stop.cancelled() => {}
            }
        };
        showing_events(events, &mut view, waited).await;
    }
    let cancelled = coordinator.running();
    if !cancelled.is_empty() {
        errln!(
            "kigi: cancelling {} background subagent(s) still running: {}",
            cancelled.len(),
            cancelled.join(", ")
        );
    }
    // Children still running end with the session (their transcripts record it); their last
    // events are shown.
    let mut events = session.shutdown().await;
    while let Some(event) = events.next().await {
        view.show(&event);
    }
    view.finish();
    let outcomes = coordinator.results_of(&background);
    let facts = RunFacts {
        model: view.model().map(str::to_owned),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    Ok(ExitCode::from(progress::finish(
        format, &id, &outcome, &outcomes, &facts,
    )))
}

/// Runs `work` while showing the session's events as they arrive, and, when the view is
/// live (a terminal), redrawing its status line.
pub(super) async fn showing_events<T>(
    events: &mut EventStream,
    view: &mut EventView,
    work: impl std::future::Future<Output = T>,
) -> T {
    tokio::pin!(work);
    let live = view.is_live();
    let mut ticker = tokio::time::interval(TICK);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            biased;
            Some(event) = events.next() => view.show(&event),
            done = &mut work => return done,
            _ = ticker.tick(), if live => view.tick(),
        }
    }
}
