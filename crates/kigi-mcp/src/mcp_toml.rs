//! A project's `.kigi/mcp.toml`: `[mcp_servers.<name>]` tables, the same shape as the
//! `[mcp_servers]` section of `config.toml`.
//!
//! The rule: one entry shape for both files ([`McpServerConfig`]'s serde), so a server can be
//! moved between them unchanged.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::McpError;
use crate::server_config::McpServerConfig;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct McpToml {
    #[serde(default)]
    mcp_servers: BTreeMap<String, McpServerConfig>,
}

/// Reads the text of a `.kigi/mcp.toml`; `origin` (its path) names it in errors.
pub fn parse_mcp_toml(
    text: &str,
    origin: &str,
) -> Result<Vec<(String, McpServerConfig)>, McpError> {
    let file: McpToml = toml::from_str(text).map_err(|e| McpError::ParseConfig {
        origin: origin.to_owned(),
        detail: e.to_string(),
    })?;
    Ok(file.mcp_servers.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_server_table() {
        let text = "[mcp_servers.b]\nurl = \"http://127.0.0.1:1/mcp\"\n\n\
                    [mcp_servers.a]\ncommand = \"srv\"\nargs = [\"--x\"]\n";
        let servers = parse_mcp_toml(text, ".kigi/mcp.toml").unwrap();
        assert_eq!(
            servers,
            [
                (
                    "a".to_owned(),
                    McpServerConfig::stdio("srv", vec!["--x".into()])
                ),
                (
                    "b".to_owned(),
                    McpServerConfig::http("http://127.0.0.1:1/mcp")
                ),
            ]
        );
    }

    #[test]
    fn a_bad_entry_names_the_file_and_the_table() {
        let err = parse_mcp_toml("[mcp_servers.x]\nargs = []\n", "/p/.kigi/mcp.toml")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/p/.kigi/mcp.toml:"), "{err}");
        assert!(err.contains("mcp_servers.x"), "{err}");
        assert!(err.contains("needs `command`"), "{err}");
    }

    #[test]
    fn an_empty_file_has_no_servers() {
        assert_eq!(parse_mcp_toml("", "x").unwrap(), vec![]);
    }
}
