//! `kigi swarm`: a batch run without a main agent. One template over the items of a file,
//! progress on stderr, the aggregate on stdout, every member's transcript on disk.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::PermissionMode;
use kigi_core::host::SwarmOpen;
use kigi_core::swarm::{SwarmCounts, SwarmReport, SwarmRequest, SwarmRun, run_swarm};
use kigi_model::ModelFlags;

use super::progress::{self, OutputFormat};

/// `kigi swarm`'s own flags.
#[derive(Debug, Clone, clap::Args)]
pub struct SwarmOptions {
    /// The task for each item; `{{item}}` (or `{{ item }}`) is replaced by the item.
    #[arg(long)]
    pub template: String,
    /// One item per line, or a JSON array of strings; 2 to 128 items.
    #[arg(long, value_name = "FILE")]
    pub items_file: PathBuf,
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
    format: Option<OutputFormat>,
    model: &ModelFlags,
    rules: kigi_agent::permissions::PermissionRules,
    sandbox: Option<kigi_tools::sandbox::SandboxMode>,
) -> anyhow::Result<ExitCode> {
    let format = args.output_format.or(format).unwrap_or_default();
    let items = read_items(&args.items_file)?;
    if items.len() < 2 {
        anyhow::bail!(
            "--items-file {} has {} item(s); a swarm needs at least 2 (for one task, run `kigi -p \"PROMPT\"`)",
            args.items_file.display(),
            items.len()
        );
    }
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let host = super::session_host()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let request = SwarmRequest {
        description: args.description.unwrap_or_else(|| "swarm".into()),
        prompt_template: normalize_template(&args.template),
        items,
        subagent_type: args.subagent_type,
        capability_mode: args.capability_mode,
        isolation: args.isolation,
        model: args.member_model,
    };
    let (report, swarm, printer) = runtime.block_on(async {
        let mut swarm = host.open_swarm(SwarmOpen {
            cwd,
            model: model.clone(),
            permission_mode,
            rules,
            sandbox,
            summary: format!(
                "swarm over {} items: {}",
                request.items.len(),
                request.prompt_template
            ),
        })?;
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
        let total = request.items.len();
        let terminal = std::io::stderr().is_terminal();
        let run = SwarmRun {
            effort: args.effort.as_deref(),
            max_concurrency: args.max_concurrency,
        };
        let report = run_swarm(
            swarm.coordinator(),
            &request,
            run,
            swarm.cancel(),
            &|counts| show_progress(counts, total, terminal),
        )
        .await
        .map_err(|faults| {
            let faults: Vec<String> = faults.iter().map(ToString::to_string).collect();
            anyhow::anyhow!("nothing was started:\n- {}", faults.join("\n- "))
        })?;
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
        anyhow::Ok((report, swarm, printer))
    })?;
    let session_id = swarm.id().to_owned();
    let interrupted = swarm.cancel().is_cancelled();
    swarm.finish(&report)?;
    if let Some(printer) = printer {
        // The stream ends with `finish`: every member event is out before the aggregate.
        let _ = runtime.block_on(printer);
    }
    match format {
        OutputFormat::Json => outln!("{}", report_json(&report, &session_id)?),
        OutputFormat::StreamJson => {
            let mut value = report_json(&report, &session_id)?;
            value["type"] = serde_json::Value::String("swarm_result".into());
            outln!("{value}");
        }
        OutputFormat::Text => outln!("{}", report.render()),
    }
    errln!(
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
