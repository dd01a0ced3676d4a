//! One alias table from tool names written for other harnesses (Claude Code, Gemini CLI,
//! OpenCode) to kigi's canonical tools, so an allowlist written for another harness grants the
//! same abilities in kigi.
//!
//! The rule: a name with no kigi equivalent resolves to [`AliasResolution::NoEquivalent`] and
//! the caller drops it with a warning. Nothing here ever widens a list.

use crate::{ToolCatalog, ToolSpec};

/// Foreign name (lowercased) → kigi canonical name, or `None` when kigi has no equivalent.
const ALIASES: &[(&str, Option<&str>)] = &[
    // Claude Code (matched case-insensitively, so `Read` and OpenCode's `read` share a row).
    ("read", Some("read_file")),
    ("write", Some("write_file")),
    ("edit", Some("search_replace")),
    ("multiedit", Some("search_replace")),
    ("glob", Some("glob")),
    ("grep", Some("grep")),
    ("bash", Some("run_terminal_cmd")),
    ("ls", Some("list_dir")),
    ("todowrite", Some("todo_write")),
    ("task", Some("spawn_subagent")),
    ("bashoutput", Some("get_task_output")),
    ("killshell", Some("kill_task")),
    ("webfetch", Some("web_fetch")),
    ("websearch", Some("web_search")),
    ("notebookedit", None),
    ("notebookread", None),
    ("todoread", None),
    // Gemini CLI.
    ("read_file", Some("read_file")),
    ("read_many_files", Some("read_file")),
    ("write_file", Some("write_file")),
    ("replace", Some("search_replace")),
    ("run_shell_command", Some("run_terminal_cmd")),
    ("grep_search", Some("grep")),
    ("search_file_content", Some("grep")),
    ("list_directory", Some("list_dir")),
    ("google_web_search", Some("web_search")),
    ("web_fetch", Some("web_fetch")),
    ("save_memory", None),
    // OpenCode (the rows above cover read, write, edit, bash, grep, glob and task).
    ("patch", Some("search_replace")),
    ("list", Some("list_dir")),
];

/// What a tool name in an allow- or denylist means to kigi.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AliasResolution {
    /// Already a kigi canonical name.
    Canonical(&'static str),
    /// Another harness's name for a kigi tool.
    Alias {
        canonical: &'static str,
        harness_name: String,
    },
    /// An MCP tool (`mcp__server__tool`) or a glob over tool names: kept verbatim for MCP.
    Pattern(String),
    /// A known tool of another harness that kigi does not have (`NotebookEdit`).
    NoEquivalent(String),
    /// A tool restricted by an argument pattern (`Bash(git diff:*)`), which kigi cannot enforce.
    ArgumentPattern(String),
    /// Nothing kigi or the alias table knows.
    Unknown(String),
}

/// Resolves a tool name from an agent file against the catalog and the alias table.
pub fn resolve_tool_name(name: &str, catalog: &ToolCatalog) -> AliasResolution {
    let name = name.trim();
    if let Some(canonical) = catalog.get(name).and_then(ToolSpec::static_name) {
        return AliasResolution::Canonical(canonical);
    }
    if name.contains('(') && name.ends_with(')') {
        return AliasResolution::ArgumentPattern(name.to_owned());
    }
    if name.starts_with("mcp__") || name.contains('*') || name.contains('?') {
        return AliasResolution::Pattern(name.to_owned());
    }
    let lowered = name.to_ascii_lowercase();
    match ALIASES.iter().find(|(alias, _)| *alias == lowered) {
        Some((_, Some(target))) => match catalog.get(target).and_then(ToolSpec::static_name) {
            Some(canonical) => AliasResolution::Alias {
                canonical,
                harness_name: name.to_owned(),
            },
            None => AliasResolution::NoEquivalent(name.to_owned()),
        },
        Some((_, None)) => AliasResolution::NoEquivalent(name.to_owned()),
        None => AliasResolution::Unknown(name.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(name: &str) -> Option<&'static str> {
        match resolve_tool_name(name, &ToolCatalog::built_in()) {
            AliasResolution::Canonical(c) | AliasResolution::Alias { canonical: c, .. } => Some(c),
            _ => None,
        }
    }

    #[test]
    fn claude_code_names_map_to_kigi_tools() {
        let expected = [
            ("Read", "read_file"),
            ("Write", "write_file"),
            ("Edit", "search_replace"),
            ("Glob", "glob"),
            ("Grep", "grep"),
            ("Bash", "run_terminal_cmd"),
            ("TodoWrite", "todo_write"),
            ("Task", "spawn_subagent"),
        ];
        for (from, to) in expected {
            assert_eq!(canonical(from), Some(to), "{from}");
        }
    }

    #[test]
    fn gemini_names_map_to_kigi_tools() {
        let expected = [
            ("read_file", "read_file"),
            ("write_file", "write_file"),
            ("run_shell_command", "run_terminal_cmd"),
            ("grep_search", "grep"),
            ("glob", "glob"),
        ];
        for (from, to) in expected {
            assert_eq!(canonical(from), Some(to), "{from}");
        }
    }

    #[test]
    fn opencode_names_map_to_kigi_tools() {
        let expected = [
            ("read", "read_file"),
            ("write", "write_file"),
            ("edit", "search_replace"),
            ("bash", "run_terminal_cmd"),
            ("grep", "grep"),
            ("glob", "glob"),
            ("patch", "search_replace"),
            ("task", "spawn_subagent"),
        ];
        for (from, to) in expected {
            assert_eq!(canonical(from), Some(to), "{from}");
        }
    }

    #[test]
    fn every_alias_target_is_in_the_catalog() {
        let catalog = ToolCatalog::built_in();
        for (alias, target) in ALIASES {
            if let Some(target) = target {
                assert!(
                    catalog.contains(target),
                    "{alias} -> {target} is not a kigi tool"
                );
            }
        }
    }

    #[test]
    fn web_tool_names_of_other_harnesses_map_to_kigis_web_tools() {
        for (from, to) in [
            ("WebFetch", "web_fetch"),
            ("web_fetch", "web_fetch"),
            ("WebSearch", "web_search"),
            ("google_web_search", "web_search"),
        ] {
            assert_eq!(canonical(from), Some(to), "{from}");
        }
    }

    #[test]
    fn mcp_names_and_globs_are_kept_verbatim() {
        let catalog = ToolCatalog::built_in();
        assert_eq!(
            resolve_tool_name("mcp__github__create_issue", &catalog),
            AliasResolution::Pattern("mcp__github__create_issue".into())
        );
        assert_eq!(
            resolve_tool_name("mcp__db__*", &catalog),
            AliasResolution::Pattern("mcp__db__*".into())
        );
    }

    #[test]
    fn argument_patterns_and_unknown_names_are_reported() {
        let catalog = ToolCatalog::built_in();
        assert_eq!(
            resolve_tool_name("Bash(git diff:*)", &catalog),
            AliasResolution::ArgumentPattern("Bash(git diff:*)".into())
        );
        assert_eq!(
            resolve_tool_name("Bash(git status)", &catalog),
            AliasResolution::ArgumentPattern("Bash(git status)".into())
        );
        assert_eq!(
            resolve_tool_name("Teleport", &catalog),
            AliasResolution::Unknown("Teleport".into())
        );
    }
}
