//! A model a person picks mid-session (`HostCommand::SetModel`, the terminal's `/model`, ACP's
//! `session/set_model`): resolved at once, so a bad name is an error the front end shows,
//! and taken by the session at its next request, never in the middle of one.
//!
//! The rule: a name is a `[models]` alias (its own endpoint and key) or a model id on the
//! endpoint the session already talks to; it never sends the session's key somewhere new.

use std::sync::Mutex;

use kigi_model::{ModelClient, ModelConfigError, ModelFlags, ModelsConfig};

use super::HostError;
use crate::lock::lock;
use crate::subagent::EnvLookup;

/// The client waiting for the session's next request.
#[derive(Debug, Default)]
pub struct ModelSwitch(Mutex<Option<ModelClient>>);

impl ModelSwitch {
    /// Replaces whatever was waiting.
    pub fn request(&self, client: ModelClient) {
        *lock(&self.0) = Some(client);
    }

    /// The client to use from now on, once.
    pub fn take(&self) -> Option<ModelClient> {
        lock(&self.0).take()
    }
}

/// What a name resolves against.
pub(crate) struct ModelResolver {
    pub models: ModelsConfig,
    pub env: EnvLookup,
    /// `--base-url`, which aliases are reached through too.
    pub base_url_override: Option<String>,
}

impl ModelResolver {
    /// The client for `name`: an alias's, or the current endpoint's with the model replaced.
    pub fn client(&self, name: &str, current: &ModelClient) -> Result<ModelClient, HostError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(HostError::Model(ModelConfigError::UnknownAlias {
                name: String::new(),
                known: self.known(),
            }));
        }
        if self.models.aliases().iter().any(|alias| alias == name) {
            let flags = ModelFlags {
                model: Some(name.to_owned()),
                base_url: self.base_url_override.clone(),
            };
            return Ok(self.models.client(&flags, &*self.env)?);
        }
        // Same endpoint and key, another model: what kigi knew of the old model (its window,
        // output cap, image support, parameters) says nothing about this one.
        let mut endpoint = current.endpoint().clone();
        endpoint.model = name.to_owned();
        endpoint.alias = name.to_owned();
        endpoint.context_window = None;
        endpoint.max_output_tokens = None;
        endpoint.accepts_images = false;
        endpoint.request_params.clear();
        ModelClient::with_policy(endpoint, current.policy().clone()).map_err(|error| {
            HostError::Model(ModelConfigError::Client {
                url: current.endpoint().url(),
                detail: error.to_string(),
            })
        })
    }

    fn known(&self) -> String {
        let aliases = self.models.aliases();
        if aliases.is_empty() {
            "none; add [models.<alias>] to config.toml, or give a model id".to_owned()
        } else {
            aliases.join(", ")
        }
    }
}
