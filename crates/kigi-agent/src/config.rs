//! `$KIGI_HOME/config.toml`: the parts this crate reads. Sections owned by other crates
//! (`[models]`, `[endpoints]`, `[subagents]`, …) are ignored here, so one file serves all.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// A configuration or trust file that exists but cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

/// The settings this crate reads from `config.toml`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct KigiConfig {
    pub agents: AgentsConfig,
    /// `[models.<alias>]`: only the alias names matter here (the model layer reads the rest).
    pub models: BTreeMap<String, toml::Table>,
    pub subagents: crate::subagents_config::SubagentsConfig,
    pub swarm: crate::swarm_config::SwarmConfig,
}

/// `[agents]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct AgentsConfig {
    /// `compat_dirs`: also read `.claude/agents/`, `.agents/agents/`, … (default true).
    pub compat_dirs: bool,
}

impl Default for AgentsConfig {
    fn default() -> Self {
        Self { compat_dirs: true }
    }
}

impl KigiConfig {
    /// The configured model aliases.
    pub fn model_aliases(&self) -> Vec<String> {
        self.models.keys().cloned().collect()
    }

    /// Reads `path`; a missing file is the default configuration.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => {
                return Err(ConfigError {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                });
            }
        };
        Self::parse(&text, path)
    }

    /// Parses config text; `path` is named in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compat_dirs_default_on_and_can_be_switched_off() {
        let path = Path::new("config.toml");
        assert!(KigiConfig::parse("", path).unwrap().agents.compat_dirs);
        let off = KigiConfig::parse(
            "[agents]\ncompat_dirs = false\n[models.x]\nprovider = 'y'\n",
            path,
        );
        assert!(!off.unwrap().agents.compat_dirs);
    }

    #[test]
    fn bad_config_names_the_file() {
        let err = KigiConfig::parse(
            "[agents]\ncompat_dirs = 'maybe'\n",
            Path::new("/h/config.toml"),
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("/h/config.toml: "), "{err}");
        assert!(err.to_string().contains("compat_dirs"), "{err}");
    }
}
