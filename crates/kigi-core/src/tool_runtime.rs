//! Running the model's tool calls: resolve the model-facing name to the agent's tool, check
//! it is allowed, read the arguments, run it, clamp what the model sees.
//!
//! The rule: enforcement happens here, at execution, whatever the model was shown. A call to
//! a tool the agent lacks, or one its permission mode does not allow, is never run; the model
//! gets an error result saying why. Read-only calls and delegations next to each other run
//! concurrently; a mutating call runs alone, in order.

use std::sync::Arc;

use kigi_agent::{PermissionMode, ResolvedTool};
use kigi_model::ToolSchema;
use kigi_protocol::{CanonicalToolMeta, TOOL_META_VERSION, ToolCall, ToolNamespace, ToolStatus};
use kigi_tools::{
    AliasResolution, MODEL_OUTPUT_CHARS, Tool, ToolCatalog, ToolContext, ToolError, ToolRegistry,
    canonical_arguments, clamp_head_tail, rename_schema, resolve_tool_name,
};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::permission::{Approval, decide};

/// How one call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub call_id: String,
    /// Model-facing name.
    pub name: String,
    /// Canonical name, when the call named a tool the agent has.
    pub canonical: Option<String>,
    pub status: ToolStatus,
    /// Everything the tool produced (for the session file).
    pub output: String,
    /// What the model sees (clamped).
    pub model_output: String,
}

/// The agent's tools, ready to run.
#[derive(Debug, Clone)]
pub struct ToolRuntime {
    tools: Vec<ResolvedTool>,
    registry: ToolRegistry,
    context: ToolContext,
    mode: PermissionMode,
    /// 0 for a main agent, 1 for a subagent (which may not start subagents).
    depth: u8,
}

/// A call that passed the checks.
struct Ready {
    index: usize,
    tool: Arc<dyn Tool>,
    arguments: Value,
}

impl ToolRuntime {
    pub fn new(
        tools: Vec<ResolvedTool>,
        registry: ToolRegistry,
        context: ToolContext,
        mode: PermissionMode,
    ) -> Self {
        Self {
            tools,
            registry,
            context,
            mode,
            depth: 0,
        }
    }

    /// The runtime of a subagent: delegation tools are refused with a depth-limit error.
    pub fn at_depth(mut self, depth: u8) -> Self {
        self.depth = depth;
        self
    }

    pub fn depth(&self) -> u8 {
        self.depth
    }

    /// The agent's tools (canonical and model-facing names).
    pub fn tools(&self) -> &[ResolvedTool] {
        &self.tools
    }

    /// Confines file writes to `root` (a child in its worktree).
    pub fn set_write_root(&mut self, root: &std::path::Path) {
        self.context.write_root = Some(root.to_path_buf());
    }

    /// Shares another runtime's tool state (working directory, background tasks, todo list):
    /// a resumed child keeps its source's.
    pub fn share_state(&mut self, from: &ToolContext) {
        self.context.cwd.clone_from(&from.cwd);
        self.context.write_root.clone_from(&from.write_root);
        self.context.tasks = Arc::clone(&from.tasks);
        self.context.todos = Arc::clone(&from.todos);
    }

    /// The registry with `tool` added (the coordinator's tools join this way).
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        self.registry.register(tool);
    }

    pub fn context(&self) -> &ToolContext {
        &self.context
    }

    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// The tools as the model sees them: every agent tool that has an implementation, with
    /// its model-facing name and parameter names.
    pub fn schemas(&self) -> Vec<ToolSchema> {
        self.tools
            .iter()
            .filter_map(|tool| {
                let implementation = self.registry.get(&tool.name)?;
                Some(ToolSchema {
                    name: tool.model_name.clone(),
                    description: implementation
                        .description()
                        .unwrap_or_else(|| tool.description.clone()),
                    parameters: rename_schema(&implementation.parameters(), &tool.param_names),
                })
            })
            .collect()
    }

    /// The `kigi/tool` envelope of a call, when it names one of the agent's tools.
    pub fn envelope(&self, call: &ToolCall) -> Option<CanonicalToolMeta> {
        let tool = self.resolve(&call.name)?;
        let spec = self.registry.get(&tool.name).map(|t| t.spec());
        let arguments: Option<Value> = serde_json::from_str(&call.arguments).ok();
        let input = match (spec, arguments) {
            (Some(spec), Some(arguments)) => {
                let arguments = canonical_arguments(arguments, &tool.param_names);
                let projected: Map<String, Value> = spec
                    .input_keys
                    .iter()
                    .filter_map(|key| arguments.get(*key).map(|v| ((*key).to_owned(), v.clone())))
                    .collect();
                Some(Value::Object(projected))
            }
            _ => None,
        };
        Some(CanonicalToolMeta {
            version: TOOL_META_VERSION,
            name: tool.model_name.clone(),
            kind: tool.kind,
            namespace: ToolNamespace::Kigi,
            label: spec.map_or("Unknown", |s| s.label).to_owned(),
            read_only: tool.read_only,
            input,
        })
    }

    fn resolve(&self, model_name: &str) -> Option<&ResolvedTool> {
        self.tools.iter().find(|t| t.model_name == model_name)
    }

    /// Runs `calls` in order (adjacent read-only calls together) and returns one outcome per
    /// call, in the same order.
    pub async fn run(&self, calls: &[ToolCall], cancel: &CancellationToken) -> Vec<CallOutcome> {
        let mut outcomes: Vec<Option<CallOutcome>> = vec![None; calls.len()];
        let mut batch: Vec<Ready> = Vec::new();
        for (index, call) in calls.iter().enumerate() {
            match self.check(call) {
                Err((status, message)) => {
                    outcomes[index] = Some(self.outcome(call, status, message))
                }
                Ok((tool, arguments)) => {
                    // Read-only calls and delegations (children run side by side) batch up.
                    let read_only = tool.spec().read_only || tool.spec().kind.delegates();
                    let ready = Ready {
                        index,
                        tool,
                        arguments,
                    };
                    if read_only {
                        batch.push(ready);
                    } else {
                        self.run_batch(std::mem::take(&mut batch), calls, cancel, &mut outcomes)
                            .await;
                        self.run_batch(vec![ready], calls, cancel, &mut outcomes)
                            .await;
                    }
                }
            }
        }
        self.run_batch(batch, calls, cancel, &mut outcomes).await;
        outcomes
            .into_iter()
            .zip(calls)
            .map(|(outcome, call)| {
                outcome.unwrap_or_else(|| {
                    self.outcome(
                        call,
                        ToolStatus::Cancelled,
                        "cancelled before it ran".into(),
                    )
                })
            })
            .collect()
    }

    /// Everything that must hold before a call runs.
    fn check(&self, call: &ToolCall) -> Result<(Arc<dyn Tool>, Value), (ToolStatus, String)> {
        let refuse = |message: String| (ToolStatus::Refused, message);
        if self.depth > 0 && delegates(&call.name) {
            return Err(refuse(format!(
                "depth limit: `{}` is not available to a subagent (the agent tree is one level deep); do the work yourself",
                call.name
            )));
        }
        let Some(tool) = self.resolve(&call.name) else {
            let names: Vec<&str> = self.schemas_names();
            return Err(refuse(format!(
                "unknown tool `{}`; this agent's tools are: {}",
                call.name,
                names.join(", ")
            )));
        };
        let Some(implementation) = self.registry.get(&tool.name) else {
            return Err(refuse(format!(
                "`{}` is not available in this session",
                call.name
            )));
        };
        if let Approval::Refuse(reason) = decide(self.mode, &call.name, tool.kind, tool.read_only) {
            return Err(refuse(reason));
        }
        let arguments: Value = serde_json::from_str(if call.arguments.trim().is_empty() {
            "{}"
        } else {
            &call.arguments
        })
        .map_err(|e| {
            refuse(format!(
                "the arguments of `{}` are not valid JSON ({e}); send one JSON object",
                call.name
            ))
        })?;
        if !arguments.is_object() {
            return Err(refuse(format!(
                "the arguments of `{}` must be a JSON object",
                call.name
            )));
        }
        Ok((
            Arc::clone(implementation),
            canonical_arguments(arguments, &tool.param_names),
        ))
    }

    fn schemas_names(&self) -> Vec<&str> {
        self.tools
            .iter()
            .filter(|t| self.registry.get(&t.name).is_some())
            .map(|t| t.model_name.as_str())
            .collect()
    }

    /// Runs a batch concurrently; each call in its own task, so a panicking tool is reported
    /// as a failed call and the session goes on.
    async fn run_batch(
        &self,
        batch: Vec<Ready>,
        calls: &[ToolCall],
        cancel: &CancellationToken,
        outcomes: &mut [Option<CallOutcome>],
    ) {
        let mut running = Vec::new();
        for ready in batch {
            let mut context = self.context.clone();
            context.cancel = cancel.child_token();
            let tool = Arc::clone(&ready.tool);
            let arguments = ready.arguments;
            running.push((
                ready.index,
                tokio::spawn(async move { tool.execute(arguments, &context).await }),
            ));
        }
        for (index, handle) in running {
            let call = &calls[index];
            let abort = handle.abort_handle();
            let joined = tokio::select! {
                joined = handle => joined,
                () = cancel.cancelled() => {
                    abort.abort();
                    outcomes[index] = Some(self.outcome(call, ToolStatus::Cancelled, "cancelled".into()));
                    continue;
                }
            };
            let (status, output) = match joined {
                Ok(Ok(output)) if output.is_error => (ToolStatus::Failed, output.content),
                Ok(Ok(output)) => (ToolStatus::Completed, output.content),
                Ok(Err(error @ ToolError::InvalidArguments { .. })) => {
                    (ToolStatus::Refused, error.to_string())
                }
                Ok(Err(ToolError::Cancelled { .. })) => (ToolStatus::Cancelled, "cancelled".into()),
                Err(join) if join.is_panic() => (
                    ToolStatus::Failed,
                    format!("`{}` crashed; the call did not complete", call.name),
                ),
                Err(_) => (ToolStatus::Cancelled, "cancelled".into()),
            };
            outcomes[index] = Some(self.outcome(call, status, output));
        }
    }

    fn outcome(&self, call: &ToolCall, status: ToolStatus, output: String) -> CallOutcome {
        CallOutcome {
            call_id: call.id.clone(),
            name: call.name.clone(),
            canonical: self.resolve(&call.name).map(|t| t.name.clone()),
            status,
            model_output: clamp_head_tail(&output, MODEL_OUTPUT_CHARS),
            output,
        }
    }
}

/// Whether `name` (a kigi name, or another harness's name for one, such as `Task`) is a
/// delegation tool: what a subagent may never call.
fn delegates(name: &str) -> bool {
    let catalog = ToolCatalog::built_in();
    match resolve_tool_name(name, &catalog) {
        AliasResolution::Canonical(canonical) | AliasResolution::Alias { canonical, .. } => catalog
            .get(canonical)
            .is_some_and(|spec| spec.kind.delegates()),
        _ => false,
    }
}
