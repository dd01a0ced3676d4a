//! `web_fetch` and `web_search` over real HTTP, against pages the test serves on loopback.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use kigi_testkit::{Page, PageServer};
use kigi_tools::builtin::web_search::WebSearch;
use kigi_tools::{
    PrivateHostAllowance, Tool, ToolContext, ToolOutput, ToolRegistry, WebSearchProvider,
};
use serde_json::{Value, json};

/// Allows exactly the hosts it lists, as an allow rule would.
#[derive(Debug)]
struct Allow(&'static [&'static str]);

impl PrivateHostAllowance for Allow {
    fn allows(&self, host: &str) -> bool {
        self.0.contains(&host)
    }
}

fn context(allowed: &'static [&'static str]) -> ToolContext {
    let mut context = ToolContext::new(std::env::temp_dir());
    context.private_hosts = Some(Arc::new(Allow(allowed)));
    context
}

async fn fetch(context: &ToolContext, args: Value) -> ToolOutput {
    ToolRegistry::built_in()
        .get("web_fetch")
        .unwrap()
        .execute(args, context)
        .await
        .unwrap()
}

const ARTICLE: &str = r#"<!doctype html><html><head><title>Release 1.2</title>
<script>track()</script></head><body><nav><a href="/">Home</a></nav>
<h1>Release 1.2</h1><p>The <strong>fast</strong> path is now the default.</p>
<ul><li>Fixes a crash</li><li>Adds <code>--json</code></li></ul></body></html>"#;

#[tokio::test]
async fn web_fetch_returns_a_loopback_page_as_markdown_when_a_rule_allows_the_host() {
    let server = PageServer::start(vec![("/release", Page::html(ARTICLE))])
        .await
        .unwrap();
    let url = format!("{}/release", server.url());
    let output = fetch(&context(&["127.0.0.1"]), json!({"url": url})).await;
    assert!(!output.is_error, "{}", output.content);
    let text = &output.content;
    assert!(text.starts_with(&format!("{url} (200 ")), "{text}");
    assert!(
        text.contains("text/html)\ntitle: Release 1.2\n\n"),
        "{text}"
    );
    assert!(
        text.contains("# Release 1.2\n\nThe **fast** path is now the default."),
        "{text}"
    );
    assert!(
        text.contains("Fixes a crash") && text.contains("`--json`"),
        "{text}"
    );
    assert!(!text.contains("track()"), "{text}");
    assert_eq!(server.requests(), vec!["/release"]);
}

#[tokio::test]
async fn web_fetch_refuses_a_loopback_address_or_name_no_rule_names() {
    let server = PageServer::start(vec![("/", Page::html("<p>secret</p>"))])
        .await
        .unwrap();
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    for (url, host) in [
        (format!("http://127.0.0.1:{port}/"), "127.0.0.1"),
        (format!("http://localhost:{port}/"), "localhost"),
    ] {
        let output = fetch(&ToolContext::new(std::env::temp_dir()), json!({"url": url})).await;
        assert!(output.is_error, "{}", output.content);
        assert!(
            output.content.contains(&format!(
                "needs an explicit allow rule: WebFetch(domain:{host})"
            )),
            "{}",
            output.content
        );
    }
    // A rule for one host does not open another.
    let other = fetch(
        &context(&["127.0.0.1"]),
        json!({"url": format!("http://localhost:{port}/")}),
    )
    .await;
    assert!(other.is_error, "{}", other.content);
    assert!(server.requests().is_empty(), "nothing may be sent");
    // The name is judged by what it resolves to: with its rule, `localhost` is fetched.
    let named = fetch(
        &context(&["localhost"]),
        json!({"url": format!("http://localhost:{port}/")}),
    )
    .await;
    assert!(named.content.contains("secret"), "{}", named.content);
}

#[tokio::test]
async fn same_host_redirects_are_followed_and_another_hosts_are_reported() {
    let server = PageServer::start(vec![
        ("/old", Page::redirect("/new")),
        ("/new", Page::html("<p>moved here</p>")),
        ("/away", Page::redirect("http://localhost:9/elsewhere")),
    ])
    .await
    .unwrap();
    let allowed = context(&["127.0.0.1"]);
    let followed = fetch(&allowed, json!({"url": format!("{}/old", server.url())})).await;
    assert!(
        followed.content.contains("moved here"),
        "{}",
        followed.content
    );
    assert!(
        followed
            .content
            .starts_with(&format!("{}/new (200", server.url()))
    );
    let reported = fetch(&allowed, json!({"url": format!("{}/away", server.url())})).await;
    assert!(!reported.is_error);
    assert_eq!(
        reported.content,
        format!(
            "{}/away redirects (302 Found) to another host: http://localhost:9/elsewhere\nNot followed; fetch that URL if it is the page you want.",
            server.url()
        )
    );
    assert_eq!(server.requests(), vec!["/old", "/new", "/away"]);
}

#[tokio::test]
async fn errors_binary_bodies_and_other_schemes_are_reported_not_shown() {
    let server = PageServer::start(vec![(
        "/bin",
        Page::of("application/octet-stream", "\u{0}\u{1}"),
    )])
    .await
    .unwrap();
    let allowed = context(&["127.0.0.1"]);
    let missing = fetch(&allowed, json!({"url": format!("{}/nope", server.url())})).await;
    assert!(missing.is_error);
    assert!(
        missing
            .content
            .contains("(404 9 bytes, text/plain)\n\nnot found"),
        "{}",
        missing.content
    );
    let binary = fetch(&allowed, json!({"url": format!("{}/bin", server.url())})).await;
    assert!(binary.is_error);
    assert!(
        binary
            .content
            .ends_with("application/octet-stream): not text; not shown"),
        "{}",
        binary.content
    );
    let file = fetch(&allowed, json!({"url": "file:///etc/passwd"})).await;
    assert!(file.is_error);
    assert!(
        file.content.contains("scheme file is not fetched"),
        "{}",
        file.content
    );
}

#[tokio::test]
async fn a_long_page_shows_the_sections_the_prompt_asks_about() {
    let filler = "<p>".to_owned() + &"Lorem ipsum dolor sit amet. ".repeat(400) + "</p>";
    let mut html = String::new();
    for n in 0..10 {
        html.push_str(&format!("<h2>Chapter {n}</h2>{filler}"));
    }
    html.push_str("<h2>Proxy</h2><p>Set HTTPS_PROXY to use a proxy.</p>");
    html.push_str(&format!("<h2>Appendix</h2>{filler}"));
    let server = PageServer::start(vec![("/manual", Page::html(html))])
        .await
        .unwrap();
    let url = format!("{}/manual", server.url());
    let allowed = context(&["127.0.0.1"]);
    let focused = fetch(&allowed, json!({"url": url, "prompt": "proxy settings"})).await;
    assert!(
        focused.content.contains("## Proxy\n\nSet HTTPS\\_PROXY"),
        "{}",
        focused.content
    );
    assert!(
        focused
            .content
            .contains("those mentioning \"proxy settings\"")
    );
    let head = fetch(&allowed, json!({"url": url})).await;
    assert!(head.content.contains("## Chapter 0"));
    assert!(!head.content.contains("## Proxy"));
    assert!(head.content.contains("more characters; give a prompt"));
}

#[tokio::test]
async fn web_search_through_searxng_lists_its_results() {
    let server = PageServer::start(vec![(
        "/search",
        Page::json(
            r#"{"query":"rust async","results":[
                {"title":"Async Rust","url":"https://rust-lang.github.io/async-book/","content":"The async book."},
                {"title":"Tokio","url":"https://tokio.rs","content":"A runtime."}]}"#,
        ),
    )])
    .await
    .unwrap();
    let tool = WebSearch::new(WebSearchProvider::Searxng, Some(&server.url()), None).unwrap();
    let output = tool
        .execute(
            json!({"query": "rust async"}),
            &ToolContext::new(std::env::temp_dir()),
        )
        .await
        .unwrap();
    assert_eq!(
        output,
        ToolOutput::ok(
            "1. [Async Rust](https://rust-lang.github.io/async-book/)\n   The async book.\n2. [Tokio](https://tokio.rs)\n   A runtime."
        )
    );
    assert_eq!(server.requests(), vec!["/search?q=rust+async&format=json"]);
}

#[tokio::test]
async fn web_search_names_the_missing_key_variable_and_a_searxng_url_is_required() {
    let tool = WebSearch::new(
        WebSearchProvider::Brave,
        Some("http://127.0.0.1:9/"),
        Some("KIGI_TEST_SURELY_UNSET_KEY".into()),
    )
    .unwrap();
    let output = tool
        .execute(
            json!({"query": "x"}),
            &ToolContext::new(std::env::temp_dir()),
        )
        .await
        .unwrap();
    assert!(output.is_error);
    assert_eq!(
        output.content,
        "web search through brave needs an API key: $KIGI_TEST_SURELY_UNSET_KEY ([web_search] api_key_env) is not set"
    );
    let err = WebSearch::new(WebSearchProvider::Searxng, None, None).unwrap_err();
    assert!(
        err.to_string()
            .contains("provider = \"searxng\" needs `url`"),
        "{err}"
    );
}
