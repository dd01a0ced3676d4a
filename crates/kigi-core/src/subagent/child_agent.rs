//! A child's agent: its type's definition, narrowed to what its parent has and what its
//! capability mode allows, with no delegation tools. A child never has more than its parent:
//! not a tool, not a permission.

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
        let outside_parent = !parent.contains(&*spec.name) && spec.name != "notify_parent";
        let outside_mode = capability.is_some_and(|mode| !mode.allows(spec.kind));
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
}
