//! Plain data that every kigi crate shares.
//!
//! This crate owns wire names: the serde form of every type here is a contract with session
//! files, editors and scripts. It does no I/O.

mod child_status;
mod error_code;
mod host_command;
mod host_event;
mod message;
mod session_event;
mod tool_kind;
mod tool_meta;
mod tool_namespace;

pub use child_status::ChildStatus;
pub use error_code::ErrorCode;
pub use host_command::{ApprovalAnswer, Attachment, HostCommand};
pub use host_event::{
    ApprovalDecision, BackgroundCommandStatus, HostEvent, HostEventBody, HostNotice, MAIN_AGENT_ID,
};
pub use message::{ContentPart, Message, Role, ToolCall, ToolResult};
pub use session_event::{
    AttachedText, HookOutcome, ImagePart, ReminderSource, SessionEvent, ToolCallMeta, ToolStatus,
    TurnEndReason,
};
pub use tool_kind::ToolKind;
pub use tool_meta::{CanonicalToolMeta, TOOL_META_KEY, TOOL_META_VERSION, tool_meta_schema};
pub use tool_namespace::ToolNamespace;
