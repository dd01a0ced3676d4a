//! `agent_swarm`: the model-facing tool. It plans (every fault at once), runs the engine on
//! the coordinator, and returns one aggregate.

use std::sync::Arc;

use kigi_agent::SwarmConfig;
use kigi_tools::{
    Tool, ToolCatalog, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec, parameters_of,
    parse_arguments,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::backend::{CoordinatorBackend, swarm_settings};
use super::engine::run;
use super::plan::{SwarmRequest, plan};
use crate::subagent::{Coordinator, EnvLookup};

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
}

/// The tool.
pub struct AgentSwarm {
    pub coordinator: Arc<Coordinator>,
    pub config: SwarmConfig,
    pub env: EnvLookup,
}

impl std::fmt::Debug for AgentSwarm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSwarm")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Tool for AgentSwarm {
    fn spec(&self) -> &'static ToolSpec {
        ToolCatalog::built_in()
            .get("agent_swarm")
            .unwrap_or(&ToolCatalog::built_in().specs()[0])
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
            };
            let plan = plan(&request, &*self.coordinator).map_err(|faults| {
                ToolError::InvalidArguments {
                    tool: "agent_swarm".into(),
                    detail: format!("nothing was started:\n- {}", faults.join("\n- ")),
                }
            })?;
            let settings = swarm_settings(&self.config, &*self.env, plan.members.len());
            let backend = Arc::new(CoordinatorBackend {
                coordinator: Arc::clone(&self.coordinator),
                plan: plan.clone(),
            });
            let report = run(&plan, backend, &settings, &context.cancel, &|_| {}).await;
            let counts = report.counts();
            let failed = counts.completed == 0;
            Ok(ToolOutput {
                content: report.render(),
                is_error: failed,
            })
        })
    }
}
