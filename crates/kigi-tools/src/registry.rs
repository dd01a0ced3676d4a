//! The tools that can run, by canonical name.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::builtin::{
    complete_task, glob, grep, list_dir, read_file, run_terminal_cmd, search_replace, task_actions,
    todo_write, web_fetch, write_file,
};
use crate::tool::Tool;

/// Tools by canonical name.
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl ToolRegistry {
    /// Every built-in tool that has an implementation (`spawn_subagent` comes with the
    /// subagent coordinator, `web_search` with a configured search service).
    pub fn built_in() -> Self {
        let tools: [Arc<dyn Tool>; 12] = [
            Arc::new(read_file::ReadFile),
            Arc::new(list_dir::ListDir),
            Arc::new(grep::Grep),
            Arc::new(glob::Glob),
            Arc::new(search_replace::SearchReplace),
            Arc::new(write_file::WriteFile),
            Arc::new(run_terminal_cmd::RunTerminalCmd),
            Arc::new(todo_write::TodoWrite),
            Arc::new(web_fetch::WebFetch),
            Arc::new(complete_task::CompleteTask),
            Arc::new(task_actions::GetTaskOutput),
            Arc::new(task_actions::KillTask),
        ];
        let mut registry = Self::default();
        for tool in tools {
            registry.register(tool);
        }
        registry
    }

    /// Adds or replaces a tool under its spec's name.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        self.tools.insert(tool.spec().name.to_string(), tool);
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ToolCatalog;

    #[test]
    fn every_registered_tool_has_its_catalog_spec_and_an_object_schema() {
        let registry = ToolRegistry::built_in();
        for name in registry.names() {
            assert!(
                ToolCatalog::built_in().contains(name),
                "{name} has no catalog spec"
            );
            let schema = registry.get(name).unwrap().parameters();
            assert_eq!(schema["type"], "object", "{name}: {schema}");
            assert!(schema.get("$schema").is_none());
        }
        assert_eq!(registry.names().count(), 12);
    }
}
