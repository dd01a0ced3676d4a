//! `[web_search]` in `config.toml`: the search service `web_search` sends queries to. kigi has
//! none built in (as with model endpoints, it never picks a host): without this section the
//! tool is not offered and `${{ tools.web_search }}` renders empty. Only the user's own
//! configuration sets it, since the query and the key go to its `url`.
//!
//! The rule: a section that is read is usable. It is checked when the file is loaded (a
//! SearXNG without `url`, a URL that is not http(s)), never first when a search runs.

use kigi_tools::WebSearchProvider;
use kigi_tools::builtin::web_search::WebSearch;
use serde::{Deserialize, Serialize};

/// `[web_search]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "WebSearchSection")]
pub struct WebSearchConfig {
    /// `searxng`, `brave`, `tavily` or `kimi` (the Kimi API's built-in `$web_search`).
    pub provider: WebSearchProvider,
    /// The service's endpoint: a SearXNG instance's or a Kimi API's base URL (required for
    /// them, e.g. `https://api.moonshot.ai/v1`); Brave and Tavily default to their public
    /// APIs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The variable holding the API key (required by Brave, Tavily and Kimi; sent to SearXNG
    /// as a bearer token when set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// The model that runs the search (Kimi's; required for it, unused by the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The section as written, before it is checked.
#[derive(Debug, Deserialize)]
struct WebSearchSection {
    provider: WebSearchProvider,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    api_key_env: Option<String>,
    #[serde(default)]
    model: Option<String>,
}

impl TryFrom<WebSearchSection> for WebSearchConfig {
    type Error = String;

    fn try_from(section: WebSearchSection) -> Result<Self, Self::Error> {
        let config = Self {
            provider: section.provider,
            url: section.url,
            api_key_env: section.api_key_env.filter(|v| !v.trim().is_empty()),
            model: section.model.filter(|m| !m.trim().is_empty()),
        };
        config.tool().map_err(|e| e.to_string())?;
        if config.provider.needs_key() && config.api_key_env.is_none() {
            return Err(format!(
                "[web_search] provider = \"{}\" needs `api_key_env`, the variable holding its API key",
                config.provider
            ));
        }
        match (config.provider, &config.model) {
            (WebSearchProvider::Kimi, None) => Err(
                "[web_search] provider = \"kimi\" needs `model`, the Kimi model that runs $web_search"
                    .to_owned(),
            ),
            (WebSearchProvider::Kimi, Some(_)) | (_, None) => Ok(config),
            (provider, Some(_)) => Err(format!(
                "[web_search] `model` is for provider = \"kimi\"; {provider} has none"
            )),
        }
    }
}

impl WebSearchConfig {
    /// The `web_search` tool bound to this service.
    pub fn tool(&self) -> Result<WebSearch, kigi_tools::WebError> {
        WebSearch::new(self.provider, self.url.as_deref(), self.api_key_env.clone())
            .map(|tool| tool.with_model(self.model.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Doc {
        web_search: WebSearchConfig,
    }

    fn parse(text: &str) -> Result<WebSearchConfig, String> {
        toml::from_str::<Doc>(text)
            .map(|doc| doc.web_search)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_searxng_section_with_a_url_reads_and_builds_its_tool() {
        let config =
            parse("[web_search]\nprovider = \"searxng\"\nurl = \"http://127.0.0.1:8888\"\n")
                .unwrap();
        assert_eq!(
            config,
            WebSearchConfig {
                provider: WebSearchProvider::Searxng,
                url: Some("http://127.0.0.1:8888".into()),
                api_key_env: None,
                model: None,
            }
        );
        assert!(config.tool().is_ok());
    }

    #[test]
    fn missing_urls_keys_and_unknown_providers_are_refused_when_read() {
        let no_url = parse("[web_search]\nprovider = \"searxng\"\n").unwrap_err();
        assert!(
            no_url.contains("provider = \"searxng\" needs `url`"),
            "{no_url}"
        );
        let no_key = parse("[web_search]\nprovider = \"brave\"\n").unwrap_err();
        assert!(no_key.contains("needs `api_key_env`"), "{no_key}");
        let bad_url =
            parse("[web_search]\nprovider = \"searxng\"\nurl = \"ftp://x\"\n").unwrap_err();
        assert!(bad_url.contains("scheme ftp is not fetched"), "{bad_url}");
        let unknown = parse("[web_search]\nprovider = \"bing\"\n").unwrap_err();
        assert!(unknown.contains("unknown variant `bing`"), "{unknown}");
        let tavily =
            parse("[web_search]\nprovider = \"tavily\"\napi_key_env = \"TAVILY_API_KEY\"\n")
                .unwrap();
        assert_eq!(tavily.url, None);
    }

    #[test]
    fn a_kimi_section_needs_a_url_a_key_and_a_model() {
        let kimi = parse(
            "[web_search]\nprovider = \"kimi\"\nurl = \"https://api.moonshot.ai/v1\"\napi_key_env = \"MOONSHOT_API_KEY\"\nmodel = \"kimi-k2-turbo-preview\"\n",
        )
        .unwrap();
        assert_eq!(kimi.model.as_deref(), Some("kimi-k2-turbo-preview"));
        assert!(kimi.tool().is_ok());
        let no_url =
            parse("[web_search]\nprovider = \"kimi\"\napi_key_env = \"K\"\nmodel = \"m\"\n")
                .unwrap_err();
        assert!(
            no_url.contains("provider = \"kimi\" needs `url`"),
            "{no_url}"
        );
        let no_key =
            parse("[web_search]\nprovider = \"kimi\"\nurl = \"https://k/v1\"\nmodel = \"m\"\n")
                .unwrap_err();
        assert!(no_key.contains("needs `api_key_env`"), "{no_key}");
        let no_model = parse(
            "[web_search]\nprovider = \"kimi\"\nurl = \"https://k/v1\"\napi_key_env = \"K\"\n",
        )
        .unwrap_err();
        assert!(no_model.contains("needs `model`"), "{no_model}");
        let stray =
            parse("[web_search]\nprovider = \"searxng\"\nurl = \"http://s\"\nmodel = \"m\"\n")
                .unwrap_err();
        assert!(
            stray.contains("`model` is for provider = \"kimi\""),
            "{stray}"
        );
    }
}
