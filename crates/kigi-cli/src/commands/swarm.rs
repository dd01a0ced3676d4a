//! `kigi swarm`: a batch run without a main agent. One template over the items of a file,
//! progress on stderr, the aggregate on stdout, every member's transcript on disk.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use kigi_agent::{Discovery, KigiPaths, PermissionMode};
use kigi_core::subagent::{Coordinator, CoordinatorSetup};
use kigi_core::swarm::{SwarmCounts, SwarmRequest, run_swarm};
use kigi_core::{SessionStore, new_session_id};
use kigi_model::{CancellationToken, ModelFlags, ModelsConfig};
use kigi_protocol::{SessionEvent, TurnEndReason};

use super::progress::OutputFormat;

/// `kigi swarm`'s own flags.
#[derive(Debug, Clone, clap::Args)]
pub struct SwarmOptions {
    /// The task for each item; must contain {{item}}.
    #[arg(long)]
    pub template: String,
    /// One item per line, or a JSON array of strings.
    #[arg(long, value_name = "FILE")]
    pub items_file: PathBuf,
    /// A short label for the swarm.
    #[arg(long)]
    pub description: Option<String>,
    #[arg(long)]
    pub subagent_type: Option<String>,
    #[arg(long)]
    pub capability_mode: Option<String>,
    /// none or worktree.
    #[arg(long)]
    pub isolation: Option<String>,
    /// A model alias for the members (default: the session's model).
    #[arg(long)]
    pub member_model: Option<String>,
    #[arg(long)]
    pub max_concurrency: Option<usize>,
}

/// Items: a JSON array of strings, or one per line (blank lines skipped).
pub fn read_items(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--items-file {}", path.display()))?;
    if text.trim_start().starts_with('[') {
        return serde_json::from_str::<Vec<String>>(&text).with_context(|| {
            format!(
                "--items-file {}: not a JSON array of strings",
                path.display()
            )
        });
    }
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect())
}

pub fn run(
    args: SwarmOptions,
    permission_mode: Option<PermissionMode>,
    format: OutputFormat,
    model: &ModelFlags,
) -> anyhow::Result<ExitCode> {
    let items = read_items(&args.items_file)?;
    let paths = KigiPaths::from_env();
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let discovery = Discovery::load(paths.clone())?;
    let models = ModelsConfig::load(&paths.config_file())?;
    let client = models.client(model, &|name| std::env::var(name).ok())?;
    let parent = super::print::build_agent(&discovery, &cwd, None, None)?;
    let store = SessionStore::new(paths.sessions_dir());
    let session_id = new_session_id();
    let mut writer = store.create(&session_id)?;
    writer.append(&writer.start_event("swarm", &client.endpoint().model, &cwd))?;
    writer.append(&SessionEvent::UserMessage {
        text: format!("swarm over {} items: {}", items.len(), args.template),
    })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let cancel = CancellationToken::new();
    let coordinator_setup = CoordinatorSetup {
        session_id: session_id.clone(),
        store: store.clone(),
        discovery,
        models,
        base_url_override: model.base_url.clone(),
        env: Arc::new(|name: &str| std::env::var(name).ok()),
        parent_client: client,
        parent_tools: parent.tools.clone(),
        parent_mode: permission_mode.unwrap_or(parent.definition.permission_mode),
        cwd,
        cancel: cancel.clone(),
    };
    let request = SwarmRequest {
        description: args.description.unwrap_or_else(|| "swarm".into()),
        prompt_template: args.template,
        items,
        subagent_type: args.subagent_type,
        capability_mode: args.capability_mode,
        isolation: args.isolation,
        model: args.member_model,
    };
    let report = runtime.block_on(async {
        let coordinator = Coordinator::new(coordinator_setup);
        super::cancel_on_ctrl_c(&cancel);
        let total = request.items.len();
        let terminal = std::io::stderr().is_terminal();
        let report = run_swarm(
            &coordinator,
            &request,
            args.max_concurrency,
            &cancel,
            &|counts| show_progress(counts, total, terminal),
        )
        .await
        .map_err(|faults| anyhow::anyhow!("nothing was started:\n- {}", faults.join("\n- ")))?;
        if terminal {
            eprintln!();
        }
        anyhow::Ok(report)
    })?;
    writer.append(&SessionEvent::AssistantMessage {
        text: report.render(),
        thinking: String::new(),
        thinking_signature: None,
        tool_calls: Vec::new(),
    })?;
    let interrupted = cancel.is_cancelled();
    writer.append(&SessionEvent::TurnEnd {
        reason: if interrupted {
            TurnEndReason::Cancelled
        } else {
            TurnEndReason::Completed
        },
        steps: 0,
    })?;
    match format {
        OutputFormat::Json | OutputFormat::StreamJson => {
            let mut value = serde_json::to_value(&report)?;
            value["session_id"] = serde_json::Value::String(session_id.clone());
            println!("{value}");
        }
        OutputFormat::Text => println!("{}", report.render()),
    }
    eprintln!(
        "kigi: swarm session {session_id} (members: kigi sessions show {session_id} --agent sub-N)"
    );
    let counts = report.counts();
    Ok(if interrupted {
        ExitCode::from(130)
    } else if counts.failed + counts.rate_limited + counts.cancelled > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// A bar with counts by outcome: redrawn in place on a terminal, one line per change otherwise.
fn show_progress(counts: &SwarmCounts, total: usize, terminal: bool) {
    let done = counts.completed
        + counts.failed
        + counts.rate_limited
        + counts.backgrounded
        + counts.cancelled
        + counts.still_running;
    let width = 30;
    let filled = (done * width).checked_div(total).unwrap_or(0);
    let line = format!(
        "[{}{}] {done}/{total}  running {}  completed {}  failed {}  rate_limited {}  backgrounded {}  cancelled {}",
        "#".repeat(filled),
        ".".repeat(width - filled),
        counts.running,
        counts.completed,
        counts.failed,
        counts.rate_limited,
        counts.backgrounded,
        counts.cancelled
    );
    let mut err = std::io::stderr().lock();
    if terminal {
        let _ = write!(err, "\r{line}");
    } else {
        let _ = writeln!(err, "{line}");
    }
    let _ = err.flush();
}
