//! Secrets kept out of messages: the API key in use and the `user:password@` part of URLs are
//! removed from every error text kigi-model builds, before it is printed, logged or stored in
//! a transcript. Provider error bodies are outside input and may echo the key (a misrouted
//! proxy, a "your key sk-… is invalid" answer).
//!
//! The rule: every error that leaves a [`crate::ModelStream`] or a [`crate::ModelClient`]
//! constructor has gone through [`Redactor::error`]; the unredacted URL is used only to send.

use crate::error::ModelError;

/// What stands where a secret was.
pub const REDACTED: &str = "[redacted]";

/// Keys shorter than this are not searched for: a dummy key such as `x` or `none` (local
/// servers need none) would otherwise blank out ordinary words. Real provider keys are far
/// longer.
const MIN_KEY_LEN: usize = 8;

/// Removes one key, and URL userinfo, from texts.
#[derive(Clone, Default)]
pub(crate) struct Redactor {
    key: Option<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Redactor(<key>)")
    }
}

impl Redactor {
    pub(crate) fn new(key: Option<&str>) -> Self {
        Self {
            key: key
                .map(str::trim)
                .filter(|k| k.len() >= MIN_KEY_LEN)
                .map(str::to_owned),
        }
    }

    /// `text` with the key replaced by [`REDACTED`] and userinfo stripped from its URLs.
    pub(crate) fn text(&self, text: &str) -> String {
        let stripped = strip_userinfo(text);
        match &self.key {
            Some(key) if stripped.contains(key.as_str()) => {
                stripped.replace(key.as_str(), REDACTED)
            }
            _ => stripped,
        }
    }

    /// `error` with every text field redacted.
    pub(crate) fn error(&self, error: ModelError) -> ModelError {
        let t = |s: String| self.text(&s);
        match error {
            ModelError::Transport { url, detail } => ModelError::Transport {
                url: t(url),
                detail: t(detail),
            },
            ModelError::Status {
                url,
                status,
                code,
                provider_message,
                retry_after,
                class,
            } => ModelError::Status {
                url: t(url),
                status,
                code: code.map(t),
                provider_message: t(provider_message),
                retry_after,
                class,
            },
            ModelError::StreamError {
                code,
                provider_message,
                class,
            } => ModelError::StreamError {
                code: code.map(t),
                provider_message: t(provider_message),
                class,
            },
            ModelError::Unauthorized {
                url,
                status,
                provider_message,
                key,
            } => ModelError::Unauthorized {
                url: t(url),
                status,
                provider_message: t(provider_message),
                key,
            },
            ModelError::UnreadableJsonAnswer { url, wire, detail } => {
                ModelError::UnreadableJsonAnswer {
                    url: t(url),
                    wire,
                    detail: t(detail),
                }
            }
            ModelError::IncompleteStream { url } => ModelError::IncompleteStream { url: t(url) },
            ModelError::Malformed { url, detail } => ModelError::Malformed {
                url: t(url),
                detail: t(detail),
            },
            ModelError::IdleTimeout { url, after } => {
                ModelError::IdleTimeout { url: t(url), after }
            }
            ModelError::RequestTimeout { url, after } => {
                ModelError::RequestTimeout { url: t(url), after }
            }
            ModelError::ResponseTooLarge { url, limit } => {
                ModelError::ResponseTooLarge { url: t(url), limit }
            }
            ModelError::InvalidBaseUrl { url, fault } => {
                ModelError::InvalidBaseUrl { url: t(url), fault }
            }
            ModelError::Cancelled => ModelError::Cancelled,
        }
    }
}

/// `text` with the `user:password@` part of every `scheme://` URL in it removed.
pub fn strip_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '`' | ')')
                    || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(userinfo_end) => out.push_str(&authority[userinfo_end + 1..]),
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_is_stripped_from_every_url_in_a_text() {
        assert_eq!(
            strip_userinfo("cannot reach https://alice:s3cret@api.example.com/v1/chat"),
            "cannot reach https://api.example.com/v1/chat"
        );
        assert_eq!(
            strip_userinfo("a http://u@h:8080?x then `http://p:q@r`"),
            "a http://h:8080?x then `http://r`"
        );
        assert_eq!(strip_userinfo("no url here: a@b"), "no url here: a@b");
        assert_eq!(
            strip_userinfo("http://h/path@not-userinfo"),
            "http://h/path@not-userinfo"
        );
    }

    #[test]
    fn the_key_in_use_is_replaced_wherever_it_appears() {
        let redactor = Redactor::new(Some("sk-live-0123456789"));
        assert_eq!(
            redactor.text("Incorrect API key provided: sk-live-0123456789 (sk-live-0123456789)"),
            "Incorrect API key provided: [redacted] ([redacted])"
        );
        assert_eq!(redactor.text("nothing secret"), "nothing secret");
    }

    #[test]
    fn short_dummy_keys_do_not_blank_out_words() {
        let redactor = Redactor::new(Some("none"));
        assert_eq!(redactor.text("none of this"), "none of this");
    }

    #[test]
    fn every_text_field_of_an_error_is_redacted() {
        let redactor = Redactor::new(Some("sk-live-0123456789"));
        let error = ModelError::Status {
            url: "https://u:pw@host/v1/chat/completions".into(),
            status: 401,
            code: Some("invalid_api_key".into()),
            provider_message: "bad key sk-live-0123456789".into(),
            retry_after: None,
            class: crate::error::ErrorClass::Fatal,
        };
        let shown = redactor.error(error).to_string();
        assert_eq!(
            shown,
            "bad key [redacted] (HTTP 401 from https://host/v1/chat/completions)"
        );
        let transport = ModelError::Transport {
            url: "http://a:b@h/x".into(),
            detail: "error sending request for url (http://a:b@h/x): sk-live-0123456789".into(),
        };
        assert_eq!(
            redactor.error(transport).to_string(),
            "cannot reach the model at http://h/x: error sending request for url (http://h/x): [redacted]"
        );
    }
}
