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
//! The rule: this crate translates, it holds no session logic. What a session does is the
//! host's; what an editor sees is a pure function of the host's events (`update_translation`,
//! `replay`), and stdout carries nothing but protocol messages.

mod acp_agent;
mod capabilities;
mod editor_bridge;
mod error;
mod extension_methods;
mod live_session;
mod mcp_servers;
mod permission;
mod prompt_text;
mod replay;
mod session_modes;
mod tool_call_view;
mod turn_outcome;
mod update_translation;

pub use acp_agent::{AcpOptions, serve, serve_stdio};
pub use error::AcpError;
pub use extension_methods::{
    SUBAGENT_UPDATE_METHOD, WORKTREE_APPLY_METHOD, WORKTREE_DISCARD_METHOD, WORKTREE_LIST_METHOD,
};
pub use mcp_servers::{EditorMcpServer, editor_mcp_servers};
pub use prompt_text::prompt_text;
pub use replay::replay_updates;
pub use session_modes::{mode_state, parse_mode_id};
pub use tool_call_view::{acp_kind, tool_title};
pub use turn_outcome::stop_reason;
pub use update_translation::{ApprovalAsk, Outgoing, UpdateTranslator};
