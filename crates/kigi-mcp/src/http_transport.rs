//! The streamable HTTP transport: rmcp's client over the workspace's reqwest (0.13, rustls on
//! ring), with the entry's headers and bearer token.
//!
//! The rule: one HTTP stack. The client is built here rather than by rmcp's default builder
//! (which would need a TLS provider installed and panics when building fails); redirects are
//! not followed, so a session id or token never goes to another origin.

use std::collections::{BTreeMap, HashMap};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::error::McpError;

/// The transport for `url`.
pub(crate) fn http_transport(
    server: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    bearer_token: Option<&str>,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, McpError> {
    // reqwest is built without a TLS crypto provider so that only ring is linked; installing
    // it twice is harmless (the second call reports "already installed").
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        // Loopback and LAN servers answer fast; an idle pooled connection whose last response
        // was not read to the end can stall the next request on delayed ACKs (as rmcp notes).
        .pool_max_idle_per_host(0)
        .build()
        .map_err(|e| McpError::HttpClient {
            server: server.to_owned(),
            detail: e.to_string(),
        })?;
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let invalid = || McpError::InvalidHeader {
            server: server.to_owned(),
            header: name.clone(),
        };
        let name_ok = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
        let value_ok = HeaderValue::from_str(value).map_err(|_| invalid())?;
        custom.insert(name_ok, value_ok);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    if let Some(token) = bearer_token {
        config = config.auth_header(token);
    }
    Ok(StreamableHttpClientTransport::with_client(client, config))
}
