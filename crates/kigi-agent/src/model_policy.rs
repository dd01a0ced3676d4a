//! Model policy: which models and efforts a subagent may run with (hard lists) and which are
//! only advised (soft lists), as written in one scope (an agent file, or `[subagents]` in
//! `config.toml`), and the check of one binding against every scope that applies to it.
//!
//! The rule: hard lists only narrow. Every scope's allowset must hold (they intersect), every
//! scope's denials apply (they accumulate), and nothing a spawn, a definition's `model` or a
//! persona names can widen them. Soft lists never refuse; they only produce [`ModelAdvice`].

use std::fmt;

use kigi_model::ReasoningEffort;
use serde::{Deserialize, Deserializer, Serialize};

/// The lists of one scope. Model entries are aliases or provider model ids, compared by the
/// model they resolve to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ModelLists {
    /// `allowed_models`: `None` (omitted, null or a lone `*`) restricts nothing; `[]` permits
    /// no model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_models: Option<Vec<String>>,
    /// `deny_models`: rejected even when an allowlist admits them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny_models: Vec<String>,
    /// `allowed_efforts`: `None` restricts nothing; `[]` permits no effort.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_efforts: Option<Vec<ReasoningEffort>>,
    /// `preferred_models`: another model runs, with a `model_not_preferred` advisory.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preferred_models: Vec<String>,
    /// `discouraged_models`: runs, with a `model_discouraged` advisory.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub discouraged_models: Vec<String>,
    /// `preferred_efforts`: another effort runs, with an `effort_not_preferred` advisory.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preferred_efforts: Vec<ReasoningEffort>,
}

impl ModelLists {
    /// Whether no list is written.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The soft lists in a few words (`prefer models a, b; avoid c; prefer effort high`), for
    /// the spawn tool's description; `None` when there are none.
    pub fn advice_summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.preferred_models.is_empty() {
            parts.push(format!(
                "prefer models {}",
                self.preferred_models.join(", ")
            ));
        }
        if !self.discouraged_models.is_empty() {
            parts.push(format!("avoid {}", self.discouraged_models.join(", ")));
        }
        if !self.preferred_efforts.is_empty() {
            parts.push(format!(
                "prefer effort {}",
                efforts(&self.preferred_efforts)
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// One scope's lists with where they were written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyScope {
    /// For messages: `[subagents] in config.toml`, `agent \`reviewer\` (/p/reviewer.md)`.
    pub source: String,
    pub lists: ModelLists,
    /// `restrict_models_to_menu: true`: the menu (the author's default `model`), a hard
    /// allowset of its own.
    pub menu: Option<Vec<String>>,
}

impl PolicyScope {
    /// An agent file's scope: its lists, and its menu when `restrict_models_to_menu` is on.
    pub fn of_agent(definition: &crate::AgentDefinition) -> Self {
        let source = match &definition.source {
            Some(path) => format!("agent `{}` ({})", definition.name, path.display()),
            None => format!("agent `{}`", definition.name),
        };
        // The menu: the author's default model and every `model_profiles` alias.
        let menu = definition.restrict_models_to_menu.then(|| {
            let default = match &definition.model {
                crate::ModelChoice::Named(alias) => Some(alias.clone()),
                crate::ModelChoice::Inherit => None,
            };
            default
                .into_iter()
                .chain(definition.model_profiles.iter().map(|p| p.alias.clone()))
                .collect()
        });
        Self {
            source,
            lists: definition.model_lists.clone(),
            menu,
        }
    }
}

/// Every scope that applies to one binding, widest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelPolicy {
    scopes: Vec<PolicyScope>,
}

/// What a child is about to run with.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    /// How the model is named to the user: its alias, else its provider id.
    pub model: &'a str,
    /// Its provider model id, which list entries are compared against.
    pub model_id: &'a str,
    /// The layer that chose it (`spawn-time override`).
    pub model_from: &'a str,
    /// `None`: no layer chose one (the model's own default).
    pub effort: Option<ReasoningEffort>,
    pub effort_from: &'a str,
}

/// A binding a hard list refuses. Each message names the list, where it was set, its values,
/// the value refused and the layer that chose it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelPolicyError {
    /// The model is outside an allowset (`allowed_models` or `restrict_models_to_menu`).
    #[error(
        "model `{model}` (from the {from}) is not in {list} [{}] set by {set_by}",
        allowed.join(", ")
    )]
    ModelNotAllowed {
        /// The model refused.
        model: String,
        /// The layer that chose it.
        from: String,
        /// `allowed_models` or `restrict_models_to_menu`.
        list: &'static str,
        /// The list's values.
        allowed: Vec<String>,
        /// Where the list was set.
        set_by: String,
    },
    /// The model is in `deny_models`.
    #[error(
        "model `{model}` (from the {from}) is in deny_models [{}] set by {set_by}",
        denied.join(", ")
    )]
    ModelDenied {
        /// The model refused.
        model: String,
        /// The layer that chose it.
        from: String,
        /// The list's values.
        denied: Vec<String>,
        /// Where the list was set.
        set_by: String,
    },
    /// The effort is outside `allowed_efforts`.
    #[error(
        "effort `{effort}` (from the {from}) is not in allowed_efforts [{allowed}] set by {set_by}"
    )]
    EffortNotAllowed {
        /// The effort refused.
        effort: String,
        /// The layer that chose it.
        from: String,
        /// The list's values.
        allowed: String,
        /// Where the list was set.
        set_by: String,
    },
    /// `allowed_efforts` applies and no layer chose an effort: the model's own default is not
    /// known to be in it.
    #[error(
        "no effort was chosen, and allowed_efforts [{allowed}] set by {set_by} needs one of its values: pass effort"
    )]
    EffortUnset {
        /// The list's values.
        allowed: String,
        /// Where the list was set.
        set_by: String,
    },
}

/// A soft list's advisory: the child runs anyway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelAdvice {
    /// `model_not_preferred`, `model_discouraged` or `effort_not_preferred`.
    pub code: &'static str,
    pub message: String,
}

impl fmt::Display for ModelAdvice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

fn efforts(list: &[ReasoningEffort]) -> String {
    list.iter()
        .map(|e| e.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl ModelPolicy {
    /// No scope: everything is permitted and nothing advised.
    pub fn new() -> Self {
        Self::default()
    }

    /// This policy narrowed by `scope` (a scope with no lists adds nothing).
    pub fn narrowed_by(mut self, scope: PolicyScope) -> Self {
        if !scope.lists.is_empty() || scope.menu.is_some() {
            self.scopes.push(scope);
        }
        self
    }

    /// The scopes, widest first.
    pub fn scopes(&self) -> &[PolicyScope] {
        &self.scopes
    }

    /// Checks `binding` against every hard list, then collects the soft lists' advice.
    /// `identity` maps a list entry to the provider model id it names (an alias resolves to its
    /// model; anything else is taken as an id).
    pub fn check(
        &self,
        binding: &Binding<'_>,
        identity: &dyn Fn(&str) -> String,
    ) -> Result<Vec<ModelAdvice>, ModelPolicyError> {
        let names = |list: &[String]| list.iter().any(|m| identity(m) == binding.model_id);
        let refused = |list: &'static str, allowed: &[String], source: &str| {
            ModelPolicyError::ModelNotAllowed {
                model: binding.model.to_owned(),
                from: binding.model_from.to_owned(),
                list,
                allowed: allowed.to_vec(),
                set_by: source.to_owned(),
            }
        };
        for scope in &self.scopes {
            let lists = &scope.lists;
            if let Some(menu) = &scope.menu
                && !names(menu)
            {
                return Err(refused("restrict_models_to_menu", menu, &scope.source));
            }
            if let Some(allowed) = &lists.allowed_models
                && !names(allowed)
            {
                return Err(refused("allowed_models", allowed, &scope.source));
            }
            if names(&lists.deny_models) {
                return Err(ModelPolicyError::ModelDenied {
                    model: binding.model.to_owned(),
                    from: binding.model_from.to_owned(),
                    denied: lists.deny_models.clone(),
                    set_by: scope.source.clone(),
                });
            }
            if let Some(allowed) = &lists.allowed_efforts {
                match binding.effort {
                    None => {
                        return Err(ModelPolicyError::EffortUnset {
                            allowed: efforts(allowed),
                            set_by: scope.source.clone(),
                        });
                    }
                    Some(effort) if !allowed.contains(&effort) => {
                        return Err(ModelPolicyError::EffortNotAllowed {
                            effort: effort.as_str().to_owned(),
                            from: binding.effort_from.to_owned(),
                            allowed: efforts(allowed),
                            set_by: scope.source.clone(),
                        });
                    }
                    Some(_) => {}
                }
            }
        }
        let mut advice = Vec::new();
        for scope in &self.scopes {
            let lists = &scope.lists;
            if !lists.preferred_models.is_empty() && !names(&lists.preferred_models) {
                advice.push(ModelAdvice {
                    code: "model_not_preferred",
                    message: format!(
                        "model `{}` is not among preferred_models [{}] ({})",
                        binding.model,
                        lists.preferred_models.join(", "),
                        scope.source
                    ),
                });
            }
            if names(&lists.discouraged_models) {
                advice.push(ModelAdvice {
                    code: "model_discouraged",
                    message: format!(
                        "model `{}` is in discouraged_models ({})",
                        binding.model, scope.source
                    ),
                });
            }
            if let Some(effort) = binding.effort
                && !lists.preferred_efforts.is_empty()
                && !lists.preferred_efforts.contains(&effort)
            {
                advice.push(ModelAdvice {
                    code: "effort_not_preferred",
                    message: format!(
                        "effort `{}` is not among preferred_efforts [{}] ({})",
                        effort.as_str(),
                        efforts(&lists.preferred_efforts),
                        scope.source
                    ),
                });
            }
        }
        Ok(advice)
    }
}

/// Why a written list cannot be read; the caller names the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListProblem(pub String);

/// Names written as a list or a comma-separated string, trimmed, blanks dropped.
pub(crate) fn split_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `allowed_models`: a lone `*` restricts nothing; `*` with names, or any other wildcard, is a
/// mistake.
pub(crate) fn allowset(names: Vec<String>) -> Result<Option<Vec<String>>, ListProblem> {
    if names.len() == 1 && names[0] == "*" {
        return Ok(None);
    }
    if names.iter().any(|n| n.contains('*')) {
        return Err(ListProblem(
            "`*` must be the only entry (no restriction); never mix it with names".into(),
        ));
    }
    Ok(Some(names))
}

/// `deny_models`, `preferred_models`, `discouraged_models`: plain names, no wildcards.
pub(crate) fn plain_names(names: Vec<String>) -> Result<Vec<String>, ListProblem> {
    match names.iter().find(|n| n.contains('*')) {
        Some(n) => Err(ListProblem(format!(
            "`{n}`: wildcards are not allowed here; name each model"
        ))),
        None => Ok(names),
    }
}

/// Efforts by name; an unknown one is named with the valid ones.
pub(crate) fn effort_list(names: &[String]) -> Result<Vec<ReasoningEffort>, ListProblem> {
    names
        .iter()
        .map(|n| {
            ReasoningEffort::parse(n).ok_or_else(|| {
                ListProblem(format!("effort `{n}` is unknown (low, medium or high)"))
            })
        })
        .collect()
}

/// A list in `config.toml`: an array or a comma-separated string.
#[derive(Deserialize)]
#[serde(untagged)]
enum WrittenList {
    Text(String),
    Items(Vec<String>),
}

impl WrittenList {
    fn names(self) -> Vec<String> {
        match self {
            Self::Text(text) => split_list(&text),
            Self::Items(items) => items.iter().flat_map(|i| split_list(i)).collect(),
        }
    }
}

fn read_toml<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    Option::<WrittenList>::deserialize(deserializer)
        .map(|list| list.map(WrittenList::names).unwrap_or_default())
}

/// `deserialize_with` for a TOML `allowed_models`.
pub(crate) fn de_allowset<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<String>>, D::Error> {
    allowset(read_toml(deserializer)?).map_err(|p| serde::de::Error::custom(p.0))
}

/// `deserialize_with` for TOML `deny_models` and the soft model lists.
pub(crate) fn de_names<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    plain_names(read_toml(deserializer)?).map_err(|p| serde::de::Error::custom(p.0))
}

/// `deserialize_with` for TOML `allowed_efforts`.
pub(crate) fn de_effort_allowset<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<ReasoningEffort>>, D::Error> {
    Option::<WrittenList>::deserialize(deserializer)?
        .map(|list| effort_list(&list.names()))
        .transpose()
        .map_err(|p| serde::de::Error::custom(p.0))
}

/// `deserialize_with` for TOML `preferred_efforts`.
pub(crate) fn de_efforts<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<ReasoningEffort>, D::Error> {
    effort_list(&read_toml(deserializer)?).map_err(|p| serde::de::Error::custom(p.0))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn id(entry: &str) -> String {
        match entry {
            "fast" => "fast-model".into(),
            "heavy" => "heavy-model".into(),
            other => other.into(),
        }
    }

    fn binding(model: &'static str, effort: Option<ReasoningEffort>) -> Binding<'static> {
        Binding {
            model,
            model_id: match model {
                "fast" => "fast-model",
                "heavy" => "heavy-model",
                other => other,
            },
            model_from: "spawn-time override",
            effort,
            effort_from: "spawn-time override",
        }
    }

    fn scope(source: &str, lists: ModelLists) -> PolicyScope {
        PolicyScope {
            source: source.into(),
            lists,
            menu: None,
        }
    }

    #[test]
    fn allowsets_intersect_and_denials_accumulate_across_scopes() {
        let policy = ModelPolicy::new()
            .narrowed_by(scope(
                "[subagents] in config.toml",
                ModelLists {
                    allowed_models: Some(vec!["fast".into(), "heavy".into()]),
                    ..ModelLists::default()
                },
            ))
            .narrowed_by(scope(
                "agent `r`",
                ModelLists {
                    allowed_models: Some(vec!["heavy-model".into(), "other".into()]),
                    deny_models: vec!["heavy".into()],
                    ..ModelLists::default()
                },
            ));
        // `other` passes the agent's list but not the config's.
        let err = policy.check(&binding("other", None), &id).unwrap_err();
        assert_eq!(
            err.to_string(),
            "model `other` (from the spawn-time override) is not in allowed_models [fast, heavy] set by [subagents] in config.toml"
        );
        // `heavy` passes both allowsets (by its model id) but the agent denies it.
        let err = policy.check(&binding("heavy", None), &id).unwrap_err();
        assert_eq!(
            err.to_string(),
            "model `heavy` (from the spawn-time override) is in deny_models [heavy] set by agent `r`"
        );
        // `fast` is in the config's list, not the agent's.
        assert!(matches!(
            policy.check(&binding("fast", None), &id),
            Err(ModelPolicyError::ModelNotAllowed { ref set_by, .. }) if set_by == "agent `r`"
        ));
    }

    #[test]
    fn efforts_outside_the_allowset_or_unset_are_refused() {
        let policy = ModelPolicy::new().narrowed_by(scope(
            "agent `r`",
            ModelLists {
                allowed_efforts: Some(vec![ReasoningEffort::High]),
                ..ModelLists::default()
            },
        ));
        assert_eq!(
            policy
                .check(&binding("fast", Some(ReasoningEffort::Low)), &id)
                .unwrap_err()
                .to_string(),
            "effort `low` (from the spawn-time override) is not in allowed_efforts [high] set by agent `r`"
        );
        assert!(matches!(
            policy.check(&binding("fast", None), &id),
            Err(ModelPolicyError::EffortUnset { .. })
        ));
        assert_eq!(
            policy.check(&binding("fast", Some(ReasoningEffort::High)), &id),
            Ok(Vec::new())
        );
    }

    #[test]
    fn an_empty_allowset_permits_nothing_and_the_menu_is_a_hard_ceiling() {
        let none = ModelPolicy::new().narrowed_by(scope(
            "x",
            ModelLists {
                allowed_models: Some(Vec::new()),
                ..ModelLists::default()
            },
        ));
        assert!(none.check(&binding("fast", None), &id).is_err());
        let menu = ModelPolicy::new().narrowed_by(PolicyScope {
            source: "agent `r`".into(),
            lists: ModelLists::default(),
            menu: Some(vec!["fast".into()]),
        });
        assert!(menu.check(&binding("fast", None), &id).is_ok());
        assert!(matches!(
            menu.check(&binding("heavy", None), &id),
            Err(ModelPolicyError::ModelNotAllowed {
                list: "restrict_models_to_menu",
                ..
            })
        ));
    }

    #[test]
    fn soft_lists_only_advise() {
        let lists = ModelLists {
            preferred_models: vec!["fast".into()],
            discouraged_models: vec!["heavy".into()],
            preferred_efforts: vec![ReasoningEffort::High],
            ..ModelLists::default()
        };
        assert_eq!(
            lists.advice_summary().as_deref(),
            Some("prefer models fast; avoid heavy; prefer effort high")
        );
        let policy = ModelPolicy::new().narrowed_by(scope("agent `r`", lists));
        let advice = policy
            .check(&binding("heavy", Some(ReasoningEffort::Low)), &id)
            .unwrap();
        let codes: Vec<_> = advice.iter().map(|a| a.code).collect();
        assert_eq!(
            codes,
            [
                "model_not_preferred",
                "model_discouraged",
                "effort_not_preferred"
            ]
        );
        assert!(
            policy
                .check(&binding("fast", Some(ReasoningEffort::High)), &id)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn written_lists_follow_the_wildcard_rules() {
        assert_eq!(allowset(vec!["*".into()]), Ok(None));
        assert_eq!(allowset(Vec::new()), Ok(Some(Vec::new())));
        assert!(allowset(vec!["*".into(), "fast".into()]).is_err());
        assert!(plain_names(vec!["gpt-*".into()]).is_err());
        assert_eq!(split_list(" a, b ,,c"), ["a", "b", "c"]);
        assert!(effort_list(&["max".into()]).is_err());
    }
}
