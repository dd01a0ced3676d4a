//! The tools the coordinator adds to a main agent: `spawn_subagent`,
//! `get_command_or_subagent_output` (subagents and background commands alike) and a
//! `kill_task` that stops either.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use kigi_tools::{
    Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec, parameters_of, parse_arguments,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::coordinator::{Coordinator, SpawnOutcome};
use super::spawn_args::SpawnArgs;
use kigi_tools::built_in_spec;

/// The longest a wait may last.
const MAX_WAIT: Duration = Duration::from_secs(600);
/// The most ids one wait takes.
const MAX_IDS: usize = 20;

/// `spawn_subagent`.
#[derive(Debug)]
pub struct SpawnSubagent(pub Arc<Coordinator>);

impl Tool for SpawnSubagent {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("spawn_subagent")
    }

    fn parameters(&self) -> Value {
        parameters_of::<SpawnArgs>()
    }

    fn description(&self) -> Option<String> {
        let mut text = String::from(
            "Hand a focused task to a subagent with its own context; it reports back when done. \
             Several calls in one response run at the same time. Types:",
        );
        for (name, description) in self.0.available_types() {
            let _ = write!(text, "\n- {name}: {description}");
        }
        if let Some(advice) = self
            .0
            .setup
            .discovery
            .subagents
            .policy_scope()
            .lists
            .advice_summary()
        {
            let _ = write!(text, "\nAll types: {advice}.");
        }
        Some(text)
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: SpawnArgs = parse_arguments("spawn_subagent", arguments)?;
            let checked = args.check().map_err(|detail| ToolError::InvalidArguments {
                tool: "spawn_subagent".into(),
                detail,
            })?;
            Ok(match self.0.spawn(checked, &context.cancel).await {
                Ok(SpawnOutcome::Finished(result)) => {
                    let failed = result.status != super::result::ChildStatus::Completed;
                    ToolOutput {
                        content: result.render(),
                        is_error: failed,
                        images: Vec::new(),
                    }
                }
                Ok(SpawnOutcome::Background { id, backgrounded }) => {
                    ToolOutput::ok(if backgrounded {
                        format!(
                            "backgrounded: true. Subagent {id} is still running and has moved to the background; it was not stopped. \
                         Its result arrives at a later step, or wait for it with get_command_or_subagent_output."
                        )
                    } else {
                        format!(
                            "Subagent {id} started in the background. Its result arrives at a later step, or wait for it with get_command_or_subagent_output."
                        )
                    })
                }
                // Git, the model configuration or the store failing is a failed call with
                // its code; a request that cannot be met here is refused.
                Err(error) => match error.code() {
                    Some(code) => ToolOutput::error(format!("{code}: {error}")),
                    None => {
                        return Err(ToolError::InvalidArguments {
                            tool: "spawn_subagent".into(),
                            detail: error.to_string(),
                        });
                    }
                },
            })
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaitArgs {
    /// Subagent ids (`sub-1`) or names, and background command ids (`task-1`); at most 20.
    ids: Vec<String>,
    /// Wait up to this many seconds for all of them (default 30, at most 600).
    #[serde(default)]
    timeout_secs: Option<f64>,
}

/// `get_command_or_subagent_output`.
#[derive(Debug)]
pub struct WaitForOutput(pub Arc<Coordinator>);

impl Tool for WaitForOutput {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("get_command_or_subagent_output")
    }

    fn parameters(&self) -> Value {
        parameters_of::<WaitArgs>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: WaitArgs = parse_arguments("get_command_or_subagent_output", arguments)?;
            if args.ids.is_empty() || args.ids.len() > MAX_IDS {
                return Err(ToolError::InvalidArguments {
                    tool: "get_command_or_subagent_output".into(),
                    detail: format!("give 1 to {MAX_IDS} ids (got {})", args.ids.len()),
                });
            }
            let wait = args
                .timeout_secs
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map_or(Duration::from_secs(30), Duration::from_secs_f64)
                .min(MAX_WAIT);
            let deadline = tokio::time::Instant::now() + wait;
            let mut reports = Vec::new();
            let mut failed = false;
            for id in &args.ids {
                let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                let report = if id.starts_with("task-") {
                    match context.tasks.report(id, left).await {
                        Some(report) => report.render(),
                        None => {
                            failed = true;
                            format!("no background command `{id}`")
                        }
                    }
                } else {
                    tokio::select! {
                        result = self.0.result(id, left) => match result {
                            Ok(Some(result)) => result.render(),
                            Ok(None) => format!("subagent {id} is still running"),
                            Err(reason) => {
                                failed = true;
                                reason.to_string()
                            }
                        },
                        () = context.cancel.cancelled() => return Err(ToolError::Cancelled { tool: "get_command_or_subagent_output".into() }),
                    }
                };
                reports.push(report);
            }
            let text = reports.join("\n\n");
            Ok(if failed {
                ToolOutput::error(text)
            } else {
                ToolOutput::ok(text)
            })
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct KillArgs {
    /// A subagent id or name, or a background command id.
    task_id: String,
}

/// `kill_task` for both kinds of background work.
#[derive(Debug)]
pub struct KillTask(pub Arc<Coordinator>);

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
            if args.task_id.starts_with("task-") {
                // A background command: the plain tool's kill, report included.
                return kigi_tools::builtin::task_actions::KillTask
                    .execute(serde_json::json!({"task_id": args.task_id}), context)
                    .await;
            }
            Ok(match self.0.kill(&args.task_id) {
                Ok(()) => {
                    let result = self
                        .0
                        .result(&args.task_id, Duration::from_secs(10))
                        .await
                        .ok()
                        .flatten();
                    ToolOutput::ok(
                        result.map_or_else(
                            || format!("{} is stopping", args.task_id),
                            |r| r.render(),
                        ),
                    )
                }
                Err(reason) => ToolOutput::error(reason.to_string()),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coordinator_tools_are_in_the_catalog() {
        for name in [
            "spawn_subagent",
            "get_command_or_subagent_output",
            "kill_task",
            "send_to_subagent",
            "list_subagents",
            "notify_parent",
            "apply_worktree",
            "agent_swarm",
        ] {
            assert_eq!(built_in_spec(name).name, name);
        }
    }
}
