//! A child's agent: its type's definition, narrowed to what its parent has and what its
//! capability mode allows, with no delegation tools. A child never has more than its parent:
//! not a tool, not a permission. The one exception is the browser tools: they are opt-in, so
//! no parent has them unless it is a browser agent itself, and `browser-use` exists to be
//! spawned; the session's rules and the parent's mode still judge every call they make.

use std::collections::BTreeSet;
use std::path::Path;

use kigi_agent::{
    Agent, AgentBuildError, AgentBuilder, AgentDefinition, KigiPaths, PermissionMode, ResolvedTool,
};
use kigi_tools::{CapabilityMode, ToolCatalog};

/// Builds the child's agent.
pub fn child_agent(
    mut definition: AgentDefinition,
    capability: Option<CapabilityMode>,
    parent_tools: &[ResolvedTool],
    cwd: &Path,
    paths: &KigiPaths,
) -> Result<Agent, AgentBuildError> {
    let parent: BTreeSet<&str> = parent_tools.iter().map(|t| t.name.as_str()).collect();
    for spec in ToolCatalog::built_in().specs() {
        // `notify_parent` is the one tool only children have: it reaches no one but the parent.
        // The browser tools are opt-in (no parent has them): only the built-in `browser-use`
        // (or a route of it) gets them without its parent having them.
        let browser_agent =
            definition.name == "browser-use" && kigi_tools::is_browser_tool(&spec.name);
        let outside_parent =
            !parent.contains(&*spec.name) && spec.name != "notify_parent" && !browser_agent;
        let outside_mode =
            capability.is_some_and(|mode| !mode.allows_tool(spec.kind, spec.read_only));
        if outside_parent || outside_mode || spec.kind.delegates() {
            definition.disallowed_tools.push(spec.name.to_string());
        }
    }
    AgentBuilder::new(cwd)
        .with_paths(paths.clone())
        .from_definition(definition)
        .build()
}

/// The child's permission mode: its type's mode can only lower the parent's, never raise it.
/// A type that says `default` (which is also what an omitted field reads as) inherits.
pub fn child_permission(parent: PermissionMode, definition: PermissionMode) -> PermissionMode {
    fn rank(mode: PermissionMode) -> u8 {
        // By what runs without a person: dontAsk runs less than default (it refuses what
        // default would ask about).
        match mode {
            PermissionMode::Plan => 0,
            PermissionMode::DontAsk => 1,
            PermissionMode::Default => 2,
            PermissionMode::AcceptEdits => 3,
            PermissionMode::BypassPermissions => 4,
        }
    }
    if definition == PermissionMode::Default || rank(definition) >= rank(parent) {
        parent
    } else {
        definition
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_lowers_but_never_raises_the_parents_mode() {
        use PermissionMode::{AcceptEdits, BypassPermissions, Default, DontAsk, Plan};
        assert_eq!(
            child_permission(AcceptEdits, BypassPermissions),
            AcceptEdits
        );
        assert_eq!(child_permission(BypassPermissions, Plan), Plan);
        assert_eq!(
            child_permission(BypassPermissions, Default),
            BypassPermissions
        );
        // dontAsk is stricter than default: a child may ask for it, never escape it.
        assert_eq!(child_permission(Default, DontAsk), DontAsk);
        assert_eq!(child_permission(DontAsk, AcceptEdits), DontAsk);
        assert_eq!(child_permission(Plan, AcceptEdits), Plan);
    }

    #[test]
    fn browser_use_keeps_its_browser_tools_under_a_parent_without_them() {
        let tmp = tempfile::tempdir().unwrap();
        let paths = KigiPaths::new(tmp.path().join("home"), None);
        let definition = kigi_agent::built_in_definitions()
            .into_iter()
            .find(|d| d.name == "browser-use")
            .unwrap();
        let parent: Vec<ResolvedTool> = Vec::new();
        let agent = child_agent(definition, None, &parent, tmp.path(), &paths).unwrap();
        let names: Vec<&str> = agent.tools.iter().map(|t| t.name.as_str()).collect();
        assert!(names.contains(&"browser_open") && names.contains(&"browser_screenshot"));
        // Everything else still comes only from the parent.
        let explore = kigi_agent::built_in_definitions()
            .into_iter()
            .find(|d| d.name == "explore")
            .unwrap();
        let agent = child_agent(explore, None, &parent, tmp.path(), &paths).unwrap();
        assert!(agent.tools.is_empty(), "{:?}", agent.tools);
    }
}
