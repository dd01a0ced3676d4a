//! `kigi swarm`: a batch run without a main agent. One template over the items of a file,
//! progress on stderr, the aggregate on stdout, every member's transcript on disk.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::PermissionMode;
use kigi_core::host::SwarmOpen;
use kigi_core::swarm::{
    PlanFault, RecordedRequest, RecordingWatch, SwarmRecord, SwarmReport, SwarmRequest, SwarmRun,
    plan_with_effort, read_record, resume_plan, run_plan,
};
use kigi_model::ModelFlags;

use super::progress::{self, OutputFormat};
use super::swarm_watch::BatchWatch;

/// `kigi swarm`'s own flags.
#[derive(Debug, Clone, clap::Args)]
pub struct SwarmOptions {
    /// The task for each item; `{{item}}` (or `{{ item }}`) is replaced by the item.
    #[arg(long)]
    pub template: Option<String>,
    /// One item per line, or a JSON array of strings; 2 to 10,000 items.
    #[arg(long, value_name = "FILE")]
    pub items_file: Option<PathBuf>,
    /// Run each member on this `[agent_executors.<id>]` (`srun`, `kubectl run`, `ssh`, another
    /// harness) instead of in this process (default: `[swarm] executor`).
    #[arg(long, value_name = "ID")]
    pub executor: Option<String>,
    /// Rerun only the members of swarm session SESSION that did not complete (its recorded
    /// template and items; the new members' transcripts join the same session).
    #[arg(long, value_name = "SESSION")]
    pub resume: Option<String>,
    /// A short label for the swarm, shown in progress and the report.
    #[arg(long)]
    pub description: Option<String>,
    /// The agent each member runs as (default: general-purpose).
    #[arg(long, value_name = "AGENT")]
    pub subagent_type: Option<String>,
    /// The members' tools: read-only, read-write, execute or all (default: the agent's).
    #[arg(long, value_name = "MODE")]
    pub capability_mode: Option<String>,
    /// none, or worktree: each member works in its own git worktree and branch.
    #[arg(long)]
    pub isolation: Option<String>,
    /// A model alias for the members (default: the session's model).
    #[arg(long, value_name = "ALIAS")]
    pub member_model: Option<String>,
    /// Every member's reasoning effort: low, medium or high (default: the model's).
    #[arg(long, value_name = "EFFORT")]
    pub effort: Option<String>,
    /// The most members running at once (default: `[swarm] max_concurrency`).
    #[arg(long, value_name = "N")]
    pub max_concurrency: Option<usize>,
    /// text (a report; the default), json (one object) or stream-json (every member's
    /// events as lines, then the report).
    #[arg(long, value_enum)]
    pub output_format: Option<OutputFormat>,
}

/// `template` with every `{{ item }}` spelled `{{item}}`, the form the swarm replaces.
pub fn normalize_template(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) if after[..end].trim() == "item" => {
                out.push_str("{{item}}");
                rest = &after[end + 2..];
            }
            _ => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The report as JSON, durations with their unit in the key (`duration_ms`).
fn report_json(report: &SwarmReport, session_id: &str) -> anyhow::Result<serde_json::Value> {
    let mut value = serde_json::to_value(report)?;
    if let Some(object) = value.as_object_mut() {
        if let Some(duration) = object.remove("duration") {
            object.insert("duration_ms".into(), duration);
        }
        object.insert("session_id".into(), session_id.into());
    }
    Ok(value)
}

/// The `swarm_result` line of a streamed batch: counts, not members.
fn totals_json(report: &SwarmReport, session_id: &str) -> serde_json::Value {
    let counts = report.counts();
    serde_json::json!({
        "type": "swarm_result",
        "description": report.description,
        "members": report.members.len(),
        "completed": counts.completed,
        "failed": counts.failed,
        "rate_limited": counts.rate_limited,
        "backgrounded": counts.backgrounded,
        "cancelled": counts.cancelled,
        "still_running": counts.still_running,
        "duration_ms": report.duration.as_millis() as u64,
        "tokens": report.tokens,
        "session_id": session_id,
    })
}

/// The largest items file read: 10,000 items of up to 6 KiB each.
const ITEMS_FILE_CAP: u64 = 64 * 1024 * 1024;

/// Items: a JSON array of strings, or one per line (blank lines skipped).
pub fn read_items(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = kigi_agent::read_bounded(path, ITEMS_FILE_CAP)
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

/// What this run does: a new swarm over items, or the rest of a recorded one (its record is
/// read once the session is open, under its lock, so a run still writing it has finished).
enum Batch {
    New(SwarmRequest),
    Resume { session: String },
}

/// The batch `args` ask for, every flag problem named.
fn batch_of(args: &SwarmOptions, host: &kigi_core::host::SessionHost) -> anyhow::Result<Batch> {
    if let Some(session) = &args.resume {
        for (given, flag) in [
            (args.template.is_some(), "--template"),
            (args.items_file.is_some(), "--items-file"),
            (args.description.is_some(), "--description"),
            (args.subagent_type.is_some(), "--subagent-type"),
            (args.capability_mode.is_some(), "--capability-mode"),
            (args.isolation.is_some(), "--isolation"),
            (args.member_model.is_some(), "--member-model"),
            (args.effort.is_some(), "--effort"),
        ] {
            if given {
                anyhow::bail!(
                    "{flag} cannot be used with --resume: a resumed swarm reruns its recorded request (only --executor, --max-concurrency and --output-format may change)"
                );
            }
        }
        // Checked before the session is opened (which appends to it): a session that is
        // not a swarm is left untouched. Read again, authoritatively, under its lock.
        let path = host.swarm_record_path(session)?;
        read_record(&path).with_context(|| format!("--resume {session}"))?;
        return Ok(Batch::Resume {
            session: session.clone(),
        });
    }
    let (Some(template), Some(items_file)) = (&args.template, &args.items_file) else {
        anyhow::bail!(
            "kigi swarm needs --template and --items-file (or --resume SESSION to rerun what a swarm did not complete)"
        );
    };
    let items = read_items(items_file)?;
    if items.len() < 2 {
        anyhow::bail!(
            "--items-file {} has {} item(s); a swarm needs at least 2 (for one task, run `kigi -p \"PROMPT\"`)",
            items_file.display(),
            items.len()
        );
    }
    Ok(Batch::New(SwarmRequest {
        description: args.description.clone().unwrap_or_else(|| "swarm".into()),
        prompt_template: normalize_template(template),
        items,
        subagent_type: args.subagent_type.clone(),
        capability_mode: args.capability_mode.clone(),
        isolation: args.isolation.clone(),
        model: args.member_model.clone(),
        executor: args
            .executor
            .clone()
            .or_else(|| host.discovery().swarm.executor.clone()),
        batch: true,
    }))
}

fn nothing_started(faults: &[PlanFault]) -> anyhow::Error {
    let faults: Vec<String> = faults.iter().map(ToString::to_string).collect();
    anyhow::anyhow!("nothing was started:\n- {}", faults.join("\n- "))
}

pub fn run(
    args: SwarmOptions,
    permission_mode: Option<PermissionMode>,
    format: Option<OutputFormat>,
    model: &ModelFlags,
    rules: kigi_agent::permissions::PermissionRules,
    sandbox: Option<kigi_tools::sandbox::SandboxMode>,
) -> anyhow::Result<ExitCode> {
    let format = args.output_format.or(format).unwrap_or_default();
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let host = super::session_host()?;
    let batch = batch_of(&args, &host)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (summary, resume) = match &batch {
        Batch::New(request) => (
            format!(
                "swarm over {} items: {}",
                request.items.len(),
                request.prompt_template
            ),
            None,
        ),
        Batch::Resume { session } => (
            "resumed: the members that did not complete".to_owned(),
            Some(session.clone()),
        ),
    };
    let (report, swarm, printer, unrecorded) = runtime.block_on(async {
        let mut swarm = host.open_swarm(SwarmOpen {
            cwd,
            model: model.clone(),
            permission_mode,
            rules,
            sandbox,
            summary,
            resume,
        })?;
        // Every fault at once, before a member starts or a record is written.
        let (plan, record) = match &batch {
            Batch::New(request) => {
                let plan =
                    plan_with_effort(request, args.effort.as_deref(), &**swarm.coordinator())
                        .map_err(|faults| nothing_started(&faults))?;
                let recorded = RecordedRequest::of(request, args.effort.as_deref());
                (plan, SwarmRecord::create(&swarm.record_path(), &recorded)?)
            }
            Batch::Resume { session } => {
                let recorded = read_record(&swarm.record_path())
                    .with_context(|| format!("--resume {session}"))?;
                let plan = resume_plan(&recorded, args.executor.as_deref(), &**swarm.coordinator())
                    .map_err(|faults| nothing_started(&faults))?;
                errln!(
                    "kigi: resuming: {} of {} members did not complete and run again",
                    plan.members.len(),
                    recorded.request.item_count()
                );
                (plan, SwarmRecord::append(&swarm.record_path())?)
            }
        };
        // The members' events are read as they come (and shown as JSON lines when asked),
        // so they never pile up.
        let printer = swarm.take_events().map(|mut events| {
            tokio::spawn(async move {
                while let Some(event) = events.next().await {
                    if format == OutputFormat::StreamJson {
                        progress::show_json_line(&event);
                    }
                }
            })
        });
        super::cancel_on_signal(swarm.cancel());
        let terminal = std::io::stderr().is_terminal();
        let shown = BatchWatch::new(format, terminal, plan.members.len());
        let watch = RecordingWatch::new(record, &shown);
        let run = SwarmRun {
            effort: None,
            max_concurrency: args.max_concurrency,
            streams_members: format == OutputFormat::StreamJson,
        };
        let report = run_plan(swarm.coordinator(), plan, run, swarm.cancel(), &watch).await;
        if terminal {
            errln!();
        }
        // Members past the deadline are not left to die with the process unannounced.
        let left = swarm.wind_down().await;
        if !left.is_empty() {
            errln!(
                "kigi: {} member(s) still running at the swarm's deadline were cancelled: {}",
                left.len(),
                left.join(", ")
            );
        }
        anyhow::Ok((report, swarm, printer, watch.error()))
    })?;
    let session_id = swarm.id().to_owned();
    let interrupted = swarm.cancel().is_cancelled();
    let streamed = format == OutputFormat::StreamJson;
    swarm.finish(&report, streamed)?;
    if let Some(printer) = printer {
        // The stream ends with `finish`: every member event is out before the aggregate.
        let _ = runtime.block_on(printer);
    }
    match format {
        OutputFormat::Json => outln!("{}", report_json(&report, &session_id)?),
        // Every member's line went out as it finished: the end says the totals.
        OutputFormat::StreamJson => outln!("{}", totals_json(&report, &session_id)),
        OutputFormat::Text => outln!("{}", report.render()),
    }
    errln!(
        "kigi: swarm session {session_id} (members: kigi sessions show {session_id} --agent sub-N; rerun what did not complete: kigi swarm --resume {session_id})"
    );
    if let Some(error) = &unrecorded {
        errln!(
            "kigi: some members' ends could not be recorded, so --resume may rerun them: {error}"
        );
    }
    let counts = report.counts();
    Ok(if interrupted {
        ExitCode::from(130)
    } else if counts.failed + counts.rate_limited + counts.cancelled + counts.still_running > 0
        || unrecorded.is_some()
    {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_placeholders_with_spaces_are_read_as_item() {
        assert_eq!(
            normalize_template("Review {{ item }} and {{item}}, {{  item}}."),
            "Review {{item}} and {{item}}, {{item}}."
        );
        assert_eq!(normalize_template("{{ other }} {{"), "{{ other }} {{");
        assert_eq!(normalize_template("ünï {{item }} é"), "ünï {{item}} é");
    }

    #[test]
    fn report_durations_carry_their_unit() {
        let report = SwarmReport {
            description: "d".into(),
            members: Vec::new(),
            duration: std::time::Duration::from_millis(1500),
            tokens: 3,
        };
        let value = report_json(&report, "s-1").unwrap();
        assert_eq!(
            value,
            serde_json::json!({"description": "d", "members": [], "duration_ms": 1500,
                               "tokens": 3, "session_id": "s-1"})
        );
    }
}
