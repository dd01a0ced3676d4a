//! `McpError`: everything that can go wrong between kigi and an MCP server, from a config
//! file to a tool call.
//!
//! The rule: every variant names the server (and the file, field or tool) at fault, and a
//! server that failed to start carries its stderr tail, so a report never needs a second look.

use std::path::PathBuf;
use std::time::Duration;

/// An MCP failure.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// A config file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    ReadFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A config file (`.mcp.json`, `.kigi/mcp.toml`, an agent's `mcpServers`) does not parse.
    #[error("{origin}: {detail}")]
    ParseConfig { origin: String, detail: String },
    /// A server entry is neither stdio (`command`) nor HTTP (`url`), or is both, or has a
    /// field of the wrong shape.
    #[error("MCP server `{server}`: {detail}")]
    InvalidServer { server: String, detail: String },
    /// `${VAR}` names a variable that is unset and has no `:-default`.
    #[error(
        "MCP server `{server}`: {field} uses ${{{variable}}}, which is not set (add a default with ${{{variable}:-…}})"
    )]
    UnsetVariable {
        server: String,
        field: String,
        variable: String,
    },
    /// `bearer_token_env` names a variable that is unset.
    #[error("MCP server `{server}`: bearer_token_env names {variable}, which is not set")]
    MissingBearerToken { server: String, variable: String },
    /// A header name or value cannot be sent over HTTP.
    #[error("MCP server `{server}`: header `{header}` is not a valid HTTP header")]
    InvalidHeader { server: String, header: String },
    /// The server's command could not be started.
    #[error("MCP server `{server}`: cannot start `{command}`: {source}")]
    Spawn {
        server: String,
        command: String,
        #[source]
        source: std::io::Error,
    },
    /// The HTTP client could not be built.
    #[error("MCP server `{server}`: cannot build the HTTP client: {detail}")]
    HttpClient { server: String, detail: String },
    /// The server did not complete `initialize`: it exited, closed the connection, answered
    /// with an error, or did not answer within its startup timeout.
    #[error(
        "MCP server `{server}` did not start: {reason}{}",
        tail_suffix(stderr_tail)
    )]
    Startup {
        server: String,
        reason: String,
        /// The last lines the server wrote to stderr (empty for HTTP servers).
        stderr_tail: String,
    },
    /// A request other than a tool call (listing, reading a resource) failed.
    #[error("MCP server `{server}`: {method} failed: {detail}")]
    Request {
        server: String,
        method: &'static str,
        detail: String,
    },
    /// A request other than a tool call did not answer within its ceiling.
    #[error("MCP server `{server}`: {method} did not answer within {}s", timeout.as_secs_f64())]
    RequestTimeout {
        server: String,
        method: &'static str,
        timeout: Duration,
    },
    /// The arguments of a tool call are not a JSON object.
    #[error("MCP tool `{tool}` of server `{server}`: arguments must be a JSON object")]
    InvalidArguments { server: String, tool: String },
    /// A tool call failed before the server produced a result (transport closed, protocol
    /// error). A result with `isError` is not this: it is a result.
    #[error("MCP tool `{tool}` of server `{server}` failed: {detail}")]
    Call {
        server: String,
        tool: String,
        detail: String,
    },
    /// A tool call ran past its `tool_timeout_ms`; `notifications/cancelled` was sent.
    #[error("MCP tool `{tool}` of server `{server}` timed out after {}s and was cancelled", timeout.as_secs_f64())]
    CallTimeout {
        server: String,
        tool: String,
        timeout: Duration,
    },
    /// A tool call was interrupted by its caller; `notifications/cancelled` was sent.
    #[error("MCP tool `{tool}` of server `{server}` was cancelled")]
    Cancelled { server: String, tool: String },
    /// The connection was shut down or the server went away.
    #[error("MCP server `{server}` is not connected")]
    Closed { server: String },
}

fn tail_suffix(tail: &str) -> String {
    if tail.trim().is_empty() {
        String::new()
    } else {
        format!("\n--- stderr (last lines) ---\n{}", tail.trim_end())
    }
}
