//! Where a session's MCP servers come from: `[mcp_servers.<name>]` in the user's
//! `config.toml`, a project's `.mcp.json` (Claude Code's format) and `.kigi/mcp.toml` (started
//! only once the folder is trusted; listed as needing trust before), and the running agent's
//! inline `mcpServers` (a name there refers to a configured server).
//!
//! The rule: a project's server never starts in a folder the user has not trusted; it is
//! still listed, so the user sees what trusting would start.

use std::collections::BTreeMap;
use std::path::Path;

use kigi_mcp::{
    AgentMcpServer, McpServerConfig, McpServerEntry, McpSource, parse_agent_mcp_servers,
    parse_mcp_json, parse_mcp_toml,
};

use crate::bounded_read::{FILE_CAP_BYTES, read_bounded};
use crate::config::ConfigError;

/// A project's MCP files, below its root.
pub const PROJECT_MCP_FILES: [&str; 2] = [".mcp.json", ".kigi/mcp.toml"];

/// The servers of a session: the user's, the project's, then the agent's own; later names
/// replace earlier ones. Returns the entries and what was said about them (ignored keys,
/// unusable agent entries).
pub fn session_mcp_servers(
    user: &BTreeMap<String, McpServerConfig>,
    project_root: &Path,
    trusted: bool,
    agent: Option<(&str, &serde_json::Value)>,
) -> Result<(Vec<McpServerEntry>, Vec<String>), ConfigError> {
    let mut entries: BTreeMap<String, McpServerEntry> = BTreeMap::new();
    let mut notes = Vec::new();
    for (name, config) in user {
        entries.insert(
            name.clone(),
            entry(name, config.clone(), McpSource::User, true),
        );
    }
    for file in PROJECT_MCP_FILES {
        let path = project_root.join(file);
        let text = match read_bounded(&path, FILE_CAP_BYTES) {
            Ok(text) => text,
            Err(e) if e.is_not_found() => continue,
            Err(e) => return Err(ConfigError::new(&path, e.detail())),
        };
        let origin = path.display().to_string();
        let servers = if file.ends_with(".json") {
            let parsed = parse_mcp_json(&text, &origin)
                .map_err(|e| ConfigError::new(&path, e.to_string()))?;
            notes.extend(parsed.warnings);
            parsed.servers
        } else {
            parse_mcp_toml(&text, &origin).map_err(|e| ConfigError::new(&path, e.to_string()))?
        };
        for (name, config) in servers {
            entries.insert(
                name.clone(),
                entry(&name, config, McpSource::Project, trusted),
            );
        }
    }
    if let Some((agent, value)) = agent {
        match parse_agent_mcp_servers(value, &format!("agent {agent}")) {
            Ok(servers) => {
                for server in servers {
                    match server {
                        AgentMcpServer::Named(name) if entries.contains_key(&name) => {}
                        AgentMcpServer::Named(name) => notes.push(format!(
                            "agent {agent}: mcpServers names `{name}`, which no config.toml, .mcp.json or .kigi/mcp.toml defines"
                        )),
                        AgentMcpServer::Inline { name, config } => {
                            entries.insert(name.clone(), entry(&name, config, McpSource::Agent, true));
                        }
                    }
                }
            }
            Err(error) => notes.push(format!(
                "agent {agent}: its mcpServers are not used: {error}"
            )),
        }
    }
    Ok((entries.into_values().collect(), notes))
}

fn entry(name: &str, config: McpServerConfig, source: McpSource, trusted: bool) -> McpServerEntry {
    McpServerEntry {
        name: name.to_owned(),
        config,
        source,
        trusted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_projects_servers_need_trust_and_an_agent_adds_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join(".mcp.json"),
            r#"{"mcpServers": {"proj": {"command": "touch", "args": ["marker"]}}}"#,
        )
        .unwrap();
        let mut user = BTreeMap::new();
        user.insert(
            "mine".to_owned(),
            McpServerConfig::stdio("my-server", Vec::new()),
        );
        let agent = serde_json::json!({"inline": {"command": "inline-server"}});
        let (entries, notes) =
            session_mcp_servers(&user, tmp.path(), false, Some(("worker", &agent))).unwrap();
        let summary: Vec<(&str, bool)> = entries
            .iter()
            .map(|e| (e.name.as_str(), e.trusted))
            .collect();
        assert_eq!(summary, [("inline", true), ("mine", true), ("proj", false)]);
        assert!(notes.is_empty(), "{notes:?}");
        let named = serde_json::json!(["mine", "nowhere"]);
        let (_, notes) =
            session_mcp_servers(&user, tmp.path(), true, Some(("worker", &named))).unwrap();
        assert!(notes[0].contains("`nowhere`"), "{notes:?}");
    }
}
