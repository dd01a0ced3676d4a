//! The `initialize` answer: what kigi offers an editor.
//!
//! The rule: advertise only what works end to end. The SDK has already settled the protocol
//! version (v1) by the time this runs; the answer echoes it.

use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthMethod, Implementation, InitializeRequest, InitializeResponse,
    McpCapabilities, PromptCapabilities,
};
use kigi_model::{ModelFlags, ModelsConfig};

/// Sessions start the stdio and streamable-HTTP MCP servers an editor names in
/// `session/new` (see `mcp_servers`).
pub(crate) const SESSION_MCP_SERVERS: bool = true;

/// What this `kigi acp` can offer, worked out from its configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Offer {
    /// A model reads images: the one sessions start with, or a `[models]` alias a person
    /// can switch to (a model that does not read them gets a note instead).
    pub images: bool,
    /// How to sign in (see `auth_methods`); empty when nothing needs it.
    pub auth_methods: Vec<AuthMethod>,
}

/// Whether images in a prompt can reach a model of this configuration.
pub(crate) fn images_readable(
    models: &ModelsConfig,
    flags: &ModelFlags,
    env: &dyn Fn(&str) -> Option<String>,
) -> bool {
    let starting = models
        .resolve(flags, env)
        .is_ok_and(|endpoint| endpoint.accepts_images);
    starting || models.models.values().any(|m| m.images == Some(true))
}

/// kigi's answer to `request`.
pub(crate) fn initialize_response(
    request: &InitializeRequest,
    offer: &Offer,
) -> InitializeResponse {
    let prompt = PromptCapabilities::new()
        .image(offer.images)
        .audio(false)
        // Text resources are quoted for the model; a `file://` resource link is read by kigi.
        .embedded_context(true);
    let mcp = McpCapabilities::new().http(SESSION_MCP_SERVERS).sse(false);
    InitializeResponse::new(request.protocol_version)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(prompt)
                .mcp_capabilities(mcp),
        )
        .auth_methods(offer.auth_methods.clone())
        .agent_info(Implementation::new("kigi", env!("CARGO_PKG_VERSION")).title("kigi"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use agent_client_protocol::schema::ProtocolVersion;
    use kigi_model::ModelSettings;

    /// A configuration with the aliases `(name, reads images)`.
    fn config(aliases: &[(&str, bool)]) -> ModelsConfig {
        let mut models = ModelsConfig::default();
        models.endpoints.api_base_url = Some("http://127.0.0.1:1/v1".into());
        for (name, images) in aliases {
            let settings = ModelSettings {
                images: images.then_some(true),
                ..ModelSettings::default()
            };
            models.models.insert((*name).to_owned(), settings);
        }
        models
    }

    #[test]
    fn advertises_load_session_and_embedded_context_and_no_sign_in() {
        let json = serde_json::to_value(initialize_response(
            &InitializeRequest::new(ProtocolVersion::V1),
            &Offer::default(),
        ))
        .unwrap();
        assert_eq!(json["protocolVersion"], 1);
        assert_eq!(json["agentCapabilities"]["loadSession"], true);
        let prompt = &json["agentCapabilities"]["promptCapabilities"];
        assert_eq!(
            (&prompt["embeddedContext"], &prompt["image"]),
            (&serde_json::json!(true), &serde_json::json!(false))
        );
        assert_eq!(json["authMethods"], serde_json::json!([]));
        assert_eq!(json["agentInfo"]["name"], "kigi");
    }

    #[test]
    fn images_are_offered_when_the_starting_model_or_an_alias_reads_them() {
        let env = |_: &str| None;
        let flags = |model: &str| ModelFlags {
            model: Some(model.into()),
            base_url: None,
        };
        let both = config(&[("plain", false), ("eyes", true)]);
        assert!(images_readable(&both, &flags("eyes"), &env));
        assert!(images_readable(&both, &flags("plain"), &env));
        let none = config(&[("plain", false)]);
        assert!(!images_readable(&none, &flags("plain"), &env));
        assert!(!images_readable(&none, &flags("some-model-id"), &env));
    }
}
