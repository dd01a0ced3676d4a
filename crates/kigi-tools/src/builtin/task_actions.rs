//! `get_task_output` and `kill_task`: the background-task side of `run_terminal_cmd`.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::schema::parameters_of;

use crate::tool::{Tool, ToolFuture, ToolOutput, parse_arguments};

/// The longest a call may wait for a task.
const MAX_WAIT: Duration = Duration::from_secs(600);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OutputArgs {
    task_id: String,
    /// Wait up to this many seconds for it to finish (default 0, at most 600).
    #[serde(default)]
    wait_secs: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct KillArgs {
    task_id: String,
}

fn unknown(id: &str, context: &ToolContext) -> ToolOutput {
    let ids = context.tasks.ids();
    ToolOutput::error(format!(
        "no task `{id}`; tasks in this session: {}",
        if ids.is_empty() {
            "none".into()
        } else {
            ids.join(", ")
        }
    ))
}

/// `get_task_output`.
#[derive(Debug)]
pub struct GetTaskOutput;

impl Tool for GetTaskOutput {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("get_task_output")
    }

    fn parameters(&self) -> Value {
        parameters_of::<OutputArgs>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: OutputArgs = parse_arguments("get_task_output", arguments)?;
            let wait = args
                .wait_secs
                .filter(|s| s.is_finite() && *s > 0.0)
                .map_or(Duration::ZERO, Duration::from_secs_f64)
                .min(MAX_WAIT);
            let report = tokio::select! {
                report = context.tasks.report(&args.task_id, wait) => report,
                () = context.cancel.cancelled() => context.tasks.report(&args.task_id, Duration::ZERO).await,
            };
            Ok(match report {
                Some(report) => ToolOutput::ok(report.render()),
                None => unknown(&args.task_id, context),
            })
        })
    }
}

/// `kill_task`.
#[derive(Debug)]
pub struct KillTask;

impl Tool for KillTask {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("kill_task")
    }

    fn parameters(&self) -> Value {
        parameters_of::<KillArgs>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: KillArgs = parse_arguments("kill_task", arguments)?;
            if !context.tasks.kill(&args.task_id) {
                return Ok(unknown(&args.task_id, context));
            }
            let report = context
                .tasks
                .report(&args.task_id, Duration::from_secs(5))
                .await;
            Ok(ToolOutput::ok(report.map_or_else(
                || format!("{} killed", args.task_id),
                |r| r.render(),
            )))
        })
    }
}
