//! Running the model's tool calls: resolve the model-facing name to the agent's tool, check
//! it is allowed, read the arguments, run it, clamp what the model sees.
//!
//! The rule: enforcement happens here, at execution, whatever the model was shown. A call to
//! a tool the agent lacks, or one its permission mode does not allow, is never run; the model
//! gets an error result saying why. Read-only calls and delegations next to each other run
//! concurrently; a mutating call runs alone, in order.
//!
//! Approvals: every call of a response that needs one is asked about at once, before any of
//! them runs, so a person sees them together and answers in any order; each call waits for
//! its own answer just before it would run. Calls that need no answer are not held up by
//! one that waits, except that a mutating call keeps its place in the order.

use std::sync::Arc;

use kigi_agent::hooks::HookEvent;
use kigi_agent::{PermissionMode, ResolvedTool};
use kigi_model::ToolSchema;
use kigi_protocol::{CanonicalToolMeta, TOOL_META_VERSION, ToolCall, ToolNamespace, ToolStatus};
use kigi_tools::{
    AliasResolution, MODEL_OUTPUT_CHARS, Tool, ToolCatalog, ToolContext, ToolError, ToolRegistry,
    canonical_arguments, clamp_head_tail, rename_schema, resolve_tool_name,
};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::approval::{ApprovalRequest, ApprovalVerdict, Approver};
use crate::approval_summary::{approval_scope, approval_summary};
use crate::call_subject::call_subject;
use crate::fetch_permission::RuleHosts;
use crate::hooks::{HookVerdict, Hooks, PermissionDecision};
use crate::permission::{Approval, decide_call};
use crate::runtime_guard::RuntimeGuard;
use crate::shared_mode::SharedMode;

mod call_guards;
mod call_run;
mod mcp_tools;
mod tool_hooks;

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
    /// Images the call returned (sent on only to a model that reads images).
    pub images: Vec<kigi_tools::ToolImage>,
}

/// The agent's tools, ready to run.
#[derive(Debug, Clone)]
pub struct ToolRuntime {
    tools: Vec<ResolvedTool>,
    registry: ToolRegistry,
    context: ToolContext,
    mode: SharedMode,
    /// 0 for a main agent, 1 for a subagent (which may not start subagents).
    depth: u8,
    /// Who answers asks; `None` refuses them.
    approver: Option<Arc<dyn Approver>>,
    /// `$KIGI_HOME`, whose files are protected from the agent's writes.
    kigi_home: Option<std::path::PathBuf>,
    /// The session's guard: rules and sandbox.
    guard: RuntimeGuard,
    /// The agent's hooks (PreToolUse, PostToolUse, Notification).
    hooks: Option<Hooks>,
    /// The session's MCP servers (and the agent's own, from its inline `mcpServers`), with
    /// which of their tools this agent may have.
    mcp: Vec<mcp_tools::McpLink>,
    /// Servers this agent started itself (a child's inline `mcpServers`): stopped when its
    /// turn ends.
    own_mcp: Option<Arc<crate::mcp_session::SessionMcp>>,
}

/// A call that passed the checks.
struct Ready {
    index: usize,
    tool: Arc<dyn Tool>,
    arguments: Value,
    /// The answer this call waits for before it runs, when it needed one, and the refusal
    /// to give if nobody may be asked after all.
    approval: Option<(tokio::task::JoinHandle<ApprovalVerdict>, String)>,
    /// Where a file write led when it was checked: it must lead there still when it runs.
    checked_target: Option<std::path::PathBuf>,
}

/// A checked call, and whether it must be asked about first.
struct Checked {
    tool: Arc<dyn Tool>,
    arguments: Value,
    canonical: String,
    /// The refusal when nobody can be asked; `None` when no ask is needed.
    ask: Option<String>,
    /// A file write's resolved target, as judged.
    target: Option<std::path::PathBuf>,
}

/// What running one call came to.
enum Ran {
    Output(Result<kigi_tools::ToolOutput, ToolError>),
    Denied(Option<String>),
    Unanswered,
    NotAsked(String),
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
            mode: SharedMode::new(mode),
            depth: 0,
            approver: None,
            kigi_home: None,
            guard: RuntimeGuard::default(),
            hooks: None,
            mcp: Vec::new(),
            own_mcp: None,
        }
    }

    /// Guards this agent as its session is guarded: `$KIGI_HOME` protected from its writes,
    /// the user's credentials, `.env` files and kigi's trust list from its reads, and the
    /// session's permission rules applied to every call.
    pub fn guard(&mut self, guard: &RuntimeGuard) {
        let kigi_home = self.context.resolve(&guard.kigi_home.to_string_lossy());
        self.context.secrets = kigi_tools::secret_paths::SecretPaths {
            home: guard
                .user_home
                .as_ref()
                .map(|home| self.context.resolve(&home.to_string_lossy())),
            kigi_home: Some(kigi_home.clone()),
        };
        self.kigi_home = Some(kigi_home);
        self.guard = guard.clone();
        self.context.sandbox = guard.sandbox_policy(&self.context.cwd);
        self.context.private_hosts = Some(Arc::new(RuleHosts(Arc::clone(&guard.rules))));
        // Checked when config.toml was read, so building the tool cannot fail here.
        if let Some(search) = guard.web_search.as_ref().and_then(|c| c.tool().ok()) {
            self.registry.register(Arc::new(search));
        }
    }

    /// Runs `hooks` around this agent's calls.
    pub fn set_hooks(&mut self, hooks: Hooks) {
        self.hooks = Some(hooks);
    }

    /// The agent's hooks, when it has any.
    pub fn hooks(&self) -> Option<&Hooks> {
        self.hooks.as_ref()
    }

    /// The session's guard.
    pub fn runtime_guard(&self) -> &RuntimeGuard {
        &self.guard
    }

    /// Asks `approver` about calls the mode does not allow outright.
    pub fn set_approver(&mut self, approver: Option<Arc<dyn Approver>>) {
        self.approver = approver;
    }

    /// Who answers this agent's asks (an external engine's permission requests go there too).
    pub fn approver(&self) -> Option<Arc<dyn Approver>> {
        self.approver.clone()
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

    /// Reads and writes files through an editor, and runs commands in its terminal (which
    /// `run_terminal_cmd` uses only unsandboxed); `None` for either: kigi does it itself.
    pub fn set_editor(
        &mut self,
        files: Option<Arc<dyn kigi_tools::EditorFiles>>,
        terminal: Option<Arc<dyn kigi_tools::EditorTerminal>>,
    ) {
        self.context.editor_files = files;
        self.context.editor_terminal = terminal;
    }

    /// Confines file writes and commands to `root` (a child in its worktree).
    pub fn set_write_root(&mut self, root: &std::path::Path) {
        self.context.write_root = Some(root.to_path_buf());
        self.context.sandbox = self.guard.sandbox_policy(root);
    }

    /// Shares another runtime's tool state (working directory, background tasks, todo list):
    /// a resumed child keeps its source's.
    pub fn share_state(&mut self, from: &ToolContext) {
        self.context.cwd.clone_from(&from.cwd);
        self.context.write_root.clone_from(&from.write_root);
        self.context.sandbox.clone_from(&from.sandbox);
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
        self.mode.get()
    }

    /// The cell the mode lives in: a front end switching modes sets it.
    pub fn shared_mode(&self) -> &SharedMode {
        &self.mode
    }

    /// The tools as the model sees them: every agent tool that has an implementation, with
    /// its model-facing name and parameter names.
    pub fn schemas(&self) -> Vec<ToolSchema> {
        self.tools
            .iter()
            .filter(|tool| !self.guard.rules.denies_tool(&tool.name, tool.kind))
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
            namespace: if tool.name.starts_with("mcp__") {
                ToolNamespace::Mcp
            } else {
                ToolNamespace::Kigi
            },
            label: spec.map_or("Unknown", |s| &*s.label).to_owned(),
            read_only: tool.read_only,
            input,
            server: self
                .registry
                .get(&tool.name)
                .and_then(|t| t.mcp_server().map(str::to_owned)),
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
        // PreToolUse hooks first (they may rewrite a call), then every check (and every ask),
        // so all asks of the response are out at once.
        let mut pre = Vec::with_capacity(calls.len());
        for call in calls {
            pre.push(self.pre_tool_use(call, cancel).await);
        }
        let checked: Vec<_> = calls
            .iter()
            .zip(&pre)
            .map(|(call, pre)| {
                self.check(call, pre)
                    .and_then(|checked| self.ask(call, checked, cancel))
            })
            .collect();
        let mut inputs: Vec<Option<Value>> = vec![None; calls.len()];
        for (index, (call, checked)) in calls.iter().zip(checked).enumerate() {
            match checked {
                Err((status, message)) => {
                    outcomes[index] = Some(self.outcome(call, status, message))
                }
                Ok(ready) => {
                    inputs[index] = Some(ready.arguments.clone());
                    // Read-only calls and delegations (children run side by side) batch up.
                    let spec = ready.tool.spec();
                    let read_only = spec.read_only || spec.kind.delegates();
                    let ready = Ready { index, ..ready };
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
        let mut outcomes: Vec<CallOutcome> = outcomes
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
            .collect();
        self.post_tool_use(&mut outcomes, &inputs, cancel).await;
        outcomes
    }

    /// Starts the ask a checked call needs (so every ask of a response is out at once), or
    /// refuses it when nobody can answer.
    fn ask(
        &self,
        call: &ToolCall,
        checked: Checked,
        cancel: &CancellationToken,
    ) -> Result<Ready, (ToolStatus, String)> {
        let approval = match (checked.ask, &self.approver) {
            (None, _) => None,
            (Some(refusal), None) => return Err((ToolStatus::Refused, refusal)),
            (Some(refusal), Some(approver)) => {
                if let Some(hooks) = &self.hooks {
                    let mut fields = Map::new();
                    fields.insert(
                        "message".into(),
                        Value::String(format!("kigi needs your approval to run `{}`", call.name)),
                    );
                    hooks.run_detached(HookEvent::Notification, fields, self.mode());
                }
                let request = ApprovalRequest {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    summary: approval_summary(&checked.canonical, &checked.arguments),
                    scope: approval_scope(&checked.canonical, &checked.arguments),
                    canonical: checked.canonical,
                    tool: self.envelope(call),
                };
                Some((
                    tokio::spawn(approver.ask(request, cancel.child_token())),
                    refusal,
                ))
            }
        };
        Ok(Ready {
            index: 0,
            tool: checked.tool,
            arguments: checked.arguments,
            approval,
            checked_target: checked.target,
        })
    }

    /// Everything that must hold before a call runs, with what its PreToolUse hooks said.
    fn check(&self, call: &ToolCall, pre: &HookVerdict) -> Result<Checked, (ToolStatus, String)> {
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
        let mut arguments = canonical_arguments(arguments, &tool.param_names);
        if let Some(updated) = &pre.updated_input {
            arguments = canonical_arguments(
                crate::hooks::from_hook_input(updated.clone()),
                &tool.param_names,
            );
        }
        if let Some(reason) = &pre.block {
            return Err(refuse(format!(
                "`{}` was not run: a PreToolUse hook blocked it: {reason}",
                call.name
            )));
        }
        if let Some(reason) = &pre.stop {
            return Err(refuse(format!(
                "`{}` was not run: a PreToolUse hook stopped the turn: {reason}",
                call.name
            )));
        }
        if let Some((PermissionDecision::Deny, reason)) = &pre.permission {
            return Err(refuse(format!(
                "`{}` was not run: a PreToolUse hook denied it: {reason}",
                call.name
            )));
        }
        let subject = call_subject(tool, &arguments, &self.context);
        let verdict = self.guard.rules.evaluate(&subject);
        let mode = self.mode();
        // An MCP server's own read-only hint is not trusted for permission (the MCP spec
        // says annotations are hints): its tools ask like any other unless a rule allows them.
        let trusted_read_only = tool.read_only && !tool.name.starts_with("mcp__");
        let approval = decide_call(mode, &call.name, &subject, trusted_read_only, verdict);
        let ask = match (approval, &pre.permission) {
            (Approval::Refuse(reason), _) => return Err(refuse(reason)),
            // A hook's `allow` answers what would have asked; never a refusal.
            (Approval::Ask { .. }, Some((PermissionDecision::Allow, _))) => {
                self.unsandboxed_ask(&call.name, tool.kind)
            }
            (_, Some((PermissionDecision::Ask, reason)))
                if matches!(mode, PermissionMode::DontAsk | PermissionMode::Plan) =>
            {
                return Err(refuse(format!(
                    "`{}` was not run: a PreToolUse hook asks for approval ({reason}), and permission mode {} never asks",
                    call.name,
                    mode.spelling()
                )));
            }
            (_, Some((PermissionDecision::Ask, reason))) => Some(format!(
                "`{}` was not run: a PreToolUse hook asks for a person's approval ({reason}), and nobody can approve in this session",
                call.name
            )),
            (Approval::Allow, _) => self.unsandboxed_ask(&call.name, tool.kind),
            (Approval::Ask { refusal }, _) => Some(refusal),
        };
        // A write to kigi's instruction files or outside the workspace is never allowed
        // automatically, whatever the mode: a person says yes, or it is refused.
        let guarded = self
            .write_guard(&call.name, tool.kind, &arguments)
            .or_else(|| self.command_guard(&call.name, &tool.name, tool.kind, &arguments));
        let ask = match (guarded, ask) {
            // Plan mode and dontAsk never ask: what would need a person is refused.
            (Some(reason), _) if matches!(mode, PermissionMode::Plan | PermissionMode::DontAsk) => {
                return Err(refuse(reason));
            }
            (Some(reason), _) => Some(reason),
            // dontAsk never asks, also where the kernel could not sandbox a command.
            (None, Some(reason)) if mode == PermissionMode::DontAsk => {
                return Err(refuse(reason));
            }
            (None, ask) => ask,
        };
        let target = tool
            .kind
            .writes_files()
            .then(|| arguments.get("path").and_then(Value::as_str))
            .flatten()
            .map(|path| self.context.resolve(path));
        Ok(Checked {
            tool: Arc::clone(implementation),
            arguments,
            canonical: tool.name.clone(),
            ask,
            target,
        })
    }

    fn schemas_names(&self) -> Vec<&str> {
        self.tools
            .iter()
            .filter(|t| self.registry.get(&t.name).is_some())
            .map(|t| t.model_name.as_str())
            .collect()
    }

    fn outcome(&self, call: &ToolCall, status: ToolStatus, output: String) -> CallOutcome {
        CallOutcome {
            call_id: call.id.clone(),
            name: call.name.clone(),
            canonical: self.resolve(&call.name).map(|t| t.name.clone()),
            status,
            model_output: clamp_head_tail(&output, MODEL_OUTPUT_CHARS),
            output,
            images: Vec::new(),
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
