//! Signing in: the `kimi-code` auth method (a Kimi account, seed 001's `AuthMethodKind::
//! KimiCode`), offered only when a configured model talks to a Kimi account endpoint
//! (`*.kimi.com`, e.g. `https://api.kimi.com/coding/v1`); a local endpoint needs none.
//!
//! The rule: `authenticate` answers what is true now. kigi has no browser sign-in; the
//! credential is the model's API key, read from the environment the editor starts kigi with,
//! so the answer is ok when every Kimi account model has its key, and otherwise an error
//! naming the model and the variable to set.

use agent_client_protocol::v1::schema::{AuthMethod, AuthMethodAgent};
use agent_client_protocol::{Error, ErrorCode};
use kigi_model::{ModelConfigError, ModelFlags, ModelsConfig};

/// The id of the Kimi account method (seed 001).
pub const KIMI_CODE_METHOD: &str = "kimi-code";

/// A configured model on a Kimi account endpoint, and whether its key is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KimiAccountModel {
    /// The `[models]` alias, or the model id the session starts with.
    pub name: String,
    /// `None` when the key is there; else the variable that should hold it, if one is named.
    pub missing_key: Option<Option<String>>,
}

/// Whether `base_url` is a Kimi account endpoint.
fn is_kimi_account(base_url: &str) -> bool {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let host = rest.split(['/', ':', '?', '#']).next().unwrap_or("");
    let host = host.rsplit('@').next().unwrap_or(host).to_ascii_lowercase();
    host == "kimi.com" || host.ends_with(".kimi.com")
}

/// The models of this configuration on a Kimi account endpoint: every alias, and the model
/// sessions start with.
pub(crate) fn kimi_account_models(
    models: &ModelsConfig,
    flags: &ModelFlags,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<KimiAccountModel> {
    let mut names: Vec<Option<String>> = models.models.keys().cloned().map(Some).collect();
    names.push(flags.model.clone());
    let mut found: Vec<KimiAccountModel> = Vec::new();
    for name in names {
        let chosen = ModelFlags {
            model: name,
            base_url: flags.base_url.clone(),
        };
        let (name, base_url, missing_key) = match models.resolve(&chosen, env) {
            Ok(endpoint) => (
                endpoint.alias,
                endpoint.base_url,
                endpoint.api_key.is_none().then_some(None),
            ),
            Err(ModelConfigError::MissingApiKey { alias, variable }) => {
                let Some((base_url, _)) = models.chosen_base_url(Some(&alias), &chosen, env) else {
                    continue;
                };
                (alias, base_url, Some(Some(variable)))
            }
            Err(_) => continue,
        };
        if is_kimi_account(&base_url) && found.iter().all(|m| m.name != name) {
            found.push(KimiAccountModel { name, missing_key });
        }
    }
    found
}

/// What `initialize` lists: `kimi-code` when a Kimi account model is configured.
pub(crate) fn auth_methods(accounts: &[KimiAccountModel]) -> Vec<AuthMethod> {
    if accounts.is_empty() {
        return Vec::new();
    }
    let names: Vec<&str> = accounts.iter().map(|m| m.name.as_str()).collect();
    vec![AuthMethod::Agent(
        AuthMethodAgent::new(KIMI_CODE_METHOD, "Kimi account").description(format!(
            "The API key of your Kimi account, from the environment kigi starts with (for {})",
            names.join(", ")
        )),
    )]
}

/// The answer to `authenticate` with `method`.
pub(crate) fn authenticate(method: &str, accounts: &[KimiAccountModel]) -> Result<(), Error> {
    if method != KIMI_CODE_METHOD || accounts.is_empty() {
        let offered = if accounts.is_empty() {
            "kigi offers none: its models need no sign-in (keys come from the environment and config.toml)".to_owned()
        } else {
            format!("kigi offers `{KIMI_CODE_METHOD}`")
        };
        return Err(Error::invalid_params().data(serde_json::json!({
            "reason": format!("unknown auth method `{method}`; {offered}")
        })));
    }
    let missing: Vec<String> = accounts
        .iter()
        .filter_map(|model| {
            let variable = model.missing_key.as_ref()?;
            Some(match variable {
                Some(variable) => format!("`{}` reads its key from ${variable}, which is not set", model.name),
                None => format!(
                    "`{}` has no key: set KIGI_API_KEY, or api_key_env in [models.{}] to the variable that holds it",
                    model.name, model.name
                ),
            })
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::AUTH_REQUIRED,
        format!(
            "{KIMI_CODE_METHOD}: {}. Set it to your Kimi account's API key in the environment the editor starts kigi with (Zed: `env` of the agent server), then restart the agent.",
            missing.join("; ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use kigi_model::ModelSettings;

    const KIMI: &str = "https://api.kimi.com/coding/v1";

    fn config(aliases: &[(&str, &str, Option<&str>)]) -> ModelsConfig {
        let mut models = ModelsConfig::default();
        for (name, base_url, key_env) in aliases {
            let settings = ModelSettings {
                base_url: Some((*base_url).to_owned()),
                api_key_env: key_env.map(str::to_owned),
                ..ModelSettings::default()
            };
            models.models.insert((*name).to_owned(), settings);
        }
        models
    }

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    fn flags(model: Option<&str>) -> ModelFlags {
        ModelFlags {
            model: model.map(str::to_owned),
            base_url: None,
        }
    }

    #[test]
    fn a_local_endpoint_offers_no_sign_in_and_refuses_kimi_code() {
        let models = config(&[("local", "http://127.0.0.1:11434/v1", None)]);
        let accounts = kimi_account_models(&models, &flags(Some("local")), &env_of(&[]));
        assert_eq!(accounts, []);
        assert_eq!(auth_methods(&accounts), []);
        let error = authenticate(KIMI_CODE_METHOD, &accounts).unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert!(
            error.data.unwrap()["reason"]
                .as_str()
                .unwrap()
                .contains("offers none"),
        );
    }

    #[test]
    fn a_kimi_account_model_offers_kimi_code_and_is_signed_in_when_its_key_is_set() {
        let models = config(&[
            ("kimi", KIMI, Some("KIMI_API_KEY")),
            ("local", "http://127.0.0.1:1/v1", None),
        ]);
        let with_key = kimi_account_models(
            &models,
            &flags(Some("local")),
            &env_of(&[("KIMI_API_KEY", "sk-1")]),
        );
        assert_eq!(
            with_key,
            [KimiAccountModel {
                name: "kimi".into(),
                missing_key: None
            }]
        );
        let json = serde_json::to_value(auth_methods(&with_key)).unwrap();
        assert_eq!(json[0]["id"], "kimi-code");
        assert_eq!(json[0]["name"], "Kimi account");
        assert!(authenticate(KIMI_CODE_METHOD, &with_key).is_ok());
        assert!(authenticate("some-other-method", &with_key).is_err());
    }

    #[test]
    fn a_missing_key_is_an_auth_error_naming_the_model_and_the_variable() {
        let models = config(&[("kimi", KIMI, Some("KIMI_API_KEY"))]);
        let accounts = kimi_account_models(&models, &flags(Some("kimi")), &env_of(&[]));
        assert_eq!(
            accounts,
            [KimiAccountModel {
                name: "kimi".into(),
                missing_key: Some(Some("KIMI_API_KEY".into()))
            }]
        );
        let error = authenticate(KIMI_CODE_METHOD, &accounts).unwrap_err();
        assert_eq!(error.code, ErrorCode::AUTH_REQUIRED);
        assert!(
            error.message.starts_with(
                "kimi-code: `kimi` reads its key from $KIMI_API_KEY, which is not set."
            ),
            "{}",
            error.message
        );
        // No variable named and none set: it says which ones would do.
        let unnamed = config(&[("kimi", KIMI, None)]);
        let accounts = kimi_account_models(&unnamed, &flags(None), &env_of(&[]));
        let error = authenticate(KIMI_CODE_METHOD, &accounts).unwrap_err();
        assert!(
            error.message.contains("set KIGI_API_KEY"),
            "{}",
            error.message
        );
    }

    #[test]
    fn the_starting_model_counts_when_kigi_base_url_is_a_kimi_account() {
        let accounts = kimi_account_models(
            &ModelsConfig::default(),
            &flags(Some("kimi-for-coding")),
            &env_of(&[("KIGI_BASE_URL", KIMI), ("KIGI_API_KEY", "sk")]),
        );
        assert_eq!(
            accounts,
            [KimiAccountModel {
                name: "kimi-for-coding".into(),
                missing_key: None
            }]
        );
    }

    #[test]
    fn only_kimi_com_hosts_are_kimi_accounts() {
        assert!(is_kimi_account(KIMI));
        assert!(is_kimi_account("https://KIMI.com"));
        assert!(!is_kimi_account("https://api.moonshot.ai/v1"));
        assert!(!is_kimi_account("https://kimi.com.evil.example/v1"));
        assert!(!is_kimi_account("https://notkimi.com/v1"));
    }
}
