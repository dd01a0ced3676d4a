//! The effective configuration as a list of values, one per key, each with its origin: what
//! `kigi config` prints.
//!
//! The rule: no secret is ever a value here. The configuration holds only the names of key
//! variables (`api_key_env`); an entry says whether that variable is set, never what it holds.

use kigi_model::{ModelFlags, ModelInput};
use serde::Serialize;
use serde_json::Value;

use crate::config_keys::display_key;
use crate::config_origin::ConfigOrigin;
use crate::loaded_config::LoadedConfig;

/// One effective value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigEntry {
    /// The dotted key (`subagents.enabled`), or `model` / `base_url` for the choice a run here
    /// would make.
    pub key: String,
    /// The value: the file's, the environment's, or the built-in default (`null` when there
    /// is none and the key is simply unset).
    pub value: Value,
    pub origin: ConfigOrigin,
    /// For `api_key_env`: whether the named variable is set (its value is never read out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variable_set: Option<bool>,
}

impl ConfigEntry {
    /// `value`, with `unset` for null and `(set)` / `(not set)` after a key variable's name.
    pub fn display_value(&self) -> String {
        let value = match &self.value {
            Value::Null => "unset".to_owned(),
            other => other.to_string(),
        };
        match self.variable_set {
            Some(true) => format!("{value} (set)"),
            Some(false) => format!("{value} (not set)"),
            None => value,
        }
    }
}

impl LoadedConfig {
    /// Every effective value: first the model and base URL a run here would use (with
    /// `flags` and the `KIGI_MODEL` / `KIGI_BASE_URL` that `env` holds), then every key of
    /// the configuration in order. `env` is also asked whether key variables are set.
    pub fn entries(
        &self,
        flags: &ModelFlags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Vec<ConfigEntry> {
        let mut entries = self.chosen_model_entries(flags, env);
        let tree = serde_json::to_value(&self.config).unwrap_or(Value::Null);
        self.flatten(&tree, &mut Vec::new(), env, &mut entries);
        // An unset key with a built-in value shows that value (its origin stays `default`).
        let built_in = serde_json::to_value(crate::Config::built_in()).unwrap_or(Value::Null);
        for entry in entries.iter_mut().filter(|e| e.value.is_null()) {
            let pointer = format!("/{}", entry.key.replace('.', "/"));
            if let Some(value) = built_in.pointer(&pointer).filter(|v| !v.is_null()) {
                entry.value = value.clone();
            }
        }
        entries
    }

    fn chosen_model_entries(
        &self,
        flags: &ModelFlags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Vec<ConfigEntry> {
        let models = self.config.models();
        let model = models.chosen_model(flags, env);
        let base_url = models.chosen_base_url(model.as_ref().map(|(m, _)| m.as_str()), flags, env);
        let name = model.as_ref().map(|(m, _)| m.clone());
        let origin = |input: ModelInput, flag: &str, variable: &str| match input {
            ModelInput::Flag => ConfigOrigin::Flag { flag: flag.into() },
            ModelInput::Env => ConfigOrigin::Env {
                variable: variable.into(),
            },
            ModelInput::DefaultModel => self.origin(&["default_model"]),
            ModelInput::OnlyAlias => self.origin(&["models", name.as_deref().unwrap_or_default()]),
            ModelInput::AliasBaseUrl => {
                self.origin(&["models", name.as_deref().unwrap_or_default(), "base_url"])
            }
            ModelInput::EndpointsBaseUrl => self.origin(&["endpoints", "api_base_url"]),
        };
        let entry = |key: &str, choice: Option<(String, ModelInput)>, flag, variable| {
            let (value, origin) = match choice {
                Some((value, input)) => (Value::String(value), origin(input, flag, variable)),
                None => (Value::Null, ConfigOrigin::Default),
            };
            ConfigEntry {
                key: key.to_owned(),
                value,
                origin,
                variable_set: None,
            }
        };
        vec![
            entry("model", model.clone(), "--model", "KIGI_MODEL"),
            entry("base_url", base_url, "--base-url", "KIGI_BASE_URL"),
        ]
    }

    fn flatten(
        &self,
        value: &Value,
        key: &mut Vec<String>,
        env: &dyn Fn(&str) -> Option<String>,
        out: &mut Vec<ConfigEntry>,
    ) {
        if let Value::Object(map) = value
            && !map.is_empty()
        {
            for (name, inner) in map {
                key.push(name.clone());
                self.flatten(inner, key, env, out);
                key.pop();
            }
            return;
        }
        let variable_set = match (key.last().map(String::as_str), value) {
            (Some("api_key_env"), Value::String(variable)) => {
                Some(env(variable).is_some_and(|v| !v.trim().is_empty()))
            }
            _ => None,
        };
        out.push(ConfigEntry {
            key: display_key(key),
            value: value.clone(),
            origin: self.origin(key),
            variable_set,
        });
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const SECRET: &str = "sk-very-secret-value";

    fn env(name: &str) -> Option<String> {
        match name {
            "MOONSHOT_API_KEY" | "KIGI_API_KEY" => Some(SECRET.to_owned()),
            "KIGI_MODEL" => Some("kimi".to_owned()),
            _ => None,
        }
    }

    fn loaded() -> LoadedConfig {
        LoadedConfig::parse(
            "default_model = 'other'\n[endpoints]\napi_key_env = 'UNSET_KEY'\n\
             [models.kimi]\nbase_url = 'http://k'\napi_key_env = 'MOONSHOT_API_KEY'\n",
            Path::new("/h/config.toml"),
            &env,
        )
        .unwrap()
    }

    fn find<'a>(entries: &'a [ConfigEntry], key: &str) -> &'a ConfigEntry {
        entries
            .iter()
            .find(|e| e.key == key)
            .unwrap_or_else(|| panic!("no {key} in {entries:?}"))
    }

    #[test]
    fn the_chosen_model_and_url_say_which_input_chose_them() {
        let loaded = loaded();
        let entries = loaded.entries(&ModelFlags::default(), &env);
        let model = find(&entries, "model");
        assert_eq!(model.value, "kimi");
        assert_eq!(
            model.origin,
            ConfigOrigin::Env {
                variable: "KIGI_MODEL".into()
            }
        );
        let url = find(&entries, "base_url");
        assert_eq!(url.value, "http://k");
        assert_eq!(url.origin.to_string(), "file /h/config.toml:5");

        let flags = ModelFlags {
            model: Some("x".into()),
            base_url: Some("http://flag".into()),
        };
        let entries = loaded.entries(&flags, &env);
        assert_eq!(find(&entries, "model").origin.to_string(), "flag --model");
        assert_eq!(
            find(&entries, "base_url").origin.to_string(),
            "flag --base-url"
        );
    }

    #[test]
    fn every_key_is_listed_with_its_built_in_value_or_unset() {
        let entries = loaded().entries(&ModelFlags::default(), &|_| None);
        let compat = find(&entries, "agents.compat_dirs");
        assert_eq!(
            (compat.display_value(), &compat.origin),
            ("true".to_owned(), &ConfigOrigin::Default)
        );
        // A built-in number is shown as it applies; a key with none stays unset.
        let deadline = find(&entries, "swarm.deadline_ms");
        assert_eq!(
            (deadline.display_value(), &deadline.origin),
            ("1800000".to_owned(), &ConfigOrigin::Default)
        );
        assert_eq!(
            find(&entries, "retry.initial_backoff_ms").display_value(),
            "500"
        );
        assert_eq!(
            find(&entries, "endpoints.provider").display_value(),
            "unset"
        );
        assert_eq!(find(&entries, "subagents.toggle").display_value(), "{}");
        assert_eq!(
            find(&entries, "default_model").origin.to_string(),
            "file /h/config.toml:1"
        );
    }

    #[test]
    fn key_variables_say_whether_they_are_set_and_secrets_never_appear() {
        let loaded = loaded();
        let entries = loaded.entries(&ModelFlags::default(), &env);
        assert_eq!(
            find(&entries, "models.kimi.api_key_env").display_value(),
            "\"MOONSHOT_API_KEY\" (set)"
        );
        assert_eq!(
            find(&entries, "endpoints.api_key_env").display_value(),
            "\"UNSET_KEY\" (not set)"
        );
        let shown = format!(
            "{loaded:?}{}{}",
            serde_json::to_string(&entries).unwrap(),
            entries
                .iter()
                .map(|e| format!("{} {} {}", e.key, e.display_value(), e.origin))
                .collect::<String>()
        );
        assert!(!shown.contains(SECRET), "{shown}");
    }
}
