//! `complete_task`: an orchestrated worker declares its task done and hands over its result
//! summary. An agent whose `completionRequirement` names it cannot end its turn without it;
//! no other agent is offered it.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::schema::parameters_of;
use crate::tool::{Tool, ToolFuture, ToolOutput, parse_arguments};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// What was done and what came of it: the result your caller reads.
    summary: String,
}

/// The tool.
#[derive(Debug)]
pub struct CompleteTask;

impl Tool for CompleteTask {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("complete_task")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, _context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("complete_task", arguments)?;
            if args.summary.trim().is_empty() {
                return Ok(ToolOutput::error(
                    "the summary is empty; say what was done and what came of it",
                ));
            }
            Ok(ToolOutput::ok(format!(
                "task recorded as complete. End your turn now with this summary as your answer:\n{}",
                args.summary.trim()
            )))
        })
    }
}
