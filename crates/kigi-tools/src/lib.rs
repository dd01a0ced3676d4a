//! kigi's tools: the [`Tool`] trait and [`ToolRegistry`], the built-in tools, the catalog of
//! names, kinds and descriptions, capability modes that filter by kind, the alias table for
//! other harnesses' tool names, parameter-name overrides, output clamping, and the sandbox
//! shell commands run in, and the web tools' HTTP (one reqwest client, private addresses refused)
//! and search services (SearXNG, Brave, Tavily, Kimi's built-in `$web_search`).
//!
//! The rule: a tool's canonical name is what execution uses; anything the model sees
//! (overrides, aliases) is resolved back to a canonical name before a call runs. Tools never
//! decide whether they may run: the runtime does, before `execute`.

pub mod builtin;
mod capability_mode;
mod catalog;
mod clamp;
mod context;
mod editor_files;
mod editor_terminal;
mod kimi_search;
mod overrides;
mod page_focus;
mod page_markdown;
pub mod path_resolution;
mod private_address;
pub mod process_group;
mod registry;
pub mod sandbox;
mod schema;
pub mod secret_paths;
pub mod shell;
mod tasks;
mod tool;
mod tool_aliases;
mod web_request;
mod web_search_provider;

pub use capability_mode::{CapabilityMode, UnknownCapabilityMode};
pub use catalog::{ToolCatalog, ToolSpec, built_in_spec, is_browser_tool};
pub use clamp::{MODEL_OUTPUT_CHARS, clamp_head_tail};
pub use context::{BashLimits, ToolContext};
pub use editor_files::{EditorFileError, EditorFiles, EditorFuture};
pub use editor_terminal::{EditorTerminal, TerminalCommand, TerminalRun};
pub use overrides::{canonical_arguments, rename_schema};
pub use private_address::{PrivateHostAllowance, is_private_address, is_private_host};
pub use registry::ToolRegistry;
pub use sandbox::{
    SandboxError, SandboxMode, SandboxPolicy, SandboxSupport, UnknownSandboxMode, sandbox_support,
};
pub use schema::parameters_of;
pub use tasks::{TaskRegistry, TaskReport, TaskState, TaskWatcher};
pub use tool::{Tool, ToolError, ToolFuture, ToolImage, ToolOutput, parse_arguments};
pub use tool_aliases::{AliasResolution, resolve_tool_name};
pub use web_request::{WebError, parse_web_url, resolve_checked, url_rule_host};
pub use web_search_provider::{UnknownWebSearchProvider, WebSearchProvider};
