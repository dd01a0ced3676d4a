//! Talking between a parent and its named children: `send_to_subagent` and `list_subagents`
//! for the parent, `notify_parent` for a child. A caller sees only its own children.

use std::sync::Arc;

use kigi_tools::{
    Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec, built_in_spec, parameters_of,
    parse_arguments,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::coordinator::Coordinator;
use crate::inbox::MessageQueue;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SendArgs {
    /// The subagent's name or id.
    target: String,
    message: String,
}

/// `send_to_subagent`.
#[derive(Debug)]
pub struct SendToSubagent(pub Arc<Coordinator>);

impl Tool for SendToSubagent {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("send_to_subagent")
    }

    fn parameters(&self) -> Value {
        parameters_of::<SendArgs>()
    }

    fn execute<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: SendArgs = parse_arguments("send_to_subagent", arguments)?;
            if args.message.trim().is_empty() {
                return Err(ToolError::InvalidArguments {
                    tool: "send_to_subagent".into(),
                    detail: "message is empty".into(),
                });
            }
            Ok(match self.0.send(&args.target, &args.message) {
                Ok(text) => ToolOutput::ok(text),
                Err(reason) => ToolOutput::error(reason.to_string()),
            })
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    /// Also list finished ones.
    #[serde(default)]
    include_finished: bool,
}

/// `list_subagents`.
#[derive(Debug)]
pub struct ListSubagents(pub Arc<Coordinator>);

impl Tool for ListSubagents {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("list_subagents")
    }

    fn parameters(&self) -> Value {
        parameters_of::<ListArgs>()
    }

    fn execute<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: ListArgs = parse_arguments("list_subagents", arguments)?;
            Ok(ToolOutput::ok(self.0.list(args.include_finished)))
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NotifyArgs {
    message: String,
}

/// `notify_parent`: a child's message, read by its parent at the parent's next step.
#[derive(Debug)]
pub struct NotifyParent {
    pub parent: Arc<MessageQueue>,
    pub child: String,
}

impl Tool for NotifyParent {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("notify_parent")
    }

    fn parameters(&self) -> Value {
        parameters_of::<NotifyArgs>()
    }

    fn execute<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: NotifyArgs = parse_arguments("notify_parent", arguments)?;
            self.parent.push(
                None,
                format!("Subagent {} says:\n{}", self.child, args.message.trim()),
            );
            Ok(ToolOutput::ok(
                "delivered: your parent reads it at its next step",
            ))
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ApplyArgs {
    /// The subagent (id or name) whose worktree changes to apply.
    subagent: String,
}

/// `apply_worktree`: a worktree child's changes into the main working tree.
#[derive(Debug)]
pub struct ApplyWorktree(pub Arc<Coordinator>);

impl Tool for ApplyWorktree {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("apply_worktree")
    }

    fn parameters(&self) -> Value {
        parameters_of::<ApplyArgs>()
    }

    fn execute<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: ApplyArgs = parse_arguments("apply_worktree", arguments)?;
            Ok(match self.0.apply_worktree(&args.subagent).await {
                Ok(crate::worktree::ApplyOutcome::Applied { files }) => ToolOutput::ok(format!(
                    "applied {} file(s) to the working tree (not staged): {}",
                    files.len(),
                    files.join(", ")
                )),
                Ok(crate::worktree::ApplyOutcome::Conflicts { files }) => {
                    ToolOutput::error(format!(
                        "applied with conflicts in {}: resolve the markers there; the subagent's branch is kept",
                        files.join(", ")
                    ))
                }
                Err(reason) => ToolOutput::error(reason.to_string()),
            })
        })
    }
}
