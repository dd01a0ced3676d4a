//! `McpServerConfig`: one MCP server as a user configures it (`[mcp_servers.<name>]` in
//! `config.toml` or `.kigi/mcp.toml`), before `${VAR}` expansion.
//!
//! The rule: a server is stdio (`command`) or streamable HTTP (`url`), never both; that is
//! checked when the entry is read, so nothing later sees a half-formed server. Wire names are
//! snake_case, as in `config.toml`, and stable.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How `initialize` is awaited when the entry does not say (10 s).
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 10_000;
/// How long a tool call may run when the entry does not say (60 s).
pub const DEFAULT_TOOL_TIMEOUT_MS: u64 = 60_000;

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawServerConfig", into = "RawServerConfig")]
pub struct McpServerConfig {
    pub transport: McpTransport,
    /// `false` keeps the entry but never starts it.
    pub enabled: bool,
    pub startup_timeout_ms: u64,
    pub tool_timeout_ms: u64,
    /// When set, only these tools (server-side names) are offered.
    pub enabled_tools: Option<Vec<String>>,
    /// Never offered, even when `enabled_tools` names them.
    pub disabled_tools: Vec<String>,
}

/// Where the server runs and how kigi reaches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking JSON-RPC lines on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
        /// The variable holding a bearer token sent as `Authorization: Bearer …`.
        bearer_token_env: Option<String>,
    },
}

impl McpServerConfig {
    /// A stdio server with default limits.
    pub fn stdio(command: impl Into<String>, args: Vec<String>) -> Self {
        Self::with_transport(McpTransport::Stdio {
            command: command.into(),
            args,
            env: BTreeMap::new(),
            cwd: None,
        })
    }

    /// A streamable HTTP server with default limits.
    pub fn http(url: impl Into<String>) -> Self {
        Self::with_transport(McpTransport::Http {
            url: url.into(),
            headers: BTreeMap::new(),
            bearer_token_env: None,
        })
    }

    /// `transport` with default limits, enabled, every tool offered.
    pub fn with_transport(transport: McpTransport) -> Self {
        Self {
            transport,
            enabled: true,
            startup_timeout_ms: DEFAULT_STARTUP_TIMEOUT_MS,
            tool_timeout_ms: DEFAULT_TOOL_TIMEOUT_MS,
            enabled_tools: None,
            disabled_tools: Vec::new(),
        }
    }

    pub fn startup_timeout(&self) -> Duration {
        Duration::from_millis(self.startup_timeout_ms)
    }

    pub fn tool_timeout(&self) -> Duration {
        Duration::from_millis(self.tool_timeout_ms)
    }

    /// Whether the server-side tool `name` is offered (`enabled_tools`, then `disabled_tools`).
    pub fn offers_tool(&self, name: &str) -> bool {
        let enabled = self
            .enabled_tools
            .as_ref()
            .is_none_or(|list| list.iter().any(|t| t == name));
        enabled && !self.disabled_tools.iter().any(|t| t == name)
    }

    /// `stdio` or `http`, for listings.
    pub fn transport_name(&self) -> &'static str {
        match self.transport {
            McpTransport::Stdio { .. } => "stdio",
            McpTransport::Http { .. } => "http",
        }
    }
}

/// The keys an entry may have (the lenient `.mcp.json` reader warns about others).
pub(crate) const KNOWN_KEYS: &[&str] = &[
    "type",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "bearer_token_env",
    "enabled",
    "startup_timeout_ms",
    "tool_timeout_ms",
    "enabled_tools",
    "disabled_tools",
];

/// The flat TOML/JSON shape; converted (and checked) into [`McpServerConfig`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawServerConfig {
    /// `stdio` or `http`; inferred from `command` / `url` when absent.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    args: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cwd: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bearer_token_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    startup_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    enabled_tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    disabled_tools: Vec<String>,
}

/// Why a raw entry is not a server (the caller adds the server's name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerShapeError(pub String);

impl std::fmt::Display for ServerShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<RawServerConfig> for McpServerConfig {
    type Error = ServerShapeError;

    fn try_from(raw: RawServerConfig) -> Result<Self, Self::Error> {
        let http_kind = match raw.kind.as_deref() {
            None => None,
            Some("stdio") => Some(false),
            // Claude Code's legacy `sse` entries: kigi speaks streamable HTTP to the URL.
            Some("http" | "streamable_http" | "streamable-http" | "sse") => Some(true),
            Some(other) => {
                return Err(ServerShapeError(format!(
                    "unknown type `{other}` (expected stdio or http)"
                )));
            }
        };
        let transport = match (raw.command, raw.url, http_kind) {
            (Some(_), Some(_), _) => {
                return Err(ServerShapeError(
                    "has both `command` (stdio) and `url` (http); keep one".into(),
                ));
            }
            (Some(command), None, None | Some(false)) => {
                if !raw.headers.is_empty() || raw.bearer_token_env.is_some() {
                    return Err(ServerShapeError(
                        "`headers` and `bearer_token_env` are for http servers, not stdio".into(),
                    ));
                }
                McpTransport::Stdio {
                    command,
                    args: raw.args,
                    env: raw.env,
                    cwd: raw.cwd,
                }
            }
            (None, Some(url), None | Some(true)) => {
                if !raw.args.is_empty() || !raw.env.is_empty() || raw.cwd.is_some() {
                    return Err(ServerShapeError(
                        "`args`, `env` and `cwd` are for stdio servers, not http".into(),
                    ));
                }
                McpTransport::Http {
                    url,
                    headers: raw.headers,
                    bearer_token_env: raw.bearer_token_env,
                }
            }
            (Some(_), None, Some(true)) => {
                return Err(ServerShapeError(
                    "type is http but there is no `url`".into(),
                ));
            }
            (None, Some(_), Some(false)) => {
                return Err(ServerShapeError(
                    "type is stdio but there is no `command`".into(),
                ));
            }
            (None, None, _) => {
                return Err(ServerShapeError(
                    "needs `command` (a stdio server) or `url` (a streamable HTTP server)".into(),
                ));
            }
        };
        Ok(Self {
            transport,
            enabled: raw.enabled.unwrap_or(true),
            startup_timeout_ms: raw.startup_timeout_ms.unwrap_or(DEFAULT_STARTUP_TIMEOUT_MS),
            tool_timeout_ms: raw.tool_timeout_ms.unwrap_or(DEFAULT_TOOL_TIMEOUT_MS),
            enabled_tools: raw.enabled_tools,
            disabled_tools: raw.disabled_tools,
        })
    }
}

impl From<McpServerConfig> for RawServerConfig {
    fn from(config: McpServerConfig) -> Self {
        let mut raw = RawServerConfig {
            enabled: (!config.enabled).then_some(false),
            startup_timeout_ms: (config.startup_timeout_ms != DEFAULT_STARTUP_TIMEOUT_MS)
                .then_some(config.startup_timeout_ms),
            tool_timeout_ms: (config.tool_timeout_ms != DEFAULT_TOOL_TIMEOUT_MS)
                .then_some(config.tool_timeout_ms),
            enabled_tools: config.enabled_tools,
            disabled_tools: config.disabled_tools,
            ..RawServerConfig::default()
        };
        match config.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                raw.command = Some(command);
                raw.args = args;
                raw.env = env;
                raw.cwd = cwd;
            }
            McpTransport::Http {
                url,
                headers,
                bearer_token_env,
            } => {
                raw.url = Some(url);
                raw.headers = headers;
                raw.bearer_token_env = bearer_token_env;
            }
        }
        raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<McpServerConfig, String> {
        toml::from_str::<McpServerConfig>(text).map_err(|e| e.to_string())
    }

    #[test]
    fn stdio_entry_reads_with_defaults() {
        let config =
            parse("command = \"npx\"\nargs = [\"-y\", \"srv\"]\nenv = { K = \"v\" }\n").unwrap();
        assert_eq!(
            config,
            McpServerConfig {
                transport: McpTransport::Stdio {
                    command: "npx".into(),
                    args: vec!["-y".into(), "srv".into()],
                    env: BTreeMap::from([("K".into(), "v".into())]),
                    cwd: None,
                },
                enabled: true,
                startup_timeout_ms: 10_000,
                tool_timeout_ms: 60_000,
                enabled_tools: None,
                disabled_tools: vec![],
            }
        );
    }

    #[test]
    fn http_entry_reads_every_field() {
        let config = parse(
            "url = \"https://x/mcp\"\nheaders = { X-Team = \"a\" }\nbearer_token_env = \"TOKEN\"\n\
             enabled = false\nstartup_timeout_ms = 500\ntool_timeout_ms = 900\n\
             enabled_tools = [\"a\", \"b\"]\ndisabled_tools = [\"b\"]\n",
        )
        .unwrap();
        assert_eq!(
            config.transport,
            McpTransport::Http {
                url: "https://x/mcp".into(),
                headers: BTreeMap::from([("X-Team".into(), "a".into())]),
                bearer_token_env: Some("TOKEN".into()),
            }
        );
        assert!(!config.enabled);
        assert_eq!(config.startup_timeout(), Duration::from_millis(500));
        assert_eq!(config.tool_timeout(), Duration::from_millis(900));
        assert!(config.offers_tool("a"));
        assert!(!config.offers_tool("b"), "disabled wins over enabled");
        assert!(!config.offers_tool("c"), "not in enabled_tools");
    }

    #[test]
    fn rejects_an_entry_with_both_command_and_url() {
        let err = parse("command = \"x\"\nurl = \"http://y\"\n").unwrap_err();
        assert!(err.contains("both `command`"), "{err}");
    }

    #[test]
    fn rejects_an_entry_with_neither_command_nor_url() {
        let err = parse("args = [\"x\"]\n").unwrap_err();
        assert!(err.contains("needs `command`"), "{err}");
    }

    #[test]
    fn rejects_headers_on_a_stdio_server_and_unknown_keys() {
        assert!(parse("command = \"x\"\nheaders = { A = \"b\" }\n").is_err());
        let err = parse("command = \"x\"\ncomand = \"y\"\n").unwrap_err();
        assert!(err.contains("comand"), "{err}");
    }

    #[test]
    fn serializes_back_to_the_same_entry_without_defaults() {
        let config =
            parse("command = \"srv\"\nargs = [\"--flag\"]\ntool_timeout_ms = 5\n").unwrap();
        let text = toml::to_string(&config).unwrap();
        assert_eq!(
            text,
            "command = \"srv\"\nargs = [\"--flag\"]\ntool_timeout_ms = 5\n"
        );
        assert_eq!(parse(&text).unwrap(), config);
    }
}
