//! The `initialize` answer: what kigi offers an editor.
//!
//! The rule: advertise only what works end to end. The SDK has already settled the protocol
//! version (v1) by the time this runs; the answer echoes it.

use agent_client_protocol::v1::schema::{
    AgentCapabilities, Implementation, InitializeRequest, InitializeResponse, McpCapabilities,
    PromptCapabilities,
};

/// Sessions start the stdio and streamable-HTTP MCP servers an editor names in
/// `session/new` (see `mcp_servers`).
pub(crate) const SESSION_MCP_SERVERS: bool = true;

/// kigi's answer to `request`.
pub(crate) fn initialize_response(request: &InitializeRequest) -> InitializeResponse {
    let prompt = PromptCapabilities::new()
        // A user turn is text: images and audio cannot reach the model yet.
        .image(false)
        .audio(false)
        .embedded_context(true);
    let mcp = McpCapabilities::new().http(SESSION_MCP_SERVERS).sse(false);
    InitializeResponse::new(request.protocol_version)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(prompt)
                .mcp_capabilities(mcp),
        )
        // A local endpoint needs no sign-in; keys come from the environment and config.toml.
        .auth_methods(Vec::new())
        .agent_info(Implementation::new("kigi", env!("CARGO_PKG_VERSION")).title("kigi"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use agent_client_protocol::schema::ProtocolVersion;

    #[test]
    fn advertises_load_session_and_embedded_context_and_no_sign_in() {
        let json = serde_json::to_value(initialize_response(&InitializeRequest::new(
            ProtocolVersion::V1,
        )))
        .unwrap();
        assert_eq!(json["protocolVersion"], 1);
        assert_eq!(json["agentCapabilities"]["loadSession"], true);
        assert_eq!(
            json["agentCapabilities"]["promptCapabilities"]["embeddedContext"],
            true
        );
        assert_eq!(json["authMethods"], serde_json::json!([]));
        assert_eq!(json["agentInfo"]["name"], "kigi");
    }
}
