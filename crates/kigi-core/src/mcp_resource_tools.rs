//! `list_mcp_resources` and `read_mcp_resource`: the resources of the session's MCP servers,
//! offered to an agent that has tools of a server with resources. Both only read.

use std::borrow::Cow;
use std::sync::Arc;

use kigi_protocol::ToolKind;
use kigi_tools::{Tool, ToolContext, ToolFuture, ToolOutput, ToolSpec, parse_arguments};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::mcp_session::SessionMcp;

/// Lists the resources of the servers whose tools the agent has.
#[derive(Debug)]
pub struct ListMcpResources {
    mcp: Arc<SessionMcp>,
    servers: Vec<String>,
    spec: ToolSpec,
}

/// Reads one resource of a server whose tools the agent has.
#[derive(Debug)]
pub struct ReadMcpResource {
    mcp: Arc<SessionMcp>,
    servers: Vec<String>,
    spec: ToolSpec,
}

fn spec(
    name: &'static str,
    description: &'static str,
    input_keys: &'static [&'static str],
) -> ToolSpec {
    ToolSpec {
        name: Cow::Borrowed(name),
        kind: ToolKind::Read,
        description: Cow::Borrowed(description),
        read_only: true,
        label: Cow::Borrowed("ReadMcpResource"),
        input_keys,
    }
}

impl ListMcpResources {
    /// Over `servers` only (the agent's).
    pub fn new(mcp: Arc<SessionMcp>, servers: Vec<String>) -> Self {
        Self {
            mcp,
            servers,
            spec: spec(
                "list_mcp_resources",
                "List the resources of the MCP servers (optionally one server's).",
                &["server"],
            ),
        }
    }
}

impl ReadMcpResource {
    /// Over `servers` only (the agent's).
    pub fn new(mcp: Arc<SessionMcp>, servers: Vec<String>) -> Self {
        Self {
            mcp,
            servers,
            spec: spec(
                "read_mcp_resource",
                "Read one MCP resource by server and URI.",
                &["server", "uri"],
            ),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default)]
    server: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    server: String,
    uri: String,
}

impl Tool for ListMcpResources {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"server": {"type": "string"}}, "additionalProperties": false})
    }

    fn execute<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: ListArgs = parse_arguments("list_mcp_resources", arguments)?;
            let mut lines = Vec::new();
            for connection in self.mcp.resource_servers().await {
                let wanted = args
                    .server
                    .as_deref()
                    .is_none_or(|s| s == connection.server());
                if !wanted || !self.servers.iter().any(|s| s == connection.server()) {
                    continue;
                }
                match connection.list_resources().await {
                    Ok(resources) => lines.extend(resources.iter().map(|r| {
                        format!(
                            "{}: {} ({}{})",
                            connection.server(),
                            r.uri,
                            r.name,
                            r.mime_type
                                .as_deref()
                                .map(|m| format!(", {m}"))
                                .unwrap_or_default()
                        )
                    })),
                    Err(error) => lines.push(format!("{}: {error}", connection.server())),
                }
            }
            Ok(if lines.is_empty() {
                ToolOutput::ok("no MCP resources")
            } else {
                ToolOutput::ok(lines.join("\n"))
            })
        })
    }
}

impl Tool for ReadMcpResource {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"server": {"type": "string"}, "uri": {"type": "string"}},
            "required": ["server", "uri"],
            "additionalProperties": false
        })
    }

    fn execute<'a>(&'a self, arguments: Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: ReadArgs = parse_arguments("read_mcp_resource", arguments)?;
            let connection = if self.servers.contains(&args.server) {
                self.mcp.connection(&args.server).await
            } else {
                None
            };
            let Some(connection) = connection else {
                return Ok(ToolOutput::error(format!(
                    "no ready MCP server `{}`; list_mcp_resources shows the servers with resources",
                    args.server
                )));
            };
            Ok(match connection.read_resource(&args.uri).await {
                Ok(result) => result.into_tool_output(),
                Err(error) => ToolOutput::error(error.to_string()),
            })
        })
    }
}
