//! `[permissions]` as written in `config.toml` and in a project's `.kigi/settings.toml`:
//! three lists of rules in Claude Code's syntax.

use serde::{Deserialize, Serialize};

use super::rule_set::{PermissionRules, RuleEffect, RuleListError, RuleSource};

/// `[permissions]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct PermissionsConfig {
    /// Calls that run without asking.
    pub allow: Vec<String>,
    /// Calls that always ask (and are refused where nobody can answer).
    pub ask: Vec<String>,
    /// Calls that never run.
    pub deny: Vec<String>,
}

impl PermissionsConfig {
    /// The lists parsed; an unusable rule is an error naming `source` and its list.
    pub fn rules(&self, source: &RuleSource) -> Result<PermissionRules, RuleListError> {
        let mut rules = PermissionRules::default();
        for (effect, list) in [
            (RuleEffect::Deny, &self.deny),
            (RuleEffect::Ask, &self.ask),
            (RuleEffect::Allow, &self.allow),
        ] {
            let name = format!("permissions.{}", effect.list_name());
            rules.add(effect, list, source, &name)?;
        }
        Ok(rules)
    }

    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.ask.is_empty() && self.deny.is_empty()
    }
}
