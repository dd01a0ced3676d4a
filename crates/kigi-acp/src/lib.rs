//! `kigi acp`: kigi inside editors, as an Agent Client Protocol agent over stdio, on the
//! official SDK (`agent-client-protocol`, protocol v1).
//!
//! Every ACP session is one session of kigi's [`SessionHost`](kigi_core::host::SessionHost):
//! prompts become user turns, `session/cancel` an interrupt, `session/set_mode` a permission
//! mode, and the host's events become `session/update` notifications (the main agent's) and
//! `_kigi/session/update` notifications (its subagents'). Asks become
//! `session/request_permission`; when the editor offers `fs/*`, file tools read and write
//! through it.
//!
//! It is also kigi's ACP client: [`AcpClient`] runs a child's turn on an ACP agent
//! (`[agent_executors.<id>] kind = "acp"`) for kigi-core's executor runner.
//!
//! The rule: this crate translates, it holds no session logic. What a session does is the
//! host's; what an editor sees is a pure function of the host's events (`update_translation`,
//! `replay`), and stdout carries nothing but protocol messages.

mod acp_agent;
mod acp_client;
mod auth_methods;
mod capabilities;
mod client_files;
mod client_permission;
mod editor_bridge;
mod engine_updates;
mod error;
mod extension_methods;
mod live_session;
mod mcp_servers;
mod model_menu;
mod permission;
mod prompt_input;
mod replay;
mod rpc_error;
mod session_modes;
mod session_setup;
mod slash_commands;
mod terminal_bridge;
mod tool_call_updates;
mod tool_call_view;
mod turn_outcome;
mod update_translation;

pub use acp_agent::{AcpOptions, serve, serve_stdio};
pub use acp_client::{AcpClient, SYSTEM_PROMPT_OVERRIDE_KEY};
pub use auth_methods::KIMI_CODE_METHOD;
pub use error::AcpError;
pub use extension_methods::{
    SUBAGENT_UPDATE_METHOD, WORKTREE_APPLY_METHOD, WORKTREE_DISCARD_METHOD, WORKTREE_LIST_METHOD,
};
pub use mcp_servers::{EditorMcpServer, editor_mcp_servers};
pub use model_menu::MODEL_OPTION_ID;
pub use prompt_input::{PromptInput, file_uri_path, prompt_input};
pub use replay::replay_updates;
pub use session_modes::{mode_state, parse_mode_id};
pub use tool_call_view::{acp_kind, tool_title};
pub use turn_outcome::stop_reason;
pub use update_translation::{ApprovalAsk, Outgoing, UpdateTranslator};
