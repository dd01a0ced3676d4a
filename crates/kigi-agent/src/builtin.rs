//! Built-in agents: `kigi` (the default main agent), the subagent types `general-purpose`,
//! `explore` and `plan`, and `browser-use` (a browser driven over CDP; it needs Chromium). They are ordinary agent files compiled into the binary, so they go
//! through the same parser as everyone else's.

use crate::definition::AgentDefinition;

/// Name of the default main agent.
pub const DEFAULT_AGENT: &str = "kigi";

/// Name of the default subagent type.
pub const DEFAULT_SUBAGENT_TYPE: &str = "general-purpose";

const BUILT_IN_FILES: &[(&str, &str)] = &[
    ("kigi", include_str!("../builtin/kigi.md")),
    (
        "general-purpose",
        include_str!("../builtin/general-purpose.md"),
    ),
    ("explore", include_str!("../builtin/explore.md")),
    ("plan", include_str!("../builtin/plan.md")),
    ("browser-use", include_str!("../builtin/browser-use.md")),
];

/// True when `name` is a built-in agent's (`kigi`, `general-purpose`, `explore`, `plan`,
/// `browser-use`).
pub fn is_built_in_name(name: &str) -> bool {
    BUILT_IN_FILES.iter().any(|(built_in, _)| *built_in == name)
}

/// Every built-in definition. A built-in that fails to parse is a bug caught by this module's
/// tests; at run time it is left out rather than taking the process down.
pub fn built_in_definitions() -> Vec<AgentDefinition> {
    BUILT_IN_FILES
        .iter()
        .filter_map(|(_, text)| AgentDefinition::parse(text, None).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::ToolSelection;

    #[test]
    fn every_built_in_parses_cleanly_under_its_own_name() {
        for (name, text) in BUILT_IN_FILES {
            let def = AgentDefinition::parse(text, None).unwrap();
            assert_eq!(def.name, *name);
            assert!(def.warnings.is_empty(), "{name}: {:?}", def.warnings);
        }
        assert_eq!(built_in_definitions().len(), BUILT_IN_FILES.len());
    }

    #[test]
    fn built_in_names_are_exactly_the_five_built_ins() {
        for name in ["kigi", "general-purpose", "explore", "plan", "browser-use"] {
            assert!(is_built_in_name(name), "{name}");
        }
        assert!(!is_built_in_name("reviewer"));
        assert!(!is_built_in_name("Kigi"));
    }

    #[test]
    fn explore_and_plan_cannot_edit_files() {
        for def in built_in_definitions() {
            if def.name == "explore" || def.name == "plan" {
                let ToolSelection::Only(tools) = &def.tools else {
                    panic!("{} has all tools", def.name)
                };
                for edit in ["search_replace", "write_file", "spawn_subagent"] {
                    assert!(!tools.iter().any(|t| t == edit), "{} has {edit}", def.name);
                }
                // Reading the web is research too (web_search only where a service is set).
                for web in ["web_fetch", "web_search"] {
                    assert!(tools.iter().any(|t| t == web), "{} lacks {web}", def.name);
                }
            }
        }
    }

    #[test]
    fn browser_use_has_every_browser_tool_and_nothing_else() {
        let def = built_in_definitions()
            .into_iter()
            .find(|d| d.name == "browser-use")
            .unwrap();
        assert_eq!(def.prompt_mode, crate::PromptMode::Full);
        assert_eq!(def.description, "Web browsing and interaction agent");
        let ToolSelection::Only(tools) = &def.tools else {
            panic!("browser-use has all tools")
        };
        let browser: Vec<&str> = kigi_tools::ToolCatalog::built_in()
            .specs()
            .iter()
            .map(|s| &*s.name)
            .filter(|n| kigi_tools::is_browser_tool(n))
            .collect();
        assert_eq!(tools, &browser);
    }
}
