//! `web_search`: a query sent to the search service the user configured (`[web_search]`),
//! its results as a numbered list of links with snippets. Offered only when a service is
//! configured: kigi never picks a search host itself.
//!
//! The rule: the API key is read from the named variable when a search runs and is sent only
//! to the configured service; it never appears in a result or an error.

use reqwest::Url;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::kimi_search::{self, KimiStep};
use crate::schema::parameters_of;
use crate::tool::{Tool, ToolError, ToolFuture, ToolOutput, parse_arguments};
use crate::web_request::{WebError, parse_web_url, send, web_client};
use crate::web_search_provider::{WebSearchProvider, parse_hits, render_hits};

/// Results shown per search.
const RESULTS: usize = 10;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    query: String,
}

/// The tool, bound to one service.
#[derive(Debug, Clone)]
pub struct WebSearch {
    provider: WebSearchProvider,
    url: Url,
    /// The variable holding the API key.
    api_key_env: Option<String>,
    /// The model that searches (Kimi's; the other services have none).
    model: Option<String>,
}

impl WebSearch {
    /// A search through `provider` at `url` (the provider's own endpoint when `None`), with
    /// the key in variable `api_key_env`. Refused when the URL is missing or not http(s).
    pub fn new(
        provider: WebSearchProvider,
        url: Option<&str>,
        api_key_env: Option<String>,
    ) -> Result<Self, WebError> {
        let url = url
            .or(provider.default_url())
            .ok_or_else(|| WebError::InvalidUrl {
                url: String::new(),
                reason: format!("[web_search] provider = \"{provider}\" needs `url`"),
            })?;
        Ok(Self {
            provider,
            url: parse_web_url(url)?,
            api_key_env,
            model: None,
        })
    }

    /// The same search run by `model` (Kimi's `$web_search` needs one).
    pub fn with_model(mut self, model: Option<String>) -> Self {
        self.model = model;
        self
    }

    fn key(&self) -> Result<Option<String>, WebError> {
        let missing = |detail: String| WebError::MissingKey {
            service: self.provider.to_string(),
            detail,
        };
        let Some(variable) = &self.api_key_env else {
            return if self.provider.needs_key() {
                Err(missing(
                    "set [web_search] api_key_env to the variable that holds it".into(),
                ))
            } else {
                Ok(None)
            };
        };
        match std::env::var(variable) {
            Ok(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_owned())),
            _ => Err(missing(format!(
                "${variable} ([web_search] api_key_env) is not set"
            ))),
        }
    }

    async fn search(&self, query: &str) -> Result<String, WebError> {
        let key = self.key()?;
        let client = web_client(None)?;
        let mut url = self.url.clone();
        let request = match self.provider {
            WebSearchProvider::Kimi => return self.kimi(query, key, &client).await,
            WebSearchProvider::Searxng => {
                if !url.path().trim_end_matches('/').ends_with("/search") {
                    let path = format!("{}/search", url.path().trim_end_matches('/'));
                    url.set_path(&path);
                }
                url.query_pairs_mut()
                    .append_pair("q", query)
                    .append_pair("format", "json");
                let request = client.get(url.clone());
                match &key {
                    Some(key) => request.header(AUTHORIZATION, format!("Bearer {key}")),
                    None => request,
                }
            }
            WebSearchProvider::Brave => {
                url.query_pairs_mut()
                    .append_pair("q", query)
                    .append_pair("count", &RESULTS.to_string());
                client
                    .get(url.clone())
                    .header("X-Subscription-Token", key.unwrap_or_default())
            }
            WebSearchProvider::Tavily => client
                .post(url.clone())
                .header(AUTHORIZATION, format!("Bearer {}", key.unwrap_or_default()))
                .header(CONTENT_TYPE, "application/json")
                .body(json!({"query": query, "max_results": RESULTS}).to_string()),
        };
        let body = self.answer(&url, request).await?;
        let hits = parse_hits(self.provider, &body, RESULTS)?;
        Ok(render_hits(query, &hits))
    }

    /// Sends `request` and returns the body of a success answer.
    async fn answer(
        &self,
        url: &Url,
        request: reqwest::RequestBuilder,
    ) -> Result<Vec<u8>, WebError> {
        let response = send(url, request.header(ACCEPT, "application/json")).await?;
        if !response.status.is_success() {
            let body: String = String::from_utf8_lossy(&response.body)
                .chars()
                .take(300)
                .collect();
            return Err(WebError::Refused {
                service: self.provider.to_string(),
                status: response.status.to_string(),
                body: body.trim().to_owned(),
            });
        }
        Ok(response.body)
    }

    /// A search through Kimi's built-in `$web_search`: its calls are answered with their own
    /// arguments until it answers with the results.
    async fn kimi(
        &self,
        query: &str,
        key: Option<String>,
        client: &reqwest::Client,
    ) -> Result<String, WebError> {
        let model = self
            .model
            .as_deref()
            .ok_or_else(|| WebError::Unconfigured {
                service: "kimi".into(),
                detail: "a model: set [web_search] model to the Kimi model that searches".into(),
            })?;
        let mut url = self.url.clone();
        url.set_path(&kimi_search::chat_completions_path(url.path()));
        let mut messages = kimi_search::first_messages(query);
        for _ in 0..kimi_search::MAX_ROUNDS {
            let request = client
                .post(url.clone())
                .header(
                    AUTHORIZATION,
                    format!("Bearer {}", key.clone().unwrap_or_default()),
                )
                .header(CONTENT_TYPE, "application/json")
                .body(kimi_search::request_body(model, &messages).to_string());
            match kimi_search::next_step(&self.answer(&url, request).await?)? {
                KimiStep::Answer(text) => return Ok(text),
                KimiStep::Search(more) => messages.extend(more),
            }
        }
        Err(WebError::UnusableAnswer {
            service: "kimi".into(),
            detail: format!("still searching after {} requests", kimi_search::MAX_ROUNDS),
        })
    }
}

impl Tool for WebSearch {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("web_search")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("web_search", arguments)?;
            if args.query.trim().is_empty() {
                return Ok(ToolOutput::error("the query is empty"));
            }
            let searched = tokio::select! {
                searched = self.search(args.query.trim()) => searched,
                () = context.cancel.cancelled() => {
                    return Err(ToolError::Cancelled { tool: "web_search".into() });
                }
            };
            Ok(match searched {
                Ok(text) => ToolOutput::ok(text),
                Err(e) => ToolOutput::error(e.to_string()),
            })
        })
    }
}
