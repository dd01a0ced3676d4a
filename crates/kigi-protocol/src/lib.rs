//! Plain data that every kigi crate shares.
//!
//! This crate owns wire names: the serde form of every type here is a contract with session
//! files, editors and scripts. It does no I/O.

mod message;
mod tool_kind;
mod tool_namespace;

pub use message::{ContentPart, Message, Role, ToolCall, ToolResult};
pub use tool_kind::ToolKind;
pub use tool_namespace::ToolNamespace;
