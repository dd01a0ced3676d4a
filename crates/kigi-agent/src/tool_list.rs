//! `tools` and `disallowedTools` as people write them: a YAML list, a comma-separated string,
//! a single name, or (OpenCode) a mapping of name to boolean. Names from other harnesses are
//! mapped to kigi's through `kigi_tools`'s alias table.
//!
//! The rule: an allowlist is never widened. A name kigi cannot honour is dropped from an
//! allowlist with a warning; in a denylist, a tool restricted by an argument pattern
//! (`Bash(rm:*)`) is denied whole, since kigi cannot deny just part of it.

use std::path::Path;

use kigi_tools::{AliasResolution, ToolCatalog, resolve_tool_name};
use serde_yaml_ng::Value;

use crate::diagnostic::Diagnostic;
use crate::error::AgentBuildError;
use crate::fields::{Fields, describe, scalar_text};
use crate::suggest::nearest;

/// A tool list as written, before names are resolved.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct WrittenToolList {
    /// Names the list enables (`None` for the mapping shape, which only disables).
    pub(crate) enabled: Option<Vec<String>>,
    /// Names a mapping sets to `false`.
    pub(crate) disabled: Vec<String>,
}

/// Reads `key` in any of the four shapes. `None` when the key is absent.
pub(crate) fn read_written(
    fields: &mut Fields<'_>,
    key: &str,
) -> Result<Option<WrittenToolList>, AgentBuildError> {
    let Some(value) = fields.take(key) else {
        return Ok(None);
    };
    let list = match value {
        Value::String(text) => WrittenToolList {
            enabled: Some(split_names(&text)),
            disabled: Vec::new(),
        },
        Value::Sequence(items) => {
            let mut names = Vec::with_capacity(items.len());
            for item in &items {
                let text = scalar_text(item).ok_or_else(|| {
                    fields.error(
                        key,
                        format!("expected tool names, found {}", describe(item)),
                    )
                })?;
                names.extend(split_names(&text));
            }
            WrittenToolList {
                enabled: Some(names),
                disabled: Vec::new(),
            }
        }
        Value::Mapping(map) => {
            let mut disabled = Vec::new();
            for (name, on) in &map {
                let name = scalar_text(name).unwrap_or_default();
                match on {
                    Value::Bool(true) => {}
                    Value::Bool(false) => disabled.push(name),
                    other => {
                        return Err(fields.error(
                            &format!("{key}.{name}"),
                            format!("expected true or false, found {}", describe(other)),
                        ));
                    }
                }
            }
            WrittenToolList {
                enabled: None,
                disabled,
            }
        }
        other => {
            return Err(fields.error(
                key,
                format!("expected a list of tool names, found {}", describe(&other)),
            ));
        }
    };
    Ok(Some(list))
}

fn split_names(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Which list a name is being resolved for: the two differ on what to do with a name kigi
/// cannot honour exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Allow,
    Deny,
}

/// Resolves written names to canonical kigi names (and kept MCP patterns), without duplicates.
/// What cannot be honoured is reported in `warnings` against `file` and `field`.
pub(crate) fn resolve_names(
    names: &[String],
    list: ListKind,
    field: &str,
    catalog: &ToolCatalog,
    file: Option<&Path>,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut warn = |message: String| warnings.push(Diagnostic::warning(file, Some(field), message));
    for name in names {
        let resolved = match resolve_tool_name(name, catalog) {
            AliasResolution::Canonical(canonical) => Some(canonical.to_owned()),
            AliasResolution::Alias { canonical, .. } => Some(canonical.to_owned()),
            AliasResolution::Pattern(pattern) => Some(pattern),
            AliasResolution::NoEquivalent(name) => {
                warn(format!("`{name}` has no kigi equivalent; left out"));
                None
            }
            AliasResolution::ArgumentPattern(written) => {
                let tool = written.split('(').next().unwrap_or_default();
                match (list, resolve_tool_name(tool, catalog)) {
                    (
                        ListKind::Deny,
                        AliasResolution::Canonical(c) | AliasResolution::Alias { canonical: c, .. },
                    ) => {
                        warn(format!(
                            "`{written}`: kigi cannot deny part of a tool; `{c}` is denied whole"
                        ));
                        Some(c.to_owned())
                    }
                    _ => {
                        warn(format!(
                            "`{written}`: kigi cannot restrict a tool by its arguments; left out"
                        ));
                        None
                    }
                }
            }
            AliasResolution::Unknown(name) => {
                let hint = tool_suggestion(&name, catalog)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                warn(format!("`{name}` is not a kigi tool; left out{hint}"));
                None
            }
        };
        if let Some(name) = resolved
            && !out.contains(&name)
        {
            out.push(name);
        }
    }
    out
}

/// Claude Code's tool names, as its users write them: what a mistyped name in an agent file
/// written for it most likely meant. Only those kigi maps are suggested.
const CLAUDE_CODE_TOOLS: &[&str] = &[
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Glob",
    "Grep",
    "Bash",
    "LS",
    "TodoWrite",
    "Task",
    "BashOutput",
    "KillShell",
];

/// The tool name nearest to a mistyped one: kigi's names and Claude Code's (`Reed` → `Read`).
fn tool_suggestion<'a>(written: &str, catalog: &'a ToolCatalog) -> Option<&'a str> {
    let canonical = catalog.specs().iter().map(|spec| spec.name.as_ref());
    let mapped = CLAUDE_CODE_TOOLS.iter().copied().filter(|name| {
        matches!(
            resolve_tool_name(name, catalog),
            AliasResolution::Alias { .. } | AliasResolution::Canonical(_)
        )
    });
    nearest(written, canonical.chain(mapped))
}
