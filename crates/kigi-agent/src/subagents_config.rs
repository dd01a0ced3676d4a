//! `[subagents]` in `config.toml`: whether subagents exist at all, which types are switched
//! off, which model a type runs on, the model lists every child runs under (see
//! `model_policy`), and the limits every child runs under.

use std::collections::BTreeMap;

use kigi_model::ReasoningEffort;
use serde::{Deserialize, Serialize};

use crate::model_policy::{self, ModelLists, PolicyScope};

/// `[subagents]`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct SubagentsConfig {
    /// `false` (or `KIGI_SUBAGENTS=0`) removes the subagent tools entirely.
    pub enabled: bool,
    /// `[subagents.toggle]`: `type = false` disables a type.
    pub toggle: BTreeMap<String, bool>,
    /// `[subagents.persona_toggle]`: `persona = false` switches a persona off, so a spawn
    /// that names it (or a role that does) is refused. Its own table, since
    /// `[subagents.personas.<name>]` defines personas.
    pub persona_toggle: BTreeMap<String, bool>,
    /// `[subagents.models]`: `type = "alias"` routes a type to a model.
    pub models: BTreeMap<String, String>,
    /// Wall-clock limit per child, in milliseconds (default two hours).
    pub timeout_ms: Option<u64>,
    /// Tokens (input + output) one child may spend.
    pub max_tokens_per_child: Option<u64>,
    /// Tokens all children of one session may spend together.
    pub max_tokens_per_tree: Option<u64>,
    /// How long a foreground spawn waits before the child moves to the background, in
    /// milliseconds (default 600,000; env `KIGI_SUBAGENT_AWAIT_BUDGET_MS`).
    pub await_budget_ms: Option<u64>,
    /// Children running at once in one session (default 16); more spawns wait for a slot,
    /// so a thousand spawns in one response never start a thousand requests at once.
    pub max_concurrent: Option<usize>,
    /// `allowed_models`: a hard allowlist for every child (a list or a comma-separated
    /// string; a lone `*` restricts nothing, `[]` permits nothing).
    #[serde(deserialize_with = "model_policy::de_allowset")]
    pub allowed_models: Option<Vec<String>>,
    /// `deny_models`: models no child may run on.
    #[serde(deserialize_with = "model_policy::de_names")]
    pub deny_models: Vec<String>,
    /// `allowed_efforts`: a hard allowlist of efforts for every child.
    #[serde(deserialize_with = "model_policy::de_effort_allowset")]
    pub allowed_efforts: Option<Vec<ReasoningEffort>>,
    /// `preferred_models`, `discouraged_models`, `preferred_efforts`: advice only.
    #[serde(deserialize_with = "model_policy::de_names")]
    pub preferred_models: Vec<String>,
    #[serde(deserialize_with = "model_policy::de_names")]
    pub discouraged_models: Vec<String>,
    #[serde(deserialize_with = "model_policy::de_efforts")]
    pub preferred_efforts: Vec<ReasoningEffort>,
    /// `[subagents.personas.<name>]` and `[subagents.roles.<name>]` are read by their own
    /// resolvers; kept here so the section parses whole (open tables: no unknown-key warnings).
    pub personas: toml::Table,
    pub roles: toml::Table,
}

impl Default for SubagentsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            toggle: BTreeMap::new(),
            persona_toggle: BTreeMap::new(),
            models: BTreeMap::new(),
            timeout_ms: None,
            max_tokens_per_child: None,
            max_tokens_per_tree: None,
            await_budget_ms: None,
            max_concurrent: None,
            allowed_models: None,
            deny_models: Vec::new(),
            allowed_efforts: None,
            preferred_models: Vec::new(),
            discouraged_models: Vec::new(),
            preferred_efforts: Vec::new(),
            personas: toml::Table::new(),
            roles: toml::Table::new(),
        }
    }
}

impl SubagentsConfig {
    /// How long a foreground spawn waits before the child moves to the background.
    pub const DEFAULT_AWAIT_BUDGET_MS: u64 = 600_000;
    /// A child's wall-clock limit: two hours.
    pub const DEFAULT_TIMEOUT_MS: u64 = 2 * 60 * 60 * 1_000;
    /// Children running at once.
    pub const DEFAULT_MAX_CONCURRENT: usize = 16;

    /// Every key with a built-in default at that default.
    pub fn built_in() -> Self {
        Self {
            await_budget_ms: Some(Self::DEFAULT_AWAIT_BUDGET_MS),
            timeout_ms: Some(Self::DEFAULT_TIMEOUT_MS),
            max_concurrent: Some(Self::DEFAULT_MAX_CONCURRENT),
            ..Self::default()
        }
    }

    /// The model lists every child runs under.
    pub fn policy_scope(&self) -> PolicyScope {
        PolicyScope {
            source: "[subagents] in config.toml".to_owned(),
            lists: ModelLists {
                allowed_models: self.allowed_models.clone(),
                deny_models: self.deny_models.clone(),
                allowed_efforts: self.allowed_efforts.clone(),
                preferred_models: self.preferred_models.clone(),
                discouraged_models: self.discouraged_models.clone(),
                preferred_efforts: self.preferred_efforts.clone(),
            },
            menu: None,
        }
    }

    /// Whether `agent_type` may be spawned.
    pub fn type_enabled(&self, agent_type: &str) -> bool {
        self.toggle.get(agent_type).copied().unwrap_or(true)
    }

    /// Whether `persona` may be given to a child.
    pub fn persona_enabled(&self, persona: &str) -> bool {
        self.persona_toggle.get(persona).copied().unwrap_or(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `enabled` after the loader applied `env` over `file_enabled`.
    fn enabled_after(file_enabled: bool, env: &dyn Fn(&str) -> Option<String>) -> bool {
        let mut config = crate::Config::default();
        config.subagents.enabled = file_enabled;
        crate::config_env::apply_env(&mut config, env, &mut Vec::new());
        config.subagents.enabled
    }

    #[test]
    fn environment_beats_the_file_and_toggles_default_on() {
        let config = SubagentsConfig::default();
        assert!(enabled_after(config.enabled, &|_| None));
        assert!(!enabled_after(config.enabled, &|name| {
            (name == "KIGI_SUBAGENTS").then(|| "0".to_owned())
        }));
        let mut off = config.clone();
        off.enabled = false;
        assert!(enabled_after(off.enabled, &|name| {
            (name == "KIGI_SUBAGENTS").then(|| "1".to_owned())
        }));
        off.toggle.insert("plan".into(), false);
        assert!(!off.type_enabled("plan") && off.type_enabled("explore"));
        let personas: SubagentsConfig =
            toml::from_str("[persona_toggle]\nconcise = false\nreviewer = true\n").unwrap();
        assert!(!personas.persona_enabled("concise"));
        assert!(personas.persona_enabled("reviewer") && personas.persona_enabled("other"));
        assert!(
            personas.type_enabled("concise"),
            "types and personas are apart"
        );
    }

    #[test]
    fn model_lists_are_read_from_arrays_or_text_and_bad_ones_refused() {
        let config: SubagentsConfig = toml::from_str(
            "allowed_models = [\"fast\", \"review\"]\ndeny_models = \"heavy\"\n\
             allowed_efforts = [\"high\"]\npreferred_models = [\"fast\"]\n",
        )
        .unwrap();
        let scope = config.policy_scope();
        assert_eq!(scope.source, "[subagents] in config.toml");
        assert_eq!(
            scope.lists.allowed_models,
            Some(vec!["fast".to_owned(), "review".to_owned()])
        );
        assert_eq!(scope.lists.deny_models, ["heavy"]);
        assert_eq!(
            scope.lists.allowed_efforts,
            Some(vec![ReasoningEffort::High])
        );
        assert_eq!(scope.lists.preferred_models, ["fast"]);
        for bad in [
            "allowed_models = [\"*\", \"fast\"]",
            "deny_models = [\"*\"]",
            "allowed_efforts = [\"max\"]",
        ] {
            assert!(toml::from_str::<SubagentsConfig>(bad).is_err(), "{bad}");
        }
    }
}
