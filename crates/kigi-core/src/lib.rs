//! kigi's session host: the turn loop ([`Session`]), tool enforcement at execution
//! ([`ToolRuntime`]), permission modes, the completion requirement, and sessions on disk
//! ([`SessionStore`]).
//!
//! It never prints: front ends open sessions through the [`host::SessionHost`], send
//! commands and read [`kigi_protocol::HostEvent`]s.

mod approval;
mod approval_summary;
pub mod attachments;
mod call_subject;
pub mod compaction;
mod completion;
pub mod executor;
mod fetch_permission;
mod git_command;
pub mod hooks;
pub mod host;
mod inbox;
mod init_prompt;
mod lock;
mod mcp_resource_tools;
pub mod mcp_session;
mod permission;
mod protected_paths;
mod reader_drain;
mod runtime_guard;
mod session;
mod session_id;
mod session_lock;
mod session_store;
mod setup;
mod shared_mode;
pub mod subagent;
pub mod swarm;
mod token_budget;
mod tool_runtime;
mod transcript;
mod wire_record;
pub mod worktree;
mod worktree_error;

pub use approval::{ApprovalFuture, ApprovalRequest, ApprovalVerdict, Approver};
pub use approval_summary::{approval_scope, approval_summary};
pub use completion::{CompletionCheck, CompletionTracker};
pub use inbox::{Inbox, MessageQueue};
pub use init_prompt::INIT_PROMPT;
pub use permission::{Approval, decide, decide_call};
pub use runtime_guard::RuntimeGuard;
pub use session::{DEFAULT_MAX_TURNS, Session, SessionSetup, TurnError, TurnSummary};
pub use session_id::{is_session_id, is_subagent_id, new_session_id};
pub use session_store::{
    LoadedSession, SessionStore, SessionSummary, SessionWriter, StoreError, WIRE_FILE,
};
pub use shared_mode::SharedMode;
pub use token_budget::{TokenBudget, TreeMeter};
pub use tool_runtime::{CallOutcome, ToolRuntime};
pub use transcript::{UNFINISHED_CALL, messages_from};
pub use wire_record::{
    LEGACY_UPDATE_METHOD, MAIN_AGENT, StoredEvent, UPDATE_METHOD, decode as decode_record,
};
