//! The tool runtime's hook points: `PreToolUse` before a call is checked (it may block, deny,
//! ask, allow or rewrite it) and `PostToolUse` after it ran (its reason and context go to the
//! model with the result).

use kigi_agent::hooks::HookEvent;
use kigi_protocol::{ToolCall, ToolStatus};
use kigi_tools::canonical_arguments;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{CallOutcome, ToolRuntime};
use crate::hooks::{HookVerdict, hook_tool_input, tool_names};

impl ToolRuntime {
    /// What the PreToolUse hooks say about `call` (nothing when none matches, or the call
    /// names no tool of this agent, or its arguments do not parse: the checks refuse those).
    pub(super) async fn pre_tool_use(
        &self,
        call: &ToolCall,
        cancel: &CancellationToken,
    ) -> HookVerdict {
        let (Some(hooks), Some(tool)) = (&self.hooks, self.resolve(&call.name)) else {
            return HookVerdict::default();
        };
        let names = tool_names(&tool.model_name, &tool.name);
        if !hooks.wants(HookEvent::PreToolUse, &names) {
            return HookVerdict::default();
        }
        let text = if call.arguments.trim().is_empty() {
            "{}"
        } else {
            &call.arguments
        };
        let Ok(arguments) = serde_json::from_str::<Value>(text) else {
            return HookVerdict::default();
        };
        let arguments = canonical_arguments(arguments, &tool.param_names);
        let fields = tool_fields(&tool.model_name, &tool.name, &arguments);
        let verdict = hooks
            .run(HookEvent::PreToolUse, &names, fields, self.mode(), cancel)
            .await;
        if let Some(reason) = &verdict.stop {
            hooks.request_stop(reason.clone());
        }
        verdict
    }

    /// Runs the PostToolUse hooks of each call that ran, and hands what they say to the model
    /// with the call's result.
    pub(super) async fn post_tool_use(
        &self,
        outcomes: &mut [CallOutcome],
        inputs: &[Option<Value>],
        cancel: &CancellationToken,
    ) {
        let Some(hooks) = &self.hooks else {
            return;
        };
        for (outcome, input) in outcomes.iter_mut().zip(inputs) {
            let (Some(input), Some(tool)) = (input, self.resolve(&outcome.name)) else {
                continue;
            };
            if !matches!(outcome.status, ToolStatus::Completed | ToolStatus::Failed) {
                continue;
            }
            let names = tool_names(&tool.model_name, &tool.name);
            if !hooks.wants(HookEvent::PostToolUse, &names) {
                continue;
            }
            let mut fields = tool_fields(&tool.model_name, &tool.name, input);
            fields.insert(
                "tool_response".into(),
                serde_json::json!({
                    "output": outcome.output,
                    "success": outcome.status == ToolStatus::Completed,
                }),
            );
            let verdict = hooks
                .run(HookEvent::PostToolUse, &names, fields, self.mode(), cancel)
                .await;
            let mut said = String::new();
            if let Some(reason) = verdict.block {
                said.push_str(&format!("\n[PostToolUse hook] {reason}"));
            }
            for context in verdict.context {
                said.push_str(&format!("\n[PostToolUse hook context] {context}"));
            }
            if let Some(reason) = verdict.stop {
                hooks.request_stop(reason);
            }
            if !said.is_empty() {
                outcome.output.push_str(&said);
                outcome.model_output.push_str(&said);
            }
        }
    }
}

/// Claude Code's tool fields, with kigi's canonical name beside the model-facing one.
fn tool_fields(model_name: &str, canonical: &str, arguments: &Value) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("tool_name".into(), Value::String(model_name.to_owned()));
    fields.insert(
        "canonical_tool_name".into(),
        Value::String(canonical.to_owned()),
    );
    if let Some(claude) = crate::hooks::claude_name(canonical) {
        fields.insert("claude_tool_name".into(), Value::String(claude.to_owned()));
    }
    fields.insert("tool_input".into(), hook_tool_input(arguments));
    fields
}
