//! The tools an agent actually gets: the catalog, narrowed by the allowlist, the denylist (which
//! wins) and the capability mode, then renamed by `toolNameOverrides` for the model. Pure.

use std::collections::BTreeMap;
use std::path::Path;

use kigi_protocol::ToolKind;
use kigi_tools::{ToolCatalog, ToolSpec};
use serde::Serialize;

use crate::definition::AgentDefinition;
use crate::error::AgentBuildError;
use crate::settings::ToolSelection;

/// One tool as an agent has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedTool {
    /// Canonical name: what execution uses.
    pub name: String,
    /// What the model sees (after `toolNameOverrides`).
    pub model_name: String,
    pub kind: ToolKind,
    pub description: String,
    pub read_only: bool,
    /// Canonical parameter → model-facing parameter (`paramNameOverrides`).
    pub param_names: BTreeMap<String, String>,
}

fn known_tools(catalog: &ToolCatalog) -> String {
    let names: Vec<&str> = catalog.specs().iter().map(|s| &*s.name).collect();
    names.join(", ")
}

/// Checks that every override names a kigi tool.
fn check_overrides(def: &AgentDefinition, catalog: &ToolCatalog) -> Result<(), AgentBuildError> {
    let file = def.source.as_deref().map(Path::to_path_buf);
    let unknown = |field: &str, tool: &str| AgentBuildError::UnknownToolOverride {
        file: file.clone(),
        field: field.to_owned(),
        tool: tool.to_owned(),
        known: known_tools(catalog),
    };
    if let Some(tool) = def
        .tool_name_overrides
        .keys()
        .find(|t| !catalog.contains(t))
    {
        return Err(unknown("toolNameOverrides", tool));
    }
    if let Some(tool) = def
        .param_name_overrides
        .keys()
        .find(|t| !catalog.contains(t))
    {
        return Err(unknown("paramNameOverrides", tool));
    }
    Ok(())
}

/// The agent's tools, in catalog order.
pub fn resolve_tools(
    def: &AgentDefinition,
    catalog: &ToolCatalog,
) -> Result<Vec<ResolvedTool>, AgentBuildError> {
    check_overrides(def, catalog)?;
    let required = def.completion_requirement.as_ref().map(|r| r.tool.as_str());
    let allowed = |spec: &ToolSpec| match &def.tools {
        // An opt-in tool comes only when named: here, by the completion requirement.
        ToolSelection::All => !spec.opt_in() || required == Some(&*spec.name),
        ToolSelection::Only(names) => names.iter().any(|n| n.as_str() == spec.name),
    };
    let tools: Vec<ResolvedTool> = catalog
        .specs()
        .iter()
        .filter(|spec| allowed(spec))
        .filter(|spec| !def.disallowed_tools.iter().any(|d| d.as_str() == spec.name))
        .filter(|spec| {
            def.capability_mode
                .is_none_or(|mode| mode.allows_tool(spec.kind, spec.read_only))
        })
        .map(|spec| ResolvedTool {
            name: spec.name.to_string(),
            model_name: def
                .tool_name_overrides
                .get(&*spec.name)
                .cloned()
                .unwrap_or_else(|| spec.name.to_string()),
            kind: spec.kind,
            description: spec.description.to_string(),
            read_only: spec.read_only,
            param_names: def
                .param_name_overrides
                .get(&*spec.name)
                .cloned()
                .unwrap_or_default(),
        })
        .collect();
    for (i, tool) in tools.iter().enumerate() {
        if let Some(other) = tools[..i].iter().find(|t| t.model_name == tool.model_name) {
            return Err(AgentBuildError::ParseError {
                file: def.source.clone(),
                line: None,
                field: Some("toolNameOverrides".into()),
                message: format!(
                    "`{}` and `{}` would both be shown to the model as `{}`",
                    other.name, tool.name, tool.model_name
                ),
            });
        }
    }
    Ok(tools)
}

/// `pattern` with `*` (any run) and `?` (one character) matching all of `name`.
pub(crate) fn wildcard_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // matches[j]: pattern[..i] matches name[..j], row by row.
    let mut matches = vec![false; n.len() + 1];
    matches[0] = true;
    for &pc in &p {
        let mut next = vec![false; n.len() + 1];
        next[0] = pc == '*' && matches[0];
        for j in 1..=n.len() {
            next[j] = match pc {
                '*' => next[j - 1] || matches[j],
                '?' => matches[j - 1],
                c => matches[j - 1] && n[j - 1] == c,
            };
        }
        matches = next;
    }
    matches[n.len()]
}

/// Checks that `completionRequirement.tool` names a tool the agent has: one of its built-in
/// tools (canonical or model-facing name), or an MCP tool its allowlist admits (`mcp__…`, by
/// name or pattern; with every tool allowed, any `mcp__` name). A requirement the agent can
/// never meet would only burn its retries.
pub(crate) fn check_completion_tool(
    def: &AgentDefinition,
    tools: &[ResolvedTool],
    mcp_tool_patterns: &[String],
) -> Result<(), AgentBuildError> {
    let Some(requirement) = &def.completion_requirement else {
        return Ok(());
    };
    let wanted = requirement.tool.as_str();
    let built_in = tools
        .iter()
        .any(|t| t.name == wanted || t.model_name == wanted);
    let mcp = wanted.starts_with("mcp__")
        && !def.disallowed_tools.iter().any(|d| d == wanted)
        && match &def.tools {
            ToolSelection::All => true,
            ToolSelection::Only(_) => mcp_tool_patterns.iter().any(|p| wildcard_match(p, wanted)),
        };
    if built_in || mcp {
        return Ok(());
    }
    let names: Vec<&str> = tools.iter().map(|t| t.model_name.as_str()).collect();
    Err(AgentBuildError::ParseError {
        file: def.source.clone(),
        line: None,
        field: Some("completionRequirement.tool".into()),
        message: format!(
            "`{wanted}` is not one of this agent's tools, so the requirement could never be met \
             (its tools: {})",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        ),
    })
}

/// Template variables: every catalog tool → its model-facing name, or empty when disabled.
pub fn tool_variables(catalog: &ToolCatalog, tools: &[ResolvedTool]) -> BTreeMap<String, String> {
    catalog
        .specs()
        .iter()
        .map(|spec| {
            let name = tools
                .iter()
                .find(|t| t.name == spec.name)
                .map(|t| t.model_name.clone())
                .unwrap_or_default();
            (spec.name.to_string(), name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kigi_tools::CapabilityMode;

    fn names(def: &AgentDefinition) -> Vec<String> {
        resolve_tools(def, &ToolCatalog::built_in())
            .unwrap()
            .into_iter()
            .map(|t| t.model_name)
            .collect()
    }

    #[test]
    fn omitted_tools_means_all_but_opt_in_ones_and_empty_means_none() {
        let mut def = AgentDefinition::new("a", "b");
        let catalog = ToolCatalog::built_in();
        let everyday = catalog.specs().iter().filter(|s| !s.opt_in()).count();
        assert_eq!(names(&def).len(), everyday);
        assert!(everyday < catalog.specs().len(), "complete_task is opt-in");
        assert!(!names(&def).contains(&"complete_task".to_owned()));
        def.tools = ToolSelection::Only(vec![]);
        assert!(names(&def).is_empty());
    }

    #[test]
    fn an_opt_in_tool_comes_when_named_or_required() {
        let mut def = AgentDefinition::new("a", "b");
        def.completion_requirement = Some(crate::CompletionRequirement {
            tool: "complete_task".into(),
            reminder: "Call complete_task.".into(),
            recovery: None,
        });
        assert!(names(&def).contains(&"complete_task".to_owned()));
        def.completion_requirement = None;
        def.tools = ToolSelection::Only(vec!["complete_task".into()]);
        assert_eq!(names(&def), ["complete_task"]);
    }

    #[test]
    fn denylist_wins_over_allowlist() {
        let mut def = AgentDefinition::new("a", "b");
        def.tools = ToolSelection::Only(vec!["read_file".into(), "grep".into()]);
        def.disallowed_tools = vec!["grep".into()];
        assert_eq!(names(&def), vec!["read_file"]);
    }

    #[test]
    fn capability_mode_narrows_and_overrides_rename() {
        let mut def = AgentDefinition::new("a", "b");
        def.capability_mode = Some(CapabilityMode::ReadOnly);
        def.tool_name_overrides
            .insert("read_file".into(), "Read".into());
        let got = names(&def);
        assert!(got.contains(&"Read".to_owned()));
        assert!(
            !got.iter()
                .any(|n| n == "write_file" || n == "run_terminal_cmd")
        );
    }

    #[test]
    fn override_of_unknown_tool_is_an_error_naming_the_field() {
        let mut def = AgentDefinition::new("a", "b");
        def.param_name_overrides
            .insert("teleport".into(), BTreeMap::new());
        let err = resolve_tools(&def, &ToolCatalog::built_in()).unwrap_err();
        assert!(
            matches!(err, AgentBuildError::UnknownToolOverride { ref field, .. } if field == "paramNameOverrides")
        );
        assert!(err.to_string().contains("`teleport`"));
    }

    #[test]
    fn two_tools_may_not_share_a_model_facing_name() {
        let mut def = AgentDefinition::new("a", "b");
        def.tool_name_overrides
            .insert("read_file".into(), "grep".into());
        assert!(resolve_tools(&def, &ToolCatalog::built_in()).is_err());
    }
}
