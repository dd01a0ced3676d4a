//! Adding and removing an `[mcp_servers.<name>]` entry in a TOML file as text, so the rest of
//! the file (the user's comments and layout) is kept as written.

use kigi_mcp::McpServerConfig;

/// `text` with the entry `name` appended; an error when the file already has it.
pub fn with_server(text: &str, name: &str, config: &McpServerConfig) -> anyhow::Result<String> {
    anyhow::ensure!(
        !has_server(text, name),
        "an MCP server named `{name}` is already configured there; remove it first"
    );
    let mut servers = toml::Table::new();
    servers.insert(name.to_owned(), toml::Value::try_from(config)?);
    let mut root = toml::Table::new();
    root.insert("mcp_servers".to_owned(), toml::Value::Table(servers));
    let block = toml::to_string(&root)?;
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&block);
    Ok(out)
}

/// `text` without the entry `name` (its table and its sub-tables), or `None` when it has none.
pub fn without_server(text: &str, name: &str) -> Option<String> {
    let own = [
        format!("[mcp_servers.{name}]"),
        format!("[mcp_servers.\"{name}\"]"),
    ];
    let sub = [
        format!("[mcp_servers.{name}."),
        format!("[mcp_servers.\"{name}\"."),
    ];
    let mut out = Vec::new();
    let mut skipping = false;
    let mut found = false;
    for line in text.lines() {
        let header = line.trim_start();
        if header.starts_with('[') {
            skipping = own.iter().any(|h| header.starts_with(h.as_str()))
                || sub.iter().any(|h| header.starts_with(h.as_str()));
            found |= skipping;
        }
        if !skipping {
            out.push(line);
        }
    }
    found.then(|| {
        let mut joined = out.join("\n");
        joined.push('\n');
        joined
    })
}

fn has_server(text: &str, name: &str) -> bool {
    toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|table| {
            table
                .get("mcp_servers")
                .and_then(|s| s.as_table())
                .map(|s| s.contains_key(name))
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_added_and_removed_and_the_rest_of_the_file_kept() {
        let original =
            "# my settings\ndefault_model = \"m\"\n\n[models.m]\nprovider = \"openai\"\n";
        let config = McpServerConfig::stdio("npx", vec!["-y".into(), "server".into()]);
        let added = with_server(original, "files", &config).unwrap();
        assert!(added.starts_with(original), "{added}");
        let parsed: toml::Table = toml::from_str(&added).unwrap();
        assert_eq!(
            parsed["mcp_servers"]["files"]["command"].as_str(),
            Some("npx")
        );
        assert!(with_server(&added, "files", &config).is_err());
        let removed = without_server(&added, "files").unwrap();
        assert_eq!(removed.trim_end(), original.trim_end());
        assert_eq!(without_server(original, "files"), None);
    }
}
