//! `McpTool`: one MCP tool bound to its connection, in the shape the session's tool runtime
//! needs: a model-facing name, a description, a parameters schema, a kind, and a call.
//!
//! The rule: the adapter never decides whether the tool may run (the runtime does, from
//! `kind` and `read_only`, before calling); it only runs the call and turns what came back, or
//! why nothing did, into the runtime's result. It is a `kigi_tools::Tool` owning its spec, so
//! the session registers it beside the built-ins.

use std::borrow::Cow;
use std::sync::Arc;

use kigi_protocol::{CanonicalToolMeta, TOOL_META_VERSION, ToolKind, ToolNamespace};
use kigi_tools::{Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::call_result::McpCallResult;
use crate::connection::McpConnection;
use crate::error::McpError;
use crate::tool_info::McpToolInfo;

/// An MCP tool the session can offer.
#[derive(Debug, Clone)]
pub struct McpTool {
    name: String,
    info: McpToolInfo,
    connection: Arc<McpConnection>,
    /// What the runtime reads: the model-facing name is also the canonical one.
    spec: ToolSpec,
}

impl McpTool {
    /// `name` is the model-facing name (from [`crate::unique_tool_names`]).
    pub fn new(name: String, info: McpToolInfo, connection: Arc<McpConnection>) -> Self {
        let description = if info.description.is_empty() {
            info.title.clone().unwrap_or_default()
        } else {
            info.description.clone()
        };
        let spec = ToolSpec {
            name: Cow::Owned(name.clone()),
            kind: info.kind.kind,
            description: Cow::Owned(description),
            read_only: info.kind.read_only,
            label: Cow::Owned(name.clone()),
            input_keys: &[],
        };
        Self {
            name,
            info,
            connection,
            spec,
        }
    }

    /// `mcp__<server>__<tool>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn server(&self) -> &str {
        &self.info.server
    }

    /// The server's name for the tool.
    pub fn tool(&self) -> &str {
        &self.info.tool
    }

    /// The server's description (its title when it wrote none).
    pub fn description(&self) -> &str {
        if self.info.description.is_empty() {
            self.info.title.as_deref().unwrap_or_default()
        } else {
            &self.info.description
        }
    }

    /// The schema the model is shown.
    pub fn parameters(&self) -> Value {
        self.info.parameters()
    }

    pub fn kind(&self) -> ToolKind {
        self.info.kind.kind
    }

    pub fn read_only(&self) -> bool {
        self.info.kind.read_only
    }

    pub fn info(&self) -> &McpToolInfo {
        &self.info
    }

    /// The `kigi/tool` envelope of a call: namespace `mcp`, the model-facing name as label
    /// (what other harnesses show for MCP tools). `input` is not projected: MCP arguments have
    /// no cross-harness shape.
    pub fn meta(&self) -> CanonicalToolMeta {
        CanonicalToolMeta {
            version: TOOL_META_VERSION,
            name: self.name.clone(),
            kind: self.kind(),
            namespace: ToolNamespace::Mcp,
            label: self.name.clone(),
            read_only: self.read_only(),
            input: None,
            server: Some(self.info.server.clone()),
        }
    }

    /// Calls the tool (see [`McpConnection::call_tool`]).
    pub async fn call(
        &self,
        arguments: Value,
        cancel: &CancellationToken,
    ) -> Result<McpCallResult, McpError> {
        self.connection
            .call_tool(&self.info.tool, arguments, cancel)
            .await
    }

    /// Runs the call as a kigi tool: the result's text (failed when `isError`); a protocol
    /// failure or timeout is a failed output the model can read; a cancelled call or arguments
    /// that are not an object are [`ToolError`]s.
    pub fn run<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            match self.call(arguments, &context.cancel).await {
                Ok(result) => Ok(result.into_tool_output()),
                Err(McpError::Cancelled { .. }) => Err(ToolError::Cancelled {
                    tool: self.name.clone(),
                }),
                Err(e @ McpError::InvalidArguments { .. }) => Err(ToolError::InvalidArguments {
                    tool: self.name.clone(),
                    detail: e.to_string(),
                }),
                Err(other) => Ok(ToolOutput::error(other.to_string())),
            }
        })
    }
}

impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn mcp_server(&self) -> Option<&str> {
        Some(&self.info.server)
    }

    fn parameters(&self) -> Value {
        McpTool::parameters(self)
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        self.run(arguments, context)
    }
}
