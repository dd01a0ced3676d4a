//! Which model name and base URL a run would use, and which input chose each: flags beat the
//! environment, which beats the file. `resolve` and `kigi config` both ask here, so what
//! `kigi config` shows is what a run does.

use crate::model_config::{ModelFlags, ModelsConfig, set};

/// Which input chose the model name or the base URL: flags beat the environment, which beats
/// the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelInput {
    /// `--model` or `--base-url`.
    Flag,
    /// `KIGI_MODEL` or `KIGI_BASE_URL`.
    Env,
    /// `default_model`.
    DefaultModel,
    /// The one `[models.<alias>]` there is, with nothing else naming a model.
    OnlyAlias,
    /// The chosen alias's own `base_url` (`[models.<alias>] base_url`).
    AliasBaseUrl,
    /// `[endpoints] api_base_url`.
    EndpointsBaseUrl,
}

impl ModelsConfig {
    /// The alias when `[models]` holds exactly one.
    fn only_alias(&self) -> Option<String> {
        if self.models.len() == 1 {
            self.models.keys().next().cloned()
        } else {
            None
        }
    }

    /// The model name a run would use, and which input chose it: `--model`, else
    /// `KIGI_MODEL`, else `default_model` (blank values count as unset).
    pub fn chosen_model(
        &self,
        flags: &ModelFlags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<(String, ModelInput)> {
        set(flags.model.clone())
            .map(|v| (v, ModelInput::Flag))
            .or_else(|| set(env("KIGI_MODEL")).map(|v| (v, ModelInput::Env)))
            .or_else(|| set(self.default_model.clone()).map(|v| (v, ModelInput::DefaultModel)))
            .or_else(|| self.only_alias().map(|v| (v, ModelInput::OnlyAlias)))
    }

    /// The base URL a run on `model` would use, and which input chose it: `--base-url`, else
    /// `KIGI_BASE_URL`, else the alias's own `base_url`, else `[endpoints] api_base_url`.
    pub fn chosen_base_url(
        &self,
        model: Option<&str>,
        flags: &ModelFlags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<(String, ModelInput)> {
        let alias = model.and_then(|n| self.models.get(n));
        set(flags.base_url.clone())
            .map(|v| (v, ModelInput::Flag))
            .or_else(|| set(env("KIGI_BASE_URL")).map(|v| (v, ModelInput::Env)))
            .or_else(|| {
                alias
                    .and_then(|a| set(a.base_url.clone()))
                    .map(|v| (v, ModelInput::AliasBaseUrl))
            })
            .or_else(|| {
                set(self.endpoints.api_base_url.clone()).map(|v| (v, ModelInput::EndpointsBaseUrl))
            })
    }
}

/// Where a base URL chosen by `input` is set, as the user would type it.
pub(crate) fn base_url_source(input: ModelInput, alias: &str) -> String {
    match input {
        ModelInput::Flag => "--base-url".into(),
        ModelInput::Env => "KIGI_BASE_URL".into(),
        ModelInput::AliasBaseUrl => format!("[models.{alias}] base_url"),
        ModelInput::EndpointsBaseUrl | ModelInput::DefaultModel | ModelInput::OnlyAlias => {
            "[endpoints] api_base_url".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_config::tests::{config, env_of};

    #[test]
    fn choices_say_which_input_won() {
        let config = config(
            "default_model = \"a\"\n[endpoints]\napi_base_url = \"http://shared\"\n[models.a]\nbase_url = \"http://a\"\n",
        );
        let none = env_of(&[]);
        assert_eq!(
            config.chosen_model(&ModelFlags::default(), &none),
            Some(("a".into(), ModelInput::DefaultModel))
        );
        assert_eq!(
            config.chosen_base_url(Some("a"), &ModelFlags::default(), &none),
            Some(("http://a".into(), ModelInput::AliasBaseUrl))
        );
        assert_eq!(
            config.chosen_base_url(Some("b"), &ModelFlags::default(), &none),
            Some(("http://shared".into(), ModelInput::EndpointsBaseUrl))
        );
        let env = env_of(&[("KIGI_MODEL", "m"), ("KIGI_BASE_URL", " ")]);
        assert_eq!(
            config.chosen_model(&ModelFlags::default(), &env),
            Some(("m".into(), ModelInput::Env))
        );
        let flags = ModelFlags {
            model: Some("f".into()),
            base_url: Some("http://flag".into()),
        };
        assert_eq!(
            config.chosen_base_url(Some("a"), &flags, &env),
            Some(("http://flag".into(), ModelInput::Flag))
        );
    }
}
