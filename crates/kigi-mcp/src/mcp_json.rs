//! Claude Code's server lists: a project's `.mcp.json` (`{"mcpServers": {name: entry}}`) and
//! an agent file's inline `mcpServers` (a map, or a list of names and one-entry maps).
//!
//! The rule: these files are written for another harness, so keys kigi does not know are
//! reported as warnings, never errors; a malformed entry fails with the file and server named.

use serde_json::{Map, Value};

use crate::error::McpError;
use crate::server_config::{KNOWN_KEYS, McpServerConfig, RawServerConfig};

/// Servers read from a file, in name order, and what was ignored in it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedServers {
    pub servers: Vec<(String, McpServerConfig)>,
    /// One line per ignored key (`server `x`: ignored key `oauth``).
    pub warnings: Vec<String>,
}

/// One server an agent file asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentMcpServer {
    /// A string: a server configured elsewhere (user or project), by name.
    Named(String),
    /// An entry written in the agent file itself.
    Inline {
        name: String,
        config: McpServerConfig,
    },
}

/// Reads the text of a `.mcp.json`; `origin` (its path) names it in errors.
pub fn parse_mcp_json(text: &str, origin: &str) -> Result<ParsedServers, McpError> {
    let value: Value = serde_json::from_str(text).map_err(|e| McpError::ParseConfig {
        origin: origin.to_owned(),
        detail: e.to_string(),
    })?;
    let Some(servers) = value.get("mcpServers") else {
        return Ok(ParsedServers::default());
    };
    let Value::Object(map) = servers else {
        return Err(McpError::ParseConfig {
            origin: origin.to_owned(),
            detail: "`mcpServers` must be an object of server entries".into(),
        });
    };
    parse_server_map(map, origin)
}

/// Reads an agent definition's `mcpServers` value (as the definition parser passed it on).
pub fn parse_agent_mcp_servers(
    value: &Value,
    origin: &str,
) -> Result<Vec<AgentMcpServer>, McpError> {
    match value {
        Value::Object(map) => Ok(parse_server_map(map, origin)?
            .servers
            .into_iter()
            .map(|(name, config)| AgentMcpServer::Inline { name, config })
            .collect()),
        Value::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::String(name) => out.push(AgentMcpServer::Named(name.clone())),
                    Value::Object(map) => out.extend(
                        parse_server_map(map, origin)?
                            .servers
                            .into_iter()
                            .map(|(name, config)| AgentMcpServer::Inline { name, config }),
                    ),
                    other => {
                        return Err(McpError::ParseConfig {
                            origin: origin.to_owned(),
                            detail: format!(
                                "`mcpServers` items must be server names or {{name: entry}} maps, not {other}"
                            ),
                        });
                    }
                }
            }
            Ok(out)
        }
        Value::String(name) => Ok(vec![AgentMcpServer::Named(name.clone())]),
        other => Err(McpError::ParseConfig {
            origin: origin.to_owned(),
            detail: format!("`mcpServers` must be a map or a list, not {other}"),
        }),
    }
}

fn parse_server_map(map: &Map<String, Value>, origin: &str) -> Result<ParsedServers, McpError> {
    let mut parsed = ParsedServers::default();
    for (name, entry) in map {
        let Value::Object(fields) = entry else {
            return Err(McpError::InvalidServer {
                server: name.clone(),
                detail: format!("{origin}: the entry must be an object"),
            });
        };
        let mut known = Map::new();
        for (key, value) in fields {
            if KNOWN_KEYS.contains(&key.as_str()) {
                known.insert(key.clone(), value.clone());
            } else {
                parsed
                    .warnings
                    .push(format!("{origin}: server `{name}`: ignored key `{key}`"));
            }
        }
        let raw: RawServerConfig =
            serde_json::from_value(Value::Object(known)).map_err(|e| McpError::InvalidServer {
                server: name.clone(),
                detail: format!("{origin}: {e}"),
            })?;
        let config = McpServerConfig::try_from(raw).map_err(|e| McpError::InvalidServer {
            server: name.clone(),
            detail: format!("{origin}: {e}"),
        })?;
        parsed.servers.push((name.clone(), config));
    }
    // By name, whatever order the JSON map keeps (serde_json's `preserve_order` may be on in
    // a workspace build): the same file always gives the same list.
    parsed.servers.sort_by(|a, b| a.0.cmp(&b.0));
    parsed.warnings.sort();
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::server_config::McpTransport;

    #[test]
    fn reads_claude_codes_stdio_and_http_entries() {
        let text = r#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "fs"], "env": {"ROOT": "${HOME}"}},
            "remote": {"type": "http", "url": "https://h/mcp", "headers": {"X-Key": "k"}},
            "legacy": {"type": "sse", "url": "https://h/sse"}
        }}"#;
        let parsed = parse_mcp_json(text, ".mcp.json").unwrap();
        let names: Vec<_> = parsed.servers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["files", "legacy", "remote"]);
        assert_eq!(
            parsed.servers[0].1.transport,
            McpTransport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "fs".into()],
                env: BTreeMap::from([("ROOT".into(), "${HOME}".into())]),
                cwd: None,
            }
        );
        assert_eq!(
            parsed.servers[2].1.transport,
            McpTransport::Http {
                url: "https://h/mcp".into(),
                headers: BTreeMap::from([("X-Key".into(), "k".into())]),
                bearer_token_env: None,
            }
        );
        assert!(parsed.warnings.is_empty());
    }

    #[test]
    fn unknown_keys_are_warnings_not_errors() {
        let text = r#"{"mcpServers": {"a": {"command": "x", "oauth": {}}}}"#;
        let parsed = parse_mcp_json(text, ".mcp.json").unwrap();
        assert_eq!(parsed.servers.len(), 1);
        assert_eq!(
            parsed.warnings,
            [".mcp.json: server `a`: ignored key `oauth`"]
        );
    }

    #[test]
    fn a_malformed_entry_names_the_file_and_server() {
        let err = parse_mcp_json(
            r#"{"mcpServers": {"bad": {"args": ["x"]}}}"#,
            "/p/.mcp.json",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("`bad`") && err.contains("/p/.mcp.json"),
            "{err}"
        );
        let err = parse_mcp_json("{", "/p/.mcp.json").unwrap_err().to_string();
        assert!(err.starts_with("/p/.mcp.json:"), "{err}");
    }

    #[test]
    fn a_file_without_mcp_servers_has_none() {
        assert_eq!(parse_mcp_json("{}", "x").unwrap(), ParsedServers::default());
    }

    #[test]
    fn agent_lists_mix_names_and_inline_entries() {
        let value = serde_json::json!(["github", {"local": {"command": "srv"}}]);
        let servers = parse_agent_mcp_servers(&value, "agents/a.md").unwrap();
        assert_eq!(
            servers,
            [
                AgentMcpServer::Named("github".into()),
                AgentMcpServer::Inline {
                    name: "local".into(),
                    config: McpServerConfig::stdio("srv", vec![]),
                },
            ]
        );
        let map = serde_json::json!({"local": {"command": "srv"}});
        assert_eq!(parse_agent_mcp_servers(&map, "a").unwrap().len(), 1);
        assert!(parse_agent_mcp_servers(&serde_json::json!(3), "a").is_err());
    }
}
