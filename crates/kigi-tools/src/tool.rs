//! The `Tool` trait: what every tool, built-in or added later, provides to the runtime.
//!
//! The rule: a tool never decides whether it may run. Allow/deny lists, capability and
//! permission modes are checked by the runtime before `execute` is called; a tool only
//! validates its own arguments.

use std::future::Future;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::catalog::ToolSpec;
use crate::context::ToolContext;

/// A boxed future, so `Tool` stays object-safe.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>;

/// What a call produced: the full text (the runtime clamps what the model sees), and images
/// for a model that accepts them (an MCP tool's screenshot).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub content: String,
    /// The tool ran and failed (a command's non-zero exit, a missing file, …).
    pub is_error: bool,
    /// Images the call returned; the text says they exist, for models that take none.
    pub images: Vec<ToolImage>,
}

/// An image a tool returned, base64-encoded as it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolImage {
    pub media_type: String,
    pub data: String,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            images: Vec::new(),
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            images: Vec::new(),
        }
    }
}

/// Why a call did not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the tool's schema.
    #[error("invalid arguments for {tool}: {detail}")]
    InvalidArguments { tool: String, detail: String },
    /// The call was cancelled before or while it ran.
    #[error("{tool} was cancelled")]
    Cancelled { tool: String },
}

/// A tool.
pub trait Tool: Send + Sync + std::fmt::Debug {
    /// Name, kind, description, label and projected keys (a built-in returns its catalog
    /// entry; a tool found at run time, its own).
    fn spec(&self) -> &ToolSpec;
    /// JSON Schema of the arguments object, with canonical parameter names.
    fn parameters(&self) -> Value;
    /// A description built at run time (the spawn tool lists the agent types it can start);
    /// `None` uses the catalog's.
    fn description(&self) -> Option<String> {
        None
    }
    /// The MCP server the tool comes from (`None` for kigi's own).
    fn mcp_server(&self) -> Option<&str> {
        None
    }
    /// Runs the call.
    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a>;
}

/// Reads the arguments object into `T`, naming the tool and the serde error on failure.
pub fn parse_arguments<T: DeserializeOwned>(tool: &str, arguments: Value) -> Result<T, ToolError> {
    serde_json::from_value(arguments).map_err(|e| ToolError::InvalidArguments {
        tool: tool.to_owned(),
        detail: e.to_string(),
    })
}
