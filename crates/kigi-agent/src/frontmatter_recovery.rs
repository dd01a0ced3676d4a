//! Recovering frontmatter that strict YAML rejects, as agent collections often write it: an
//! unquoted `: ` inside `description`, or `user: "…"` / `assistant: "…"` example lines under it.
//!
//! Reading is line by line: a line at column 0 that starts a key kigi knows opens a new value;
//! any other line continues the value above it. Each recovered value is then read as YAML on
//! its own (so `tools: [a, b]` stays a list), or as plain text when that fails too.

use serde_yaml_ng::{Mapping, Value};

/// Keys that open a new value during recovery: every key kigi reads, in both spellings, plus
/// the ones other harnesses commonly write. Anything else continues the value above.
const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "promptMode",
    "prompt_mode",
    "tools",
    "disallowedTools",
    "disallowed_tools",
    "permissionMode",
    "permission_mode",
    "skills",
    "agentsMd",
    "agents_md",
    "outputFormat",
    "output_format",
    "bash",
    "toolNameOverrides",
    "paramNameOverrides",
    "completionRequirement",
    "toolConfig",
    "model",
    "effort",
    "allowed_models",
    "deny_models",
    "allowed_efforts",
    "restrict_models_to_menu",
    "preferred_models",
    "discouraged_models",
    "preferred_efforts",
    "capabilityMode",
    "capability_mode",
    "isolation",
    "background",
    "maxTurns",
    "compaction",
    "max_turns",
    "mcpServers",
    "mcp_servers",
    "hooks",
    "color",
    "whenToUse",
    "when_to_use",
    "executor",
    "temperature",
    "mode",
    "permissions",
    "permission",
    "id",
    "category",
    "tags",
    "version",
    "author",
];

/// The key a line opens, if it opens one.
fn opening_key(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = line.split_once(':')?;
    if !KNOWN_KEYS.contains(&key) {
        return None;
    }
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some((key, rest))
}

fn unquote(text: &str) -> &str {
    let t = text.trim();
    for q in ['"', '\''] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            return &t[1..t.len() - 1];
        }
    }
    t
}

/// One value recovered from the lines that belong to it.
fn recover_value(key: &str, rest: &str, continuation: &[&str]) -> Value {
    let mut snippet = format!("{key}:{rest}\n");
    for line in continuation {
        snippet.push_str(line);
        snippet.push('\n');
    }
    if let Ok(Value::Mapping(map)) = serde_yaml_ng::from_str::<Value>(&snippet)
        && let Some(value) = map.get(key)
    {
        return value.clone();
    }
    let mut text = unquote(rest).to_owned();
    for line in continuation {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line.trim());
    }
    Value::String(text.trim().to_owned())
}

/// Reads the known top-level keys of `yaml` line by line.
pub(crate) fn recover(yaml: &str) -> Mapping {
    let mut mapping = Mapping::new();
    let mut current: Option<(&str, &str, Vec<&str>)> = None;
    let flush = |entry: Option<(&str, &str, Vec<&str>)>, mapping: &mut Mapping| {
        if let Some((key, rest, continuation)) = entry {
            let value = recover_value(key, rest, &continuation);
            mapping.insert(Value::String(key.to_owned()), value);
        }
    };
    for line in yaml.lines() {
        if let Some((key, rest)) = opening_key(line) {
            flush(current.take(), &mut mapping);
            current = Some((key, rest, Vec::new()));
        } else if line.starts_with('#') {
            continue;
        } else if let Some((_, _, continuation)) = current.as_mut() {
            continuation.push(line);
        }
    }
    flush(current.take(), &mut mapping);
    mapping
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(map: &'a Mapping, key: &str) -> &'a Value {
        map.get(key)
            .unwrap_or_else(|| panic!("{key} not recovered"))
    }

    #[test]
    fn keeps_unquoted_colons_in_description() {
        let yaml = "name: gdpr\ndescription: Use this agent when ... Triggers on: 'GDPR', 'privacy'\nmodel: sonnet\n";
        let map = recover(yaml);
        assert_eq!(
            get(&map, "description"),
            &Value::String("Use this agent when ... Triggers on: 'GDPR', 'privacy'".into())
        );
        assert_eq!(get(&map, "model"), &Value::String("sonnet".into()));
    }

    #[test]
    fn example_dialogue_lines_stay_in_the_description() {
        let yaml = "name: helper\ndescription: Use when asked.\n<example>\nContext: a repo\nuser: \"review this\"\nassistant: \"I will use the helper\"\n</example>\ntools: Read, Grep\n";
        let map = recover(yaml);
        let Value::String(description) = get(&map, "description") else {
            panic!("description is not text")
        };
        assert!(description.contains("user: \"review this\""));
        assert!(description.contains("assistant: \"I will use the helper\""));
        assert_eq!(get(&map, "tools"), &Value::String("Read, Grep".into()));
    }

    #[test]
    fn structured_values_are_still_read_as_yaml() {
        let yaml = "name: a\ndescription: broken: yes: really\ntools:\n  - read_file\n  - grep\n";
        let map = recover(yaml);
        assert!(matches!(get(&map, "tools"), Value::Sequence(items) if items.len() == 2));
    }
}
