//! `web_fetch`: an http(s) page as Markdown (HTML converted; text, JSON and XML as they are).
//! Redirects on the same host are followed (at most five); a redirect to another host is
//! reported with its target, not followed, so the permission rules judge every host.
//!
//! The rule: the host is judged by the addresses it resolves to before anything is sent; a
//! private one needs an allow rule naming the host ([`crate::PrivateHostAllowance`]).

use reqwest::Url;
use reqwest::header::ACCEPT;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::clamp::MODEL_OUTPUT_CHARS;
use crate::context::ToolContext;
use crate::page_focus::focus;
use crate::page_markdown::{html_to_markdown, title};
use crate::schema::parameters_of;
use crate::tool::{Tool, ToolError, ToolFuture, ToolOutput, parse_arguments};
use crate::web_request::{
    BODY_LIMIT, WebError, WebResponse, parse_web_url, resolve_checked, rule_host, send, web_client,
};

/// Same-host redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;
/// Characters of the page shown (below the runtime's clamp, so the page is not cut twice).
const SHOWN_CHARS: usize = MODEL_OUTPUT_CHARS - 2_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    url: String,
    /// What to look for in a long page.
    #[serde(default)]
    prompt: Option<String>,
}

/// The tool.
#[derive(Debug)]
pub struct WebFetch;

impl Tool for WebFetch {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("web_fetch")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("web_fetch", arguments)?;
            tokio::select! {
                output = fetch(&args, context) => Ok(output),
                () = context.cancel.cancelled() => Err(ToolError::Cancelled { tool: "web_fetch".into() }),
            }
        })
    }
}

async fn fetch(args: &Args, context: &ToolContext) -> ToolOutput {
    let mut url = match parse_web_url(&args.url) {
        Ok(url) => url,
        Err(e) => return ToolOutput::error(e.to_string()),
    };
    let mut redirects = 0;
    loop {
        let response = match get(&url, context).await {
            Ok(response) => response,
            Err(e) => return ToolOutput::error(e.to_string()),
        };
        if !response.status.is_redirection() {
            return render(&url, response, args.prompt.as_deref()).await;
        }
        let Some(target) = response
            .location
            .as_deref()
            .and_then(|location| url.join(location).ok())
        else {
            return ToolOutput::error(format!(
                "{url} answered {} without a usable Location",
                response.status
            ));
        };
        if rule_host(&target) != rule_host(&url) {
            return ToolOutput::ok(format!(
                "{url} redirects ({}) to another host: {target}\nNot followed; fetch that URL if it is the page you want.",
                response.status
            ));
        }
        redirects += 1;
        if redirects > MAX_REDIRECTS {
            return ToolOutput::error(format!(
                "{} redirected more than {MAX_REDIRECTS} times (last to {target}); not followed further",
                args.url
            ));
        }
        url = target;
    }
}

/// One GET of `url`, connecting only to the addresses its host was judged by.
async fn get(url: &Url, context: &ToolContext) -> Result<WebResponse, WebError> {
    let addresses = resolve_checked(url, context.private_hosts.as_deref()).await?;
    let host = url.host_str().unwrap_or_default();
    let client = web_client(Some((host, &addresses)))?;
    let request = client.get(url.clone()).header(
        ACCEPT,
        "text/html, text/markdown, text/plain;q=0.9, application/json;q=0.8, */*;q=0.5",
    );
    send(url, request).await
}

/// What the model is shown of a response.
async fn render(url: &Url, response: WebResponse, prompt: Option<&str>) -> ToolOutput {
    let media = response
        .content_type
        .as_deref()
        .and_then(|c| c.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase());
    let text = String::from_utf8_lossy(&response.body);
    let kind = match media.as_deref() {
        Some("text/html" | "application/xhtml+xml") => Body::Html,
        Some(m)
            if m.starts_with("text/")
                || m.ends_with("json")
                || m.ends_with("xml")
                || m == "application/javascript" =>
        {
            Body::Text
        }
        None if text.trim_start().starts_with('<') && text.contains("<html") => Body::Html,
        None if !response.body.contains(&0) => Body::Text,
        _ => Body::Binary,
    };
    let size = response.body.len();
    let mut header = format!("{url} ({} {size} bytes", response.status.as_u16());
    if let Some(media) = &media {
        header.push_str(&format!(", {media}"));
    }
    if response.truncated {
        header.push_str(&format!(", cut at {} MiB", BODY_LIMIT / (1024 * 1024)));
    }
    header.push(')');
    let page = match kind {
        Body::Binary => {
            return ToolOutput::error(format!("{header}: not text; not shown"));
        }
        Body::Text => text.into_owned(),
        Body::Html => {
            if let Some(title) = title(&text) {
                header.push_str(&format!("\ntitle: {title}"));
            }
            html_to_markdown(text.into_owned()).await
        }
    };
    let shown = focus(&page, prompt, SHOWN_CHARS);
    let output = format!("{header}\n\n{shown}");
    if response.status.is_success() {
        ToolOutput::ok(output)
    } else {
        ToolOutput::error(output)
    }
}

enum Body {
    Html,
    Text,
    Binary,
}
