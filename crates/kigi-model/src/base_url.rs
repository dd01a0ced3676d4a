//! Checking a model base URL before anything is sent, so a typo (`htp:/x`, `http://` with no
//! host, a pasted URL with a space in it) fails at once, naming the URL and where it came
//! from, instead of surfacing as a transport error after a round of retries.
//!
//! The rule: only `http://` and `https://` URLs with a host pass; nothing is guessed or fixed
//! up (no added scheme, no trimmed spaces).

/// Why a base URL cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BaseUrlFault {
    /// Whitespace anywhere in the URL.
    #[error("it contains whitespace")]
    Whitespace,
    /// Not an `http://` or `https://` URL.
    #[error("it must start with http:// or https://")]
    NotHttp,
    /// `http://` with nothing (or only a port) after it.
    #[error("it has no host")]
    NoHost,
    /// The URL parser refused it.
    #[error("it is not a URL ({reason})")]
    Unparsable { reason: String },
}

/// Checks `url` (a base URL, without the provider's path).
pub fn check_base_url(url: &str) -> Result<(), BaseUrlFault> {
    if url.chars().any(char::is_whitespace) {
        return Err(BaseUrlFault::Whitespace);
    }
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(BaseUrlFault::NotHttp);
    }
    let after_scheme = url.split_once("://").map_or("", |(_, rest)| rest);
    let authority = after_scheme
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let host_and_port = authority.rsplit('@').next().unwrap_or_default();
    if host_and_port.is_empty() || host_and_port.starts_with(':') {
        return Err(BaseUrlFault::NoHost);
    }
    match reqwest::Url::parse(url) {
        Ok(parsed) if parsed.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        Ok(_) => Err(BaseUrlFault::NoHost),
        Err(e) => Err(BaseUrlFault::Unparsable {
            reason: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_and_https_urls_with_a_host_pass() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "https://api.moonshot.ai/v1",
            "HTTPS://Example.com",
            "http://localhost:11434/v1/",
        ] {
            assert_eq!(check_base_url(url), Ok(()), "{url}");
        }
    }

    #[test]
    fn malformed_base_urls_are_refused_with_the_reason() {
        assert_eq!(check_base_url("htp:/x"), Err(BaseUrlFault::NotHttp));
        assert_eq!(check_base_url("http:/x"), Err(BaseUrlFault::NotHttp));
        assert_eq!(
            check_base_url("api.openai.com/v1"),
            Err(BaseUrlFault::NotHttp)
        );
        assert_eq!(check_base_url("http://"), Err(BaseUrlFault::NoHost));
        assert_eq!(check_base_url("http://:8080/v1"), Err(BaseUrlFault::NoHost));
        assert_eq!(
            check_base_url("http://exa mple.com/v1"),
            Err(BaseUrlFault::Whitespace)
        );
        assert_eq!(
            check_base_url("http://example.com/v1 "),
            Err(BaseUrlFault::Whitespace)
        );
        assert!(matches!(
            check_base_url("http://[::1/v1"),
            Err(BaseUrlFault::Unparsable { .. })
        ));
    }
}
