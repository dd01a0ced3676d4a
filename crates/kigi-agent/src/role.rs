//! Roles: named subagent types defined in TOML (`[subagents.roles.<name>]`,
//! `.kigi/roles/*.toml`, `$KIGI_HOME/roles/*.toml`). A role runs as the `general-purpose`
//! agent with its own description, prompt, default capability mode, model and persona.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::overlay::OverlaySet;
use crate::paths::KigiPaths;
use crate::subagents_config::SubagentsConfig;

/// A role as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Role {
    #[serde(default)]
    pub description: String,
    /// `read-only`, `read-write`, `execute` or `all`.
    pub default_capability_mode: Option<String>,
    pub model: Option<String>,
    /// The role's prompt body (extends the base template).
    pub prompt_file: Option<String>,
    /// The persona the role applies.
    pub persona: Option<String>,
}

/// Every role visible from a folder.
pub type RoleSet = OverlaySet<Role>;

impl OverlaySet<Role> {
    pub fn discover(config: &SubagentsConfig, paths: &KigiPaths, cwd: &Path) -> Self {
        Self::gather_set("roles", &config.roles, paths, cwd, &[])
    }

    /// The role's prompt body, read now (a project role may only read project files).
    pub fn prompt(&self, name: &str) -> Result<Option<String>, String> {
        let Some(entry) = self.get(name) else {
            return Err(format!("role `{name}` not found"));
        };
        let Some(file) = &entry.value.prompt_file else {
            return Ok(None);
        };
        self.read(name, file)
            .map(Some)
            .map_err(|e| format!("role `{name}`: prompt_file {e}"))
    }
}
