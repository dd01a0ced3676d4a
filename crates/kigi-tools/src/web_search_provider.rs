//! The search services `web_search` can use, each with its request and its answer's shape:
//! SearXNG (`/search?format=json`), Brave's Web Search API, Tavily, and the Kimi API's
//! built-in `$web_search` (its exchange is in [`crate::kimi_search`]). kigi has no default
//! service: the user names one in `[web_search]`.
//!
//! The rule: parsing an answer is a pure function of its bytes, so every provider's shape is
//! tested without a network.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::web_request::WebError;

/// `[web_search] provider`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WebSearchProvider {
    /// A SearXNG instance (`url` is required; JSON output must be enabled on it).
    Searxng,
    /// Brave's Web Search API (`api_key_env` is required).
    Brave,
    /// Tavily's search API (`api_key_env` is required).
    Tavily,
    /// The Kimi API's built-in `$web_search` on a Kimi endpoint (`url`, `api_key_env` and
    /// `model` are required).
    Kimi,
}

impl WebSearchProvider {
    pub const ALL: [WebSearchProvider; 4] = [Self::Searxng, Self::Brave, Self::Tavily, Self::Kimi];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Searxng => "searxng",
            Self::Brave => "brave",
            Self::Tavily => "tavily",
            Self::Kimi => "kimi",
        }
    }

    /// The service's own endpoint, for the providers that have one.
    pub fn default_url(self) -> Option<&'static str> {
        match self {
            // Kimi has endpoints in more than one region: the user picks one.
            Self::Searxng | Self::Kimi => None,
            Self::Brave => Some("https://api.search.brave.com/res/v1/web/search"),
            Self::Tavily => Some("https://api.tavily.com/search"),
        }
    }

    /// Whether the service refuses requests without a key.
    pub fn needs_key(self) -> bool {
        !matches!(self, Self::Searxng)
    }
}

impl fmt::Display for WebSearchProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider name that is not one of the four.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown web search provider `{0}` (expected searxng, brave, tavily or kimi)")]
pub struct UnknownWebSearchProvider(pub String);

impl FromStr for WebSearchProvider {
    type Err = UnknownWebSearchProvider;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownWebSearchProvider(s.to_owned()))
    }
}

/// One result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    pub title: String,
    pub url: String,
    pub snippet: String,
}

/// The hits in a provider's JSON answer (at most `limit`), or why it has none.
pub fn parse_hits(
    provider: WebSearchProvider,
    body: &[u8],
    limit: usize,
) -> Result<Vec<SearchHit>, WebError> {
    let unusable = |detail: String| WebError::UnusableAnswer {
        service: provider.to_string(),
        detail,
    };
    let value: Value =
        serde_json::from_slice(body).map_err(|e| unusable(format!("not JSON ({e})")))?;
    let (list, snippet_key) = match provider {
        WebSearchProvider::Searxng | WebSearchProvider::Tavily => (&value["results"], "content"),
        WebSearchProvider::Brave => (&value["web"]["results"], "description"),
        // Kimi answers in prose ([`crate::kimi_search`]), never with a hit list.
        WebSearchProvider::Kimi => return Err(unusable("kimi answers in text".into())),
    };
    let Some(list) = list.as_array() else {
        // An empty Brave answer has no `web` at all.
        if provider == WebSearchProvider::Brave && value.get("web").is_none() {
            return Ok(Vec::new());
        }
        return Err(unusable("no result list".into()));
    };
    let text = |item: &Value, key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    Ok(list
        .iter()
        .map(|item| SearchHit {
            title: text(item, "title"),
            url: text(item, "url"),
            snippet: strip_markup(&text(item, snippet_key)),
        })
        .filter(|hit| !hit.url.is_empty())
        .take(limit)
        .collect())
}

/// Hits as a numbered Markdown list.
pub fn render_hits(query: &str, hits: &[SearchHit]) -> String {
    if hits.is_empty() {
        return format!("No results for \"{query}\".");
    }
    let mut out = String::new();
    for (n, hit) in hits.iter().enumerate() {
        let title = if hit.title.is_empty() {
            &hit.url
        } else {
            &hit.title
        };
        out.push_str(&format!("{}. [{}]({})\n", n + 1, title, hit.url));
        if !hit.snippet.is_empty() {
            out.push_str(&format!("   {}\n", hit.snippet));
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// Brave marks matches with `<strong>`; snippets are shown as plain text.
fn strip_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_answer_shape_gives_its_hits() {
        let searxng = br#"{"results":[{"title":"Rust","url":"https://rust-lang.org","content":"A language"}]}"#;
        let brave = br#"{"web":{"results":[{"title":"Rust","url":"https://rust-lang.org","description":"A <strong>language</strong>"}]}}"#;
        let tavily = br#"{"query":"q","results":[{"title":"Rust","url":"https://rust-lang.org","content":"A language","score":0.9}]}"#;
        let expected = vec![SearchHit {
            title: "Rust".into(),
            url: "https://rust-lang.org".into(),
            snippet: "A language".into(),
        }];
        assert_eq!(
            parse_hits(WebSearchProvider::Searxng, searxng, 10).unwrap(),
            expected
        );
        assert_eq!(
            parse_hits(WebSearchProvider::Brave, brave, 10).unwrap(),
            expected
        );
        assert_eq!(
            parse_hits(WebSearchProvider::Tavily, tavily, 10).unwrap(),
            expected
        );
    }

    #[test]
    fn hits_are_limited_and_unusable_answers_are_named() {
        let many = format!(
            "{{\"results\":[{}]}}",
            (0..20)
                .map(|n| format!("{{\"title\":\"t{n}\",\"url\":\"https://e.com/{n}\"}}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(
            parse_hits(WebSearchProvider::Searxng, many.as_bytes(), 10)
                .unwrap()
                .len(),
            10
        );
        let err = parse_hits(WebSearchProvider::Searxng, b"<html>", 10).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("searxng's answer is unusable: not JSON"),
            "{err}"
        );
        assert_eq!(
            parse_hits(WebSearchProvider::Brave, b"{}", 10).unwrap(),
            vec![]
        );
    }

    #[test]
    fn hits_render_as_a_numbered_list() {
        let hits = [SearchHit {
            title: "Rust".into(),
            url: "https://rust-lang.org".into(),
            snippet: "A language".into(),
        }];
        assert_eq!(
            render_hits("rust", &hits),
            "1. [Rust](https://rust-lang.org)\n   A language"
        );
        assert_eq!(render_hits("zzz", &[]), "No results for \"zzz\".");
    }

    #[test]
    fn provider_names_parse_and_unknown_ones_are_listed() {
        for provider in WebSearchProvider::ALL {
            assert_eq!(provider.as_str().parse(), Ok(provider));
        }
        assert_eq!(
            "bing".parse::<WebSearchProvider>().unwrap_err().to_string(),
            "unknown web search provider `bing` (expected searxng, brave, tavily or kimi)"
        );
    }
}
