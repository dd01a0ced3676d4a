//! kigi's tools as the rest of kigi sees them: the catalog of built-in tools (names, kinds,
//! descriptions), capability modes that filter them by kind, and the alias table that maps tool
//! names written for other harnesses onto kigi's.
//!
//! The rule: a tool's canonical name is what execution uses; anything the model sees (overrides,
//! aliases) is resolved back to a canonical name before a call runs.

mod capability_mode;
mod catalog;
mod tool_aliases;

pub use capability_mode::{CapabilityMode, UnknownCapabilityMode};
pub use catalog::{ToolCatalog, ToolSpec};
pub use tool_aliases::{AliasResolution, resolve_tool_name};
