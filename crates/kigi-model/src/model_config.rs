//! Which model to call: `[models.<alias>]`, `[endpoints]` and `default_model` from
//! `config.toml`, then the environment (`KIGI_MODEL`, `KIGI_BASE_URL`, `KIGI_API_KEY`), then
//! the flags (`--model`, `--base-url`), resolved into one [`ModelEndpoint`].
//!
//! Unknown keys are not refused here: `kigi_agent::LoadedConfig` reads the whole file once and
//! reports them as warnings naming the line; [`ModelsConfig::parse`] ignores them.
//!
//! The rule: there is no default endpoint. With nothing configured, resolution fails with an
//! error naming `--base-url` and `[endpoints] api_base_url`; kigi never picks a host itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api_key::ApiKey;
use crate::base_url::{BaseUrlFault, check_base_url};
use crate::client::ModelClient;
use crate::endpoint::{Dialect, ModelEndpoint, Provider};
use crate::model_choice::base_url_source;
use crate::redaction::strip_userinfo;
use crate::retry_settings::RetrySettings;

/// The model-related parts of `config.toml`; other sections are ignored.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ModelsConfig {
    /// The alias (or model id) used when neither `--model` nor `KIGI_MODEL` names one.
    pub default_model: Option<String>,
    pub endpoints: EndpointSettings,
    pub models: BTreeMap<String, ModelSettings>,
    pub retry: RetrySettings,
}

/// `[endpoints]`: defaults for every model that does not set its own.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct EndpointSettings {
    pub api_base_url: Option<String>,
    pub provider: Option<String>,
    pub dialect: Option<String>,
    pub api_key_env: Option<String>,
}

/// `[models.<alias>]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ModelSettings {
    /// `openai-chat` (default), `anthropic` or `openai-responses`.
    pub provider: Option<String>,
    /// For `openai-chat`: `openai` (default), `strict`, `kimi` or `deepseek`.
    pub dialect: Option<String>,
    pub base_url: Option<String>,
    /// The provider's model id; defaults to the alias.
    pub model: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_env: Option<String>,
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u32>,
    /// The model reads images, so tools' images are sent on to it (default false).
    pub images: Option<bool>,
    /// Extra body fields for every request (`temperature`, `top_p`, …).
    pub request_params: toml::Table,
}

/// What the command line said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelFlags {
    /// `--model`: an alias or a model id.
    pub model: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
}

/// Why no endpoint could be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelConfigError {
    /// No base URL from any source.
    #[error(
        "no model endpoint is configured{for_model}: pass --base-url URL, set KIGI_BASE_URL, or set [endpoints] api_base_url in config.toml"
    )]
    MissingEndpoint { for_model: String },
    /// A base URL but no model.
    #[error(
        "no model is chosen for {base_url}: pass --model NAME, set KIGI_MODEL, or set default_model in config.toml"
    )]
    MissingModel { base_url: String },
    /// Several `[models]` aliases and nothing names one (with exactly one, a run uses it).
    #[error("no model is chosen: set default_model or pass --model (configured: {configured})")]
    NoModelChosen { configured: String },
    /// A name that is no `[models]` alias, with no base URL to send it to as a model id.
    #[error(
        "unknown model alias `{name}` (configured: {known}); pass --base-url to use `{name}` as a model id"
    )]
    UnknownAlias { name: String, known: String },
    /// The model names a key variable that is not set.
    #[error("model `{alias}` reads its API key from ${variable}, which is not set")]
    MissingApiKey { alias: String, variable: String },
    /// A field holds a value kigi does not know.
    #[error("{section} {field}: unknown value `{value}` (expected one of: {expected})")]
    InvalidField {
        section: String,
        field: &'static str,
        value: String,
        expected: &'static str,
    },
    /// The chosen base URL is malformed; `set_by` is the flag, variable or key that set it.
    #[error("invalid model base URL `{url}` from {set_by}: {fault}")]
    InvalidBaseUrl {
        url: String,
        set_by: String,
        fault: BaseUrlFault,
    },
    /// The resolved endpoint's HTTP client could not be built.
    #[error("cannot set up the HTTP client for {url}: {detail}")]
    Client { url: String, detail: String },
    /// `config.toml` does not parse.
    #[error("{}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
}

impl ModelsConfig {
    /// Parses the model sections of a `config.toml` text; `path` is named in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ModelConfigError> {
        toml::from_str(text).map_err(|e| ModelConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_owned(),
        })
    }

    /// Resolves flags, environment (read through `env`) and this configuration into an
    /// endpoint. Flags beat the environment, which beats the file. When none of them names a
    /// model and the file has exactly one `[models.<alias>]`, that alias is the model: there is
    /// nothing to choose between. With several, the error lists them.
    pub fn resolve(
        &self,
        flags: &ModelFlags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ModelEndpoint, ModelConfigError> {
        let name = self.chosen_model(flags, env).map(|(name, _)| name);
        if name.is_none() && self.models.len() > 1 {
            return Err(ModelConfigError::NoModelChosen {
                configured: self.aliases().join(", "),
            });
        }
        let alias = name.as_deref().and_then(|n| self.models.get(n));
        let chosen = self.chosen_base_url(name.as_deref(), flags, env);
        let base_url = chosen.as_ref().map(|(url, _)| url.clone());
        let (Some(name), Some(base_url)) = (name.clone(), base_url) else {
            return Err(match (name, alias, self.models.is_empty()) {
                (Some(name), None, false) => ModelConfigError::UnknownAlias {
                    known: self.models.keys().cloned().collect::<Vec<_>>().join(", "),
                    name,
                },
                (Some(name), Some(_), _) => ModelConfigError::MissingEndpoint {
                    for_model: format!(" for model `{name}`"),
                },
                (Some(_), None, true) | (None, _, _) => {
                    match self.chosen_base_url(None, flags, env) {
                        Some((base_url, _)) => ModelConfigError::MissingModel {
                            base_url: strip_userinfo(&base_url),
                        },
                        None => ModelConfigError::MissingEndpoint {
                            for_model: String::new(),
                        },
                    }
                }
            });
        };
        if let (Err(fault), Some((_, input))) = (check_base_url(&base_url), chosen) {
            return Err(ModelConfigError::InvalidBaseUrl {
                url: strip_userinfo(&base_url),
                set_by: base_url_source(input, &name),
                fault,
            });
        }
        let settings = alias.cloned().unwrap_or_default();
        let section = format!("[models.{name}]");
        let provider = parse_field(
            settings
                .provider
                .as_ref()
                .or(self.endpoints.provider.as_ref()),
            Provider::parse,
            &section,
            "provider",
            Provider::NAMES,
        )?
        .unwrap_or(Provider::OpenaiChat);
        let dialect = parse_field(
            settings
                .dialect
                .as_ref()
                .or(self.endpoints.dialect.as_ref()),
            Dialect::parse,
            &section,
            "dialect",
            Dialect::NAMES,
        )?
        .unwrap_or_default();
        let api_key = self.api_key(&name, &settings, env)?;
        Ok(ModelEndpoint {
            model: settings.model.clone().unwrap_or_else(|| name.clone()),
            alias: name,
            provider,
            dialect,
            base_url,
            api_key,
            context_window: settings.context_window,
            max_output_tokens: settings.max_output_tokens,
            accepts_images: settings.images.unwrap_or(false),
            request_params: toml_to_json(&settings.request_params),
        })
    }

    /// Resolves like [`ModelsConfig::resolve`] and builds the client, with the `[retry]`
    /// policy: what every caller that talks to a model does.
    pub fn client(
        &self,
        flags: &ModelFlags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ModelClient, ModelConfigError> {
        let endpoint = self.resolve(flags, env)?;
        let url = strip_userinfo(&endpoint.url());
        ModelClient::with_policy(endpoint, self.retry.policy()).map_err(|e| {
            ModelConfigError::Client {
                url,
                detail: e.to_string(),
            }
        })
    }

    /// The configured `[models.<alias>]` names.
    pub fn aliases(&self) -> Vec<String> {
        self.models.keys().cloned().collect()
    }

    /// The model's own key variable, then `KIGI_API_KEY`, then `[endpoints] api_key_env`.
    /// Naming a variable that no source fills is an error; naming none means no key (local
    /// servers need none).
    fn api_key(
        &self,
        alias: &str,
        settings: &ModelSettings,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<ApiKey>, ModelConfigError> {
        let read = |var: Option<&str>| {
            let var = var?;
            env(var)
                .filter(|k| !k.trim().is_empty())
                .map(|key| ApiKey::from_variable(key.trim(), var))
        };
        let key = read(settings.api_key_env.as_deref())
            .or_else(|| read(Some("KIGI_API_KEY")))
            .or_else(|| read(self.endpoints.api_key_env.as_deref()));
        match (
            key,
            settings
                .api_key_env
                .as_ref()
                .or(self.endpoints.api_key_env.as_ref()),
        ) {
            (Some(key), _) => Ok(Some(key)),
            (None, Some(variable)) => Err(ModelConfigError::MissingApiKey {
                alias: alias.to_owned(),
                variable: variable.clone(),
            }),
            (None, None) => Ok(None),
        }
    }
}

/// `value` unless it is blank.
pub(crate) fn set(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

fn parse_field<T>(
    value: Option<&String>,
    parse: fn(&str) -> Option<T>,
    section: &str,
    field: &'static str,
    expected: &'static str,
) -> Result<Option<T>, ModelConfigError> {
    value
        .map(|v| {
            parse(v).ok_or_else(|| ModelConfigError::InvalidField {
                section: section.to_owned(),
                field,
                value: v.clone(),
                expected,
            })
        })
        .transpose()
}

fn toml_to_json(table: &toml::Table) -> Map<String, Value> {
    match serde_json::to_value(table) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The model sections of a config text (tests of this crate share it).
    pub(crate) fn config(text: &str) -> ModelsConfig {
        ModelsConfig::parse(text, Path::new("config.toml")).unwrap()
    }

    /// An environment holding `pairs` only.
    pub(crate) fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn the_only_alias_is_used_when_nothing_names_a_model() {
        let config = config("[models.fast]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"x\"\n");
        let endpoint = config
            .resolve(&ModelFlags::default(), &env_of(&[]))
            .unwrap();
        assert_eq!(
            (
                endpoint.alias.as_str(),
                endpoint.model.as_str(),
                endpoint.base_url.as_str()
            ),
            ("fast", "x", "http://127.0.0.1:9/v1")
        );
        let flagged = ModelFlags {
            model: Some("other-id".into()),
            base_url: Some("http://flag/v1".into()),
        };
        let endpoint = config
            .resolve(&flagged, &env_of(&[("KIGI_MODEL", "env-id")]))
            .unwrap();
        assert_eq!(endpoint.model, "other-id");
        let endpoint = config
            .resolve(
                &ModelFlags::default(),
                &env_of(&[("KIGI_MODEL", "env-id"), ("KIGI_BASE_URL", "http://env/v1")]),
            )
            .unwrap();
        assert_eq!(
            (endpoint.model.as_str(), endpoint.base_url.as_str()),
            ("env-id", "http://env/v1")
        );
    }

    #[test]
    fn several_aliases_and_no_choice_ask_for_default_model_listing_them() {
        let config = config(
            "[models.fast]\nbase_url = \"http://a/v1\"\n[models.slow]\nbase_url = \"http://b/v1\"\n",
        );
        let err = config
            .resolve(&ModelFlags::default(), &env_of(&[]))
            .unwrap_err();
        assert_eq!(
            err,
            ModelConfigError::NoModelChosen {
                configured: "fast, slow".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "no model is chosen: set default_model or pass --model (configured: fast, slow)"
        );
    }

    #[test]
    fn several_aliases_and_only_a_base_url_still_ask_for_a_model_not_an_endpoint() {
        let config = config("[models.fast]\nmodel = \"f\"\n[models.slow]\nmodel = \"s\"\n");
        let flags = ModelFlags {
            model: None,
            base_url: Some("http://127.0.0.1:9/v1".into()),
        };
        let text = config
            .resolve(&flags, &env_of(&[]))
            .unwrap_err()
            .to_string();
        assert!(text.contains("set default_model or pass --model"), "{text}");
        assert!(!text.contains("endpoint"), "{text}");
    }

    #[test]
    fn nothing_configured_names_the_flag_and_the_config_key() {
        let err = ModelsConfig::default()
            .resolve(&ModelFlags::default(), &env_of(&[]))
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("--base-url"), "{text}");
        assert!(text.contains("[endpoints] api_base_url"), "{text}");
    }

    #[test]
    fn an_alias_brings_its_provider_dialect_and_key() {
        let config = config(
            r#"
default_model = "kimi"
[models.kimi]
provider = "openai-chat"
dialect = "kimi"
base_url = "https://api.moonshot.ai/v1"
model = "kimi-k2"
api_key_env = "MOONSHOT_API_KEY"
max_output_tokens = 4096
[models.kimi.request_params]
temperature = 0.6
"#,
        );
        let endpoint = config
            .resolve(
                &ModelFlags::default(),
                &env_of(&[("MOONSHOT_API_KEY", "sk-1")]),
            )
            .unwrap();
        assert_eq!(endpoint.alias, "kimi");
        assert_eq!(endpoint.model, "kimi-k2");
        assert_eq!(endpoint.dialect, Dialect::Kimi);
        assert_eq!(
            endpoint.url(),
            "https://api.moonshot.ai/v1/chat/completions"
        );
        assert_eq!(endpoint.api_key, Some(ApiKey::new("sk-1")));
        assert_eq!(
            endpoint.api_key.as_ref().and_then(ApiKey::variable),
            Some("MOONSHOT_API_KEY")
        );
        assert_eq!(endpoint.request_params["temperature"], 0.6);
    }

    #[test]
    fn flags_beat_environment_beats_file() {
        let config = config("[endpoints]\napi_base_url = \"http://file\"\n");
        let env = env_of(&[("KIGI_BASE_URL", "http://env"), ("KIGI_MODEL", "m-env")]);
        let from_env = config.resolve(&ModelFlags::default(), &env).unwrap();
        assert_eq!(
            (from_env.base_url.as_str(), from_env.model.as_str()),
            ("http://env", "m-env")
        );
        let flags = ModelFlags {
            model: Some("m-flag".into()),
            base_url: Some("http://flag".into()),
        };
        let from_flags = config.resolve(&flags, &env).unwrap();
        assert_eq!(
            (from_flags.base_url.as_str(), from_flags.model.as_str()),
            ("http://flag", "m-flag")
        );
    }

    #[test]
    fn unknown_alias_lists_the_configured_ones() {
        let config = config("[models.kimi]\nbase_url = \"http://x\"\n");
        let flags = ModelFlags {
            model: Some("gtp".into()),
            base_url: None,
        };
        let err = config.resolve(&flags, &env_of(&[])).unwrap_err();
        assert_eq!(
            err,
            ModelConfigError::UnknownAlias {
                name: "gtp".into(),
                known: "kimi".into()
            }
        );
    }

    #[test]
    fn a_named_key_variable_that_is_unset_is_an_error_naming_it() {
        let config = config("[models.a]\nbase_url = \"http://x\"\napi_key_env = \"A_KEY\"\n");
        let flags = ModelFlags {
            model: Some("a".into()),
            base_url: None,
        };
        let err = config.resolve(&flags, &env_of(&[])).unwrap_err();
        assert!(err.to_string().contains("$A_KEY"), "{err}");
        assert!(!format!("{err:?}").contains("sk-"));
    }

    #[test]
    fn a_bad_provider_names_section_field_and_choices() {
        let config = config("[models.a]\nbase_url = \"http://x\"\nprovider = \"gemini\"\n");
        let flags = ModelFlags {
            model: Some("a".into()),
            base_url: None,
        };
        let err = config
            .resolve(&flags, &env_of(&[]))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("[models.a] provider: unknown value `gemini`"),
            "{err}"
        );
    }

    #[test]
    fn a_malformed_base_url_names_the_url_and_where_it_was_set() {
        let flags = ModelFlags {
            model: Some("m".into()),
            base_url: Some("htp:/x".into()),
        };
        let err = ModelsConfig::default()
            .resolve(&flags, &env_of(&[]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid model base URL `htp:/x` from --base-url: it must start with http:// or https://"
        );
        let err = config("[models.k]\nbase_url = 'http://'\n")
            .resolve(
                &ModelFlags {
                    model: Some("k".into()),
                    base_url: None,
                },
                &env_of(&[]),
            )
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "invalid model base URL `http://` from [models.k] base_url: it has no host"
        );
        let err = config(
            "default_model = 'm'\n[endpoints]\napi_base_url = 'http://bob:pw@exa mple.com'\n",
        )
        .resolve(&ModelFlags::default(), &env_of(&[]))
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "invalid model base URL `http://exa mple.com` from [endpoints] api_base_url: it contains whitespace"
        );
        let err = ModelsConfig::default()
            .resolve(&flags_url("m", "ftp://h"), &env_of(&[]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("from --base-url"), "{err}");
        let err = ModelsConfig::default()
            .resolve(
                &ModelFlags {
                    model: Some("m".into()),
                    base_url: None,
                },
                &env_of(&[("KIGI_BASE_URL", "http://")]),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("from KIGI_BASE_URL"), "{err}");
    }

    fn flags_url(model: &str, url: &str) -> ModelFlags {
        ModelFlags {
            model: Some(model.into()),
            base_url: Some(url.into()),
        }
    }

    #[test]
    fn unknown_keys_in_a_model_section_are_left_for_the_loader_to_report() {
        // kigi_agent::LoadedConfig warns about `base_ur` with its line; the model layer reads
        // what it knows and does not refuse the file.
        let config =
            ModelsConfig::parse("[models.a]\nbase_ur = \"x\"\n", Path::new("/c.toml")).unwrap();
        assert_eq!(config.models["a"], ModelSettings::default());
    }
}
