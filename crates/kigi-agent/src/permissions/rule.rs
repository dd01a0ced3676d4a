//! One permission rule in Claude Code's syntax: a tool name, optionally with a specifier in
//! parentheses. `Bash(cargo test:*)`, `Edit(src/**)`, `Read(~/.ssh/**)`,
//! `WebFetch(domain:example.com)`, `Task(explore)`, `mcp__github__*`, and kigi's own names
//! (`run_terminal_cmd(git status)`, `write_file(docs/**)`).
//!
//! The rule: a rule that cannot mean what it says is an error naming the rule, never a rule
//! quietly dropped or widened (a typo in a deny list must not open anything).

use kigi_protocol::ToolKind;
use kigi_tools::{AliasResolution, ToolCatalog, resolve_tool_name};

use super::command_pattern::CommandPattern;
use super::path_pattern::PathPattern;

/// Which tools a rule is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSelector {
    /// One kigi tool, by canonical name.
    Tool(&'static str),
    /// Every tool that edits files (`Edit`, `Write`, `MultiEdit`, `NotebookEdit`).
    Edits,
    /// Every tool that reads files (`Read`: also grep, glob and list_dir).
    Reads,
    /// A tool kigi may not have yet, by canonical name (`WebFetch` is `web_fetch`).
    Named(&'static str),
    /// Tool names by pattern (`mcp__server__*`; `*` matches any run of characters).
    Pattern(String),
}

/// What a rule says about a call's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Specifier {
    Command(CommandPattern),
    Path(PathPattern),
    /// `domain:example.com`: a URL's host, or a subdomain of it.
    Domain(String),
    /// A subagent type (`Task(explore)`).
    Agent(String),
}

/// A rule as written, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    /// The rule as written (what listings and refusals show).
    pub text: String,
    pub tools: ToolSelector,
    pub specifier: Option<Specifier>,
}

/// Why a rule cannot be used; the caller adds where it was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("rule `{0}`: empty")]
    Empty(String),
    #[error("rule `{0}`: an opening `(` needs a closing `)` at the end")]
    Unbalanced(String),
    #[error(
        "rule `{rule}`: unknown tool `{tool}` (use a kigi tool name, a Claude Code name such as Bash, Edit, Read, WebFetch, or mcp__server__tool)"
    )]
    UnknownTool { rule: String, tool: String },
    #[error("rule `{rule}`: `{tool}` takes no specifier in parentheses")]
    NoSpecifier { rule: String, tool: String },
    #[error("rule `{0}`: WebFetch takes `domain:HOST`")]
    Domain(String),
    #[error("rule `{0}`: the specifier is empty; write the tool name alone to mean every call")]
    EmptySpecifier(String),
    #[error("rule `{rule}`: the path pattern is not a valid glob: {detail}")]
    BadPath { rule: String, detail: String },
}

impl PermissionRule {
    pub fn parse(text: &str) -> Result<Self, RuleError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RuleError::Empty(text.to_owned()));
        }
        let (name, specifier) = match text.find('(') {
            Some(open) => {
                let Some(inner) = text[open + 1..].strip_suffix(')') else {
                    return Err(RuleError::Unbalanced(text.to_owned()));
                };
                (text[..open].trim(), Some(inner.trim()))
            }
            None => (text, None),
        };
        if specifier.is_some_and(str::is_empty) {
            return Err(RuleError::EmptySpecifier(text.to_owned()));
        }
        let tools = selector(name).ok_or_else(|| RuleError::UnknownTool {
            rule: text.to_owned(),
            tool: name.to_owned(),
        })?;
        let specifier = match specifier {
            None => None,
            Some(inner) => Some(specifier_for(&tools, inner).ok_or_else(|| {
                if tools == ToolSelector::Named("web_fetch") {
                    RuleError::Domain(text.to_owned())
                } else {
                    RuleError::NoSpecifier {
                        rule: text.to_owned(),
                        tool: name.to_owned(),
                    }
                }
            })?),
        };
        // A path that can never compile would silently match nothing: refused here.
        if let Some(Specifier::Path(pattern)) = &specifier {
            let anchors = super::path_pattern::PathAnchors {
                home: Some("/h".into()),
                project_root: "/p".into(),
                cwd: "/p".into(),
            };
            if let Err(error) = pattern.compile(&anchors) {
                return Err(RuleError::BadPath {
                    rule: text.to_owned(),
                    detail: error.to_string(),
                });
            }
        }
        Ok(Self {
            text: text.to_owned(),
            tools,
            specifier,
        })
    }

    /// True when the rule is about the tool `canonical` of `kind`, whatever its input.
    pub fn selects(&self, canonical: &str, kind: ToolKind) -> bool {
        match &self.tools {
            // `WebFetch` covers every fetch: `web_fetch`, and the browser opening a URL.
            ToolSelector::Named("web_fetch") => {
                canonical == "web_fetch" || kind == ToolKind::WebFetch
            }
            ToolSelector::Tool(name) | ToolSelector::Named(name) => *name == canonical,
            ToolSelector::Edits => kind.writes_files(),
            ToolSelector::Reads => reads_files(kind),
            ToolSelector::Pattern(pattern) => name_matches(pattern, canonical),
        }
    }
}

/// Tools whose input is a path they read.
pub fn reads_files(kind: ToolKind) -> bool {
    matches!(kind, ToolKind::Read | ToolKind::ListDir | ToolKind::Search)
}

/// Claude Code's names for groups of kigi tools and for tools kigi may not have yet come
/// first; then kigi's names and the alias table.
fn selector(name: &str) -> Option<ToolSelector> {
    let group = match name.to_ascii_lowercase().as_str() {
        "bash" => Some(ToolSelector::Tool("run_terminal_cmd")),
        "agent" => Some(ToolSelector::Tool("spawn_subagent")),
        "edit" | "write" | "multiedit" | "notebookedit" => Some(ToolSelector::Edits),
        "read" => Some(ToolSelector::Reads),
        "webfetch" | "web_fetch" => Some(ToolSelector::Named("web_fetch")),
        "websearch" | "web_search" => Some(ToolSelector::Named("web_search")),
        _ => None,
    };
    if group.is_some() {
        return group;
    }
    match resolve_tool_name(name, &ToolCatalog::built_in()) {
        AliasResolution::Canonical(canonical) | AliasResolution::Alias { canonical, .. } => {
            Some(ToolSelector::Tool(canonical))
        }
        AliasResolution::Pattern(pattern) => Some(ToolSelector::Pattern(
            // `mcp__server` alone means every tool of that server.
            if pattern.starts_with("mcp__") && pattern.matches("__").count() == 1 {
                format!("{pattern}__*")
            } else {
                pattern
            },
        )),
        _ => None,
    }
}

fn specifier_for(tools: &ToolSelector, inner: &str) -> Option<Specifier> {
    let catalog = ToolCatalog::built_in();
    let kind = |name: &str| catalog.get(name).map(|spec| spec.kind);
    match tools {
        ToolSelector::Tool("run_terminal_cmd") => {
            Some(Specifier::Command(CommandPattern::parse(inner)))
        }
        ToolSelector::Tool("spawn_subagent") => Some(Specifier::Agent(inner.to_owned())),
        ToolSelector::Edits | ToolSelector::Reads => {
            Some(Specifier::Path(PathPattern::parse(inner)))
        }
        ToolSelector::Tool(name)
            if kind(name).is_some_and(|k| k.writes_files() || reads_files(k)) =>
        {
            Some(Specifier::Path(PathPattern::parse(inner)))
        }
        ToolSelector::Named("web_fetch") => {
            let host = inner.strip_prefix("domain:")?.trim();
            (!host.is_empty()).then(|| Specifier::Domain(host.to_ascii_lowercase()))
        }
        _ => None,
    }
}

/// `*` matches any run of characters; the rest is literal.
fn name_matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let mut rest = match name.strip_prefix(parts[0]) {
        Some(rest) => rest,
        None => return false,
    };
    for (index, part) in parts.iter().enumerate().skip(1) {
        if index == parts.len() - 1 {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> PermissionRule {
        PermissionRule::parse(text).unwrap()
    }

    #[test]
    fn claude_code_names_select_kigi_tools() {
        assert_eq!(parse("Bash").tools, ToolSelector::Tool("run_terminal_cmd"));
        assert_eq!(parse("Edit(src/**)").tools, ToolSelector::Edits);
        assert_eq!(parse("Write").tools, ToolSelector::Edits);
        assert_eq!(parse("Read(~/.ssh/**)").tools, ToolSelector::Reads);
        assert_eq!(parse("Grep").tools, ToolSelector::Tool("grep"));
        assert_eq!(
            parse("Task(explore)").tools,
            ToolSelector::Tool("spawn_subagent")
        );
        assert_eq!(
            parse("run_terminal_cmd(git status)").tools,
            ToolSelector::Tool("run_terminal_cmd")
        );
        assert_eq!(
            parse("WebFetch(domain:Example.com)").specifier,
            Some(Specifier::Domain("example.com".into()))
        );
        let fetch = parse("WebFetch(domain:example.com)");
        assert!(fetch.selects("web_fetch", ToolKind::WebFetch));
        assert!(
            fetch.selects("browser_open", ToolKind::WebFetch),
            "opening a page in the browser is a fetch"
        );
        assert!(!fetch.selects("browser_click", ToolKind::Other));
        assert_eq!(
            parse("mcp__github").tools,
            ToolSelector::Pattern("mcp__github__*".into())
        );
    }

    #[test]
    fn what_each_rule_selects() {
        assert!(parse("Edit").selects("write_file", ToolKind::Write));
        assert!(parse("Edit").selects("search_replace", ToolKind::Edit));
        assert!(!parse("Edit").selects("read_file", ToolKind::Read));
        assert!(parse("Read").selects("grep", ToolKind::Search));
        assert!(parse("mcp__github__*").selects("mcp__github__create_issue", ToolKind::Other));
        assert!(!parse("mcp__github__*").selects("mcp__gitlab__x", ToolKind::Other));
        assert!(parse("mcp__github__get_*").selects("mcp__github__get_issue", ToolKind::Other));
    }

    #[test]
    fn a_rule_that_cannot_mean_what_it_says_is_an_error_naming_it() {
        for (text, needle) in [
            ("Frobnicate", "unknown tool `Frobnicate`"),
            ("Bash(git status", "closing `)`"),
            ("Bash()", "specifier is empty"),
            ("todo_write(x)", "takes no specifier"),
            ("WebFetch(example.com)", "domain:HOST"),
            ("Edit(src/[ab)", "not a valid glob"),
            ("", "empty"),
        ] {
            let error = PermissionRule::parse(text).unwrap_err().to_string();
            assert!(error.contains(needle), "{text}: {error}");
        }
    }
}
