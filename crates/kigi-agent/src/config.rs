//! `$KIGI_HOME/config.toml` as one typed [`Config`]: every section any crate reads. The model
//! layer's sections reuse `kigi_model`'s types, and [`Config::models`] hands them over.
//!
//! The rule: every section is a named field (never `#[serde(flatten)]`), so a key no field
//! reads is seen by the loader ([`crate::LoadedConfig`]) and reported with its line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kigi_model::{EndpointSettings, ModelSettings, ModelsConfig, RetrySettings};
use serde::{Deserialize, Serialize};

use crate::permissions::{PermissionRules, PermissionsConfig, RuleSource};
use crate::sandbox_config::SandboxConfig;
use crate::subagents_config::SubagentsConfig;
use crate::swarm_config::SwarmConfig;

/// A configuration or trust file that exists but cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// The file at fault.
    pub path: PathBuf,
    /// 1-based line, when the parser knows it.
    pub line: Option<usize>,
    /// What is wrong (for a bad value: the dotted key first).
    pub message: String,
}

impl ConfigError {
    /// An error about `path` as a whole.
    pub fn new(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            line: None,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}: line {line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// Everything `config.toml` configures.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Config {
    /// The alias (or model id) used when neither `--model` nor `KIGI_MODEL` names one.
    pub default_model: Option<String>,
    /// More folders of agent files (seed 002): `~/x` and absolute paths are the user's own,
    /// a relative path is the project's (and needs the project's trust, like `.kigi/agents/`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_agent_dirs: Vec<String>,
    /// `[agents]`.
    pub agents: AgentsConfig,
    /// `[endpoints]`: defaults for every model without its own.
    pub endpoints: EndpointSettings,
    /// `[models.<alias>]`.
    pub models: BTreeMap<String, ModelSettings>,
    /// `[retry]`: the model client's retry policy.
    pub retry: RetrySettings,
    /// `[subagents]`.
    pub subagents: SubagentsConfig,
    /// `[swarm]`.
    pub swarm: SwarmConfig,
    /// `[permissions]`: allow, ask and deny rules in Claude Code's syntax.
    pub permissions: PermissionsConfig,
    /// `[sandbox]`: how shell commands are confined.
    pub sandbox: SandboxConfig,
    /// `[hooks]`: the user's commands at each hook event (Claude Code's shape).
    pub hooks: crate::hooks::HooksConfig,
    /// `[mcp_servers.<name>]`: MCP servers every session here starts.
    pub mcp_servers: BTreeMap<String, kigi_mcp::McpServerConfig>,
    /// `[compaction]`: summarizing long conversations to fit the context window.
    pub compaction: crate::CompactionConfig,
    /// `[web_search]`: the search service `web_search` uses; none, no tool.
    pub web_search: Option<crate::WebSearchConfig>,
    /// `[tui]`: the interactive terminal's look.
    pub tui: crate::TuiConfig,
    /// `[browser]`: the Chromium the `browser-use` agent drives.
    pub browser: crate::BrowserConfig,
    /// `[agent_executors.<id>]`: other harnesses a child's turn can run on.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub agent_executors: BTreeMap<String, crate::ExecutorConfig>,
}

impl Config {
    /// The values kigi uses for keys left unset, where a number is built in (retry policy,
    /// subagent limits, swarm schedule); other keys stay unset.
    pub fn built_in() -> Self {
        Self {
            retry: RetrySettings::built_in(),
            subagents: SubagentsConfig::built_in(),
            swarm: SwarmConfig::built_in(),
            ..Self::default()
        }
    }
}

/// `[agents]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
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

impl Config {
    /// The configured model aliases.
    pub fn model_aliases(&self) -> Vec<String> {
        self.models.keys().cloned().collect()
    }

    /// The model layer's part: `default_model`, `[endpoints]`, `[models.*]`, `[retry]`.
    pub fn models(&self) -> ModelsConfig {
        ModelsConfig {
            default_model: self.default_model.clone(),
            endpoints: self.endpoints.clone(),
            models: self.models.clone(),
            retry: self.retry.clone(),
        }
    }

    /// `[permissions]` parsed; `path` (the file read) is the rules' source and is named in
    /// errors with the list and the rule at fault.
    pub fn permission_rules(&self, path: &Path) -> Result<PermissionRules, ConfigError> {
        self.permissions
            .rules(&RuleSource::UserConfig(path.to_path_buf()))
            .map_err(|e| ConfigError::new(path, format!("{}: {}", e.list, e.error)))
    }

    /// `[hooks]` compiled; `path` (the file read) is their source and is named in errors.
    pub fn hook_set(&self, path: &Path) -> Result<crate::hooks::HookSet, ConfigError> {
        crate::hooks::HookSet::from_config(
            &self.hooks,
            &crate::hooks::HookSource::UserConfig(path.to_path_buf()),
        )
        .map_err(|e| ConfigError::new(path, e.to_string()))
    }

    /// Parses config text with no environment overrides, dropping the warnings; `path` is
    /// named in errors. Front ends use [`crate::LoadedConfig::load`] instead.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        crate::LoadedConfig::parse(text, path, &|_| None).map(|loaded| loaded.config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compat_dirs_default_on_and_can_be_switched_off() {
        let path = Path::new("config.toml");
        assert!(Config::parse("", path).unwrap().agents.compat_dirs);
        let off = Config::parse(
            "[agents]\ncompat_dirs = false\n[models.x]\nprovider = 'y'\n",
            path,
        );
        assert!(!off.unwrap().agents.compat_dirs);
    }

    #[test]
    fn bad_config_names_the_file() {
        let err = Config::parse(
            "[agents]\ncompat_dirs = 'maybe'\n",
            Path::new("/h/config.toml"),
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("/h/config.toml: "), "{err}");
        assert!(err.to_string().contains("compat_dirs"), "{err}");
    }

    #[test]
    fn a_bad_value_names_its_line_and_dotted_key() {
        let err = Config::parse(
            "default_model = 'a'\n[swarm]\nmax_concurrency = 'many'\n",
            Path::new("/h/config.toml"),
        )
        .unwrap_err();
        assert_eq!(err.line, Some(3), "{err}");
        assert!(
            err.to_string()
                .starts_with("/h/config.toml: line 3: `swarm.max_concurrency`: "),
            "{err}"
        );
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        let err = Config::parse("a = 1\n[agents\n", Path::new("/h/config.toml")).unwrap_err();
        assert_eq!(err.line, Some(2), "{err}");
    }

    #[test]
    fn the_model_layer_gets_its_sections() {
        let config = Config::parse(
            "default_model = 'k'\n[endpoints]\napi_base_url = 'http://e'\n[models.k]\nmodel = 'k2'\n[retry]\nmax_retries = 1\n",
            Path::new("c.toml"),
        )
        .unwrap();
        let models = config.models();
        assert_eq!(models.default_model.as_deref(), Some("k"));
        assert_eq!(models.endpoints.api_base_url.as_deref(), Some("http://e"));
        assert_eq!(models.models["k"].model.as_deref(), Some("k2"));
        assert_eq!(models.retry.max_retries, Some(1));
        assert_eq!(config.model_aliases(), vec!["k".to_owned()]);
    }
}
