//! The model a person picks in the editor: ACP's session config option of category `model`
//! (the protocol's stable way; the pinned SDK has no `session/set_model`), set with
//! `session/set_config_option` and announced with `config_option_update` when it changes.
//!
//! The rule: the menu is the configured `[models]` aliases plus whatever the session talks
//! to now, and the current value is what the host says the model is, never what was asked.

use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigSelectOption,
};
use kigi_model::{ModelEndpoint, ModelsConfig};

/// The id of the model option in `configOptions`.
pub const MODEL_OPTION_ID: &str = "model";

/// The configured aliases, each with the provider model id it sends.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ModelMenu {
    aliases: Vec<(String, String)>,
}

impl ModelMenu {
    pub(crate) fn new(models: &ModelsConfig) -> Self {
        let aliases = models
            .models
            .iter()
            .map(|(alias, settings)| {
                let model = settings.model.clone().unwrap_or_else(|| alias.clone());
                (alias.clone(), model)
            })
            .collect();
        Self { aliases }
    }

    /// The name the session's model is chosen by: its alias when it still sends that alias's
    /// model, else an alias sending the same model id, else the model id itself.
    pub(crate) fn current(&self, endpoint: &ModelEndpoint) -> String {
        self.aliases
            .iter()
            .find(|(alias, model)| alias == &endpoint.alias && model == &endpoint.model)
            .or_else(|| {
                self.aliases
                    .iter()
                    .find(|(_, model)| model == &endpoint.model)
            })
            .map_or_else(|| endpoint.model.clone(), |(alias, _)| alias.clone())
    }

    /// The session's config options with `endpoint` the model now.
    pub(crate) fn options(&self, endpoint: &ModelEndpoint) -> Vec<SessionConfigOption> {
        let current = self.current(endpoint);
        let mut choices: Vec<SessionConfigSelectOption> = self
            .aliases
            .iter()
            .map(|(alias, model)| {
                SessionConfigSelectOption::new(alias.clone(), alias.clone())
                    .description((model != alias).then(|| model.clone()))
            })
            .collect();
        if !self.aliases.iter().any(|(alias, _)| alias == &current) {
            choices.insert(
                0,
                SessionConfigSelectOption::new(current.clone(), current.clone()),
            );
        }
        vec![
            SessionConfigOption::select(MODEL_OPTION_ID, "Model", current, choices)
                .category(SessionConfigOptionCategory::Model)
                .description("The main agent's model from its next request on".to_owned()),
        ]
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use kigi_model::{ModelSettings, Provider};
    use serde_json::json;

    fn menu() -> ModelMenu {
        let mut models = ModelsConfig::default();
        models.models.insert(
            "fast".into(),
            ModelSettings {
                model: Some("kimi-fast".into()),
                ..ModelSettings::default()
            },
        );
        models
            .models
            .insert("local".into(), ModelSettings::default());
        ModelMenu::new(&models)
    }

    fn endpoint(alias: &str, model: &str) -> ModelEndpoint {
        let mut endpoint = ModelEndpoint::new(Provider::OpenaiChat, "http://h/v1", model);
        endpoint.alias = alias.into();
        endpoint
    }

    #[test]
    fn the_current_name_is_the_alias_while_it_still_sends_that_model() {
        let menu = menu();
        assert_eq!(menu.current(&endpoint("fast", "kimi-fast")), "fast");
        // A model id set on an alias's endpoint is no longer that alias.
        assert_eq!(menu.current(&endpoint("fast", "other-id")), "other-id");
        assert_eq!(menu.current(&endpoint("raw", "kimi-fast")), "fast");
        assert_eq!(menu.current(&endpoint("raw", "raw")), "raw");
    }

    #[test]
    fn the_menu_lists_the_aliases_and_a_model_that_is_none_of_them() {
        let json = serde_json::to_value(menu().options(&endpoint("raw", "raw"))).unwrap();
        assert_eq!(
            json,
            json!([{
                "id": "model",
                "name": "Model",
                "description": "The main agent's model from its next request on",
                "category": "model",
                "type": "select",
                "currentValue": "raw",
                "options": [
                    {"value": "raw", "name": "raw"},
                    {"value": "fast", "name": "fast", "description": "kimi-fast"},
                    {"value": "local", "name": "local"},
                ],
            }])
        );
    }
}
