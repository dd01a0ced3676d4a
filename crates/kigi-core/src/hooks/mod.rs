//! Running the user's hooks (Claude Code compatible) at every step of every agent: one hook's
//! process (`hook_process`), what its exit and output mean (`hook_response`), and an agent's
//! hooks with its identity (`agent_hooks`). Where each event fires: the tool runtime (PreToolUse,
//! PostToolUse, Notification), the session loop (UserPromptSubmit, Stop, SubagentStop), the
//! host (SessionStart, SessionEnd) and the coordinator (SubagentStart).

mod agent_hooks;
mod hook_process;
mod hook_response;
mod tool_names;

pub use agent_hooks::{HookIdentity, HookVerdict, Hooks};
pub use hook_response::{HookExit, HookResponse, PermissionDecision};
pub use tool_names::{claude_name, from_hook_input, hook_tool_input, tool_names};
