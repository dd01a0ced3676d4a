//! `agent_swarm`: the model-facing tool. It plans (every fault at once), runs the engine on
//! the coordinator, and returns one aggregate.

use std::sync::Arc;

use kigi_tools::{
    Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec, built_in_spec, parameters_of,
    parse_arguments,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::backend::{SwarmRun, run_swarm};
use super::plan::SwarmRequest;
use crate::subagent::Coordinator;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SwarmArgs {
    /// 3-5 words.
    description: String,
    /// The task for each member; must contain {{item}}.
    prompt_template: String,
    /// 2 to 128 items, one member each.
    items: Vec<String>,
    /// Default general-purpose.
    #[serde(default)]
    subagent_type: Option<String>,
    #[serde(default)]
    capability_mode: Option<String>,
    /// none or worktree.
    #[serde(default)]
    isolation: Option<String>,
    #[serde(default)]
    model: Option<String>,
    // low, medium or high, as spawn_subagent says: not repeated in the schema (prompt budget).
    #[serde(default)]
    effort: Option<String>,
}

/// The tool.
#[derive(Debug)]
pub struct AgentSwarm(pub Arc<Coordinator>);

impl Tool for AgentSwarm {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("agent_swarm")
    }

    fn parameters(&self) -> Value {
        parameters_of::<SwarmArgs>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: SwarmArgs = parse_arguments("agent_swarm", arguments)?;
            let request = SwarmRequest {
                description: args.description,
                prompt_template: args.prompt_template,
                items: args.items,
                subagent_type: args.subagent_type,
                capability_mode: args.capability_mode,
                isolation: args.isolation,
                model: args.model,
                // The tool's members run here, seed 004's 128 at most.
                executor: None,
                batch: false,
            };
            let run = SwarmRun {
                effort: args.effort.as_deref(),
                max_concurrency: None,
                streams_members: false,
            };
            let report = run_swarm(&self.0, &request, run, &context.cancel, &|_: &_| {})
                .await
                .map_err(|faults| ToolError::InvalidArguments {
                    tool: "agent_swarm".into(),
                    detail: format!(
                        "nothing was started:\n- {}",
                        faults
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("\n- ")
                    ),
                })?;
            let counts = report.counts();
            let failed = counts.completed == 0;
            Ok(ToolOutput {
                content: report.render(),
                is_error: failed,
                images: Vec::new(),
            })
        })
    }
}
