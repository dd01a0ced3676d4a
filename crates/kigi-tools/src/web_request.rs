//! The web tools' HTTP: the workspace's one client (reqwest on rustls with ring), a time limit
//! on every request, a size limit on every body, and no redirect followed by the client (the
//! caller decides what a redirect means).
//!
//! The rule: a fetch connects only to the addresses its host was judged by
//! ([`resolve_checked`]), so a private address cannot slip in through a second lookup.

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::{CONTENT_TYPE, HeaderMap, LOCATION};

use crate::private_address::{PrivateHostAllowance, is_private_address};

/// Bytes of a response body kept; the rest is not read.
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;
/// The whole request, connection to last byte.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// A host name lookup.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(10);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const USER_AGENT: &str = concat!("kigi/", env!("CARGO_PKG_VERSION"));

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebError {
    /// The URL does not parse or is not http(s).
    #[error("`{url}` is not an http(s) URL: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// The host name did not resolve.
    #[error("cannot resolve {host}: {detail}")]
    Lookup { host: String, detail: String },
    /// The host is (or resolves to) a loopback, private or link-local address and no allow
    /// rule names it.
    #[error(
        "{host} is at {address}, a loopback, private or link-local address; fetching it needs an explicit allow rule: WebFetch(domain:{host}) in [permissions] allow or --allowedTools"
    )]
    PrivateAddress { host: String, address: String },
    /// Connecting, sending or reading failed.
    #[error("{url}: {detail}")]
    Transport { url: String, detail: String },
    /// A search service's answer is not the JSON its API documents.
    #[error("{service}'s answer is unusable: {detail}")]
    UnusableAnswer { service: String, detail: String },
    /// A search service needs an API key and none is set.
    #[error("web search through {service} needs an API key: {detail}")]
    MissingKey { service: String, detail: String },
    /// A search service lacks a setting it needs (Kimi's `model`).
    #[error("web search through {service} needs {detail}")]
    Unconfigured { service: String, detail: String },
    /// A service answered with an error status.
    #[error("{service} answered {status}: {body}")]
    Refused {
        service: String,
        status: String,
        body: String,
    },
    /// The client could not be built (TLS setup).
    #[error("cannot set up the HTTP client: {0}")]
    Client(String),
}

/// A response, its body read up to [`BODY_LIMIT`].
#[derive(Debug, Clone)]
pub struct WebResponse {
    pub status: reqwest::StatusCode,
    pub content_type: Option<String>,
    pub location: Option<String>,
    pub body: Vec<u8>,
    /// More body followed than was read.
    pub truncated: bool,
}

/// Parses an http(s) URL.
pub fn parse_web_url(text: &str) -> Result<Url, WebError> {
    let invalid = |reason: String| WebError::InvalidUrl {
        url: text.to_owned(),
        reason,
    };
    let url = Url::parse(text.trim()).map_err(|e| invalid(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(format!("scheme {} is not fetched", url.scheme())));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("no host".into()));
    }
    Ok(url)
}

/// The host of `url` as permission rules see it: lowercased, IPv6 without brackets.
pub fn rule_host(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
        .to_ascii_lowercase()
}

/// The host of an http(s) URL as rules see it, parsed as the fetch parses it (so a rule
/// never judges another host than the one reached); `None` for anything else.
pub fn url_rule_host(url: &str) -> Option<String> {
    parse_web_url(url).ok().map(|url| rule_host(&url))
}

/// The addresses `url`'s host resolves to, refused when any is private and `allowance` does
/// not name the host.
pub async fn resolve_checked(
    url: &Url,
    allowance: Option<&dyn PrivateHostAllowance>,
) -> Result<Vec<SocketAddr>, WebError> {
    let host = rule_host(url);
    let port = url.port_or_known_default().unwrap_or(80);
    let addresses: Vec<SocketAddr> = match host.parse::<std::net::IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => {
            let lookup = tokio::net::lookup_host((host.clone(), port));
            match tokio::time::timeout(LOOKUP_TIMEOUT, lookup).await {
                Ok(Ok(found)) => found.collect(),
                Ok(Err(e)) => {
                    return Err(WebError::Lookup {
                        host,
                        detail: e.to_string(),
                    });
                }
                Err(_) => {
                    return Err(WebError::Lookup {
                        host,
                        detail: format!("no answer within {}s", LOOKUP_TIMEOUT.as_secs()),
                    });
                }
            }
        }
    };
    if addresses.is_empty() {
        return Err(WebError::Lookup {
            host,
            detail: "no addresses".into(),
        });
    }
    let allowed = allowance.is_some_and(|a| a.allows(&host));
    if let Some(private) = addresses.iter().find(|a| is_private_address(a.ip()))
        && !allowed
    {
        return Err(WebError::PrivateAddress {
            address: private.ip().to_string(),
            host,
        });
    }
    Ok(addresses)
}

/// A client that follows no redirect; with `pin`, the host connects only to those addresses.
pub fn web_client(pin: Option<(&str, &[SocketAddr])>) -> Result<reqwest::Client, WebError> {
    // reqwest is built without a TLS crypto provider so that only ring is linked (as the model
    // client does); installing it twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(REQUEST_TIMEOUT)
        .user_agent(USER_AGENT);
    if let Some((host, addresses)) = pin {
        builder = builder.resolve_to_addrs(host, addresses);
    }
    builder.build().map_err(|e| WebError::Client(e.to_string()))
}

/// Sends `request` and reads the response, its body up to [`BODY_LIMIT`].
pub async fn send(url: &Url, request: reqwest::RequestBuilder) -> Result<WebResponse, WebError> {
    let transport = |e: reqwest::Error| WebError::Transport {
        url: url.to_string(),
        detail: if e.is_timeout() {
            format!("no complete answer within {}s", REQUEST_TIMEOUT.as_secs())
        } else {
            error_chain(&e)
        },
    };
    let mut response = request.send().await.map_err(transport)?;
    let header = |headers: &HeaderMap, name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let status = response.status();
    let content_type = header(response.headers(), CONTENT_TYPE);
    let location = header(response.headers(), LOCATION);
    let mut body = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = response.chunk().await.map_err(transport)? {
        let room = BODY_LIMIT - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(WebResponse {
        status,
        content_type,
        location,
        body,
        truncated,
    })
}

/// An error with its causes (reqwest's own message hides the useful part).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
