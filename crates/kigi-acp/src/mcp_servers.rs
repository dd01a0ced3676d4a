//! The MCP servers an editor names in `session/new` and `session/load`, as kigi's own server
//! configurations, and what became of each.
//!
//! The rule: never claim a server runs when it does not. Stdio and HTTP servers are handed to
//! the session host, which starts them beside the configured ones (a failure is reported by
//! the session as for any server); an SSE-only server is reported `unsupported`.

use std::collections::BTreeMap;

use agent_client_protocol::v1::schema::McpServer;
use kigi_mcp::{McpServerConfig, McpTransport};
use serde::Serialize;

/// What happened to one server the editor named.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditorMcpServer {
    pub name: String,
    /// `starting` or `unsupported`.
    pub status: &'static str,
    pub reason: String,
    /// kigi's configuration of it, when it has one.
    #[serde(skip)]
    pub config: Option<McpServerConfig>,
}

/// What is said of a server handed to the session.
const STARTING: &str =
    "started with the session; a server that fails is reported once by the session";

/// Each server of `servers`, converted where kigi can run it.
pub fn editor_mcp_servers(servers: &[McpServer]) -> Vec<EditorMcpServer> {
    servers
        .iter()
        .map(|server| {
            let (name, config) = match server {
                McpServer::Stdio(stdio) => {
                    let mut config = McpServerConfig::stdio(
                        stdio.command.to_string_lossy().into_owned(),
                        stdio.args.clone(),
                    );
                    if let McpTransport::Stdio { env, .. } = &mut config.transport {
                        *env = stdio
                            .env
                            .iter()
                            .map(|v| (v.name.clone(), v.value.clone()))
                            .collect();
                    }
                    (stdio.name.clone(), Some(config))
                }
                McpServer::Http(http) => {
                    let mut config = McpServerConfig::http(http.url.clone());
                    if let McpTransport::Http { headers, .. } = &mut config.transport {
                        *headers = http
                            .headers
                            .iter()
                            .map(|h| (h.name.clone(), h.value.clone()))
                            .collect::<BTreeMap<_, _>>();
                    }
                    (http.name.clone(), Some(config))
                }
                McpServer::Sse(sse) => (sse.name.clone(), None),
                _ => ("(unknown)".to_owned(), None),
            };
            match config {
                Some(config) => EditorMcpServer {
                    name,
                    status: "starting",
                    reason: STARTING.to_owned(),
                    config: Some(config),
                },
                None => EditorMcpServer {
                    name,
                    status: "unsupported",
                    reason: "kigi reaches MCP servers over stdio and streamable HTTP only".into(),
                    config: None,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use agent_client_protocol::v1::schema::{EnvVariable, McpServerSse, McpServerStdio};

    #[test]
    fn stdio_servers_convert_and_are_reported_starting() {
        let servers = vec![
            McpServer::Stdio(
                McpServerStdio::new("files", "/bin/files")
                    .args(vec!["--root".into(), "/repo".into()])
                    .env(vec![EnvVariable::new("TOKEN", "x")]),
            ),
            McpServer::Sse(McpServerSse::new("old", "http://127.0.0.1:1/sse")),
        ];
        let notes = editor_mcp_servers(&servers);
        assert_eq!(notes[0].status, "starting");
        let Some(McpServerConfig {
            transport: McpTransport::Stdio {
                command, args, env, ..
            },
            ..
        }) = &notes[0].config
        else {
            panic!("{:?}", notes[0]);
        };
        assert_eq!((command.as_str(), args.len()), ("/bin/files", 2));
        assert_eq!(env.get("TOKEN").map(String::as_str), Some("x"));
        assert_eq!(
            (notes[1].name.as_str(), notes[1].status),
            ("old", "unsupported")
        );
    }
}
