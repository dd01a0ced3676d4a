//! kigi's MCP client, on the official Rust SDK (`rmcp`): server entries and the files they
//! come from (`config.toml`'s `[mcp_servers]`, `.kigi/mcp.toml`, Claude Code's `.mcp.json`,
//! agents' inline `mcpServers`), `${VAR}` expansion, connections over stdio and streamable
//! HTTP, the session's set of servers started in the background, and MCP tools adapted to
//! kigi's tool runtime (names, kinds from annotations, provider-safe schemas, results).
//!
//! The rule: this crate knows servers and tools, never sessions: trust, permission rules and
//! which agent may call what are decided by the caller; and everything that reads outside input
//! (entries, names, annotations, schemas, results) is a pure function tested without a server.
//!
//! `kigi_tools::Tool::spec` returns `&'static ToolSpec`, which an MCP tool (named at run time,
//! re-listed on `list_changed`) can only satisfy by leaking; [`McpTool`] therefore offers the
//! same parts (`name`, `description`, `parameters`, `kind`, `read_only`, and `execute` with the
//! trait's signature) until the trait can borrow a spec from the tool.

mod call_result;
mod client_handler;
mod connection;
mod env_expansion;
mod error;
mod http_transport;
mod launch;
mod mcp_json;
mod mcp_toml;
mod mcp_tool;
mod server_config;
mod servers;
mod stderr_tail;
mod stdio_process;
mod tool_hints;
mod tool_info;
mod tool_name;
mod tool_schema;

pub use call_result::{McpCallResult, McpContent, base64_decoded_len};
pub use connection::McpConnection;
pub use env_expansion::{UnsetVariable, expand_vars};
pub use error::McpError;
pub use launch::{ServerLaunch, prepare_launch, prepare_launch_from_env};
pub use mcp_json::{AgentMcpServer, ParsedServers, parse_agent_mcp_servers, parse_mcp_json};
pub use mcp_toml::parse_mcp_toml;
pub use mcp_tool::McpTool;
pub use server_config::{
    DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, McpServerConfig, McpTransport,
    ServerShapeError,
};
pub use servers::{McpServerEntry, McpServerReport, McpServerStatus, McpServers, McpSource};
pub use stderr_tail::STDERR_TAIL_BYTES;
pub use tool_hints::{McpToolKind, ToolHints};
pub use tool_info::{McpPrompt, McpResource, McpToolInfo};
pub use tool_name::{MAX_TOOL_NAME_LEN, mcp_tool_name, sanitize_name_part, unique_tool_names};
pub use tool_schema::provider_schema;
