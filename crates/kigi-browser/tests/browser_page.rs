//! The browser tools against a real headless Chromium and pages this test serves on loopback:
//! open a form, read it as a numbered snapshot, type into its field, click submit, read the
//! text the next page shows, take a PNG screenshot, read the console; a loopback page needs a
//! rule naming the host, and a page on an allowed host cannot make the browser reach another
//! private host (redirects, images, frames, fetches, forms); the browser's process group is
//! gone once the tools are dropped.
//!
//! Chromium must be installed (`apt install chromium`; `.ci/run` does it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;

use kigi_browser::{BrowserSession, LaunchOptions, browser_tools};
use kigi_testkit::{Page, PageServer};
use kigi_tools::{PrivateHostAllowance, Tool, ToolContext, ToolOutput};
use serde_json::{Value, json};

const FORM: &str = r#"<!doctype html><html><head><title>Sign up</title></head><body>
<h1>Sign up</h1>
<p>Tell us your name.</p>
<form action="/submitted" method="get">
  <label for="name">Name</label> <input id="name" name="name" placeholder="Your name">
  <button type="submit">Send</button>
</form>
<a href="/about">About us</a>
<script>console.log("form ready")</script>
</body></html>"#;

const SUBMITTED: &str = r#"<!doctype html><html><head><title>Done</title></head><body>
<h1>Done</h1><p id="out"></p>
<script>document.getElementById("out").textContent = "Thanks, " + new URLSearchParams(location.search).get("name") + "!";</script>
</body></html>"#;

/// Every host allowed (as an allow rule naming it would).
#[derive(Debug)]
struct AnyHost;

impl PrivateHostAllowance for AnyHost {
    fn allows(&self, _host: &str) -> bool {
        true
    }
}

/// Only the host named (as `WebFetch(domain:<host>)` would allow).
#[derive(Debug)]
struct OnlyHost(&'static str);

impl PrivateHostAllowance for OnlyHost {
    fn allows(&self, host: &str) -> bool {
        host == self.0
    }
}

fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!("these tests need Chromium on PATH: apt install chromium");
}

struct Browser {
    session: Arc<BrowserSession>,
    tools: Vec<Arc<dyn Tool>>,
    context: ToolContext,
    _tmp: tempfile::TempDir,
}

impl Browser {
    fn new(allow_loopback: bool) -> Self {
        Self::with_rules(allow_loopback.then(|| Arc::new(AnyHost) as Arc<dyn PrivateHostAllowance>))
    }

    fn with_rules(rules: Option<Arc<dyn PrivateHostAllowance>>) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let mut context = ToolContext::new(tmp.path());
        context.private_hosts = rules;
        let session = Arc::new(BrowserSession::new(LaunchOptions {
            executable: chromium(),
            headless: true,
        }));
        Self {
            tools: browser_tools(&session),
            session,
            context,
            _tmp: tmp,
        }
    }

    async fn call(&self, name: &str, args: Value) -> ToolOutput {
        let tool = self
            .tools
            .iter()
            .find(|t| t.spec().name == name)
            .unwrap_or_else(|| panic!("no tool {name}"));
        tool.execute(args, &self.context).await.unwrap()
    }

    async fn ok(&self, name: &str, args: Value) -> ToolOutput {
        let out = self.call(name, args).await;
        assert!(!out.is_error, "{name} failed: {}", out.content);
        out
    }
}

async fn pages() -> PageServer {
    PageServer::start(vec![
        ("/form", Page::html(FORM)),
        ("/submitted", Page::html(SUBMITTED)),
    ])
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_is_filled_submitted_and_its_result_read_back() {
    let server = pages().await;
    let browser = Browser::new(true);

    let opened = browser
        .ok(
            "browser_open",
            json!({"url": format!("{}/form", server.url())}),
        )
        .await;
    assert_eq!(
        opened.content,
        format!(
            "Page: Sign up\nURL: {}/form\n\n# Sign up\nTell us your name.\nName [1] textbox \"Name\" value=\"\" [2] button \"Send\"\n[3] link \"About us\" (/about)\n\n(3 interactive elements; refer to them by [n])",
            server.url()
        )
    );

    let typed = browser
        .ok("browser_type", json!({"element": 1, "text": "Ada"}))
        .await;
    assert_eq!(typed.content, "Typed into [1].");
    let snapshot = browser.ok("browser_snapshot", json!({})).await;
    assert!(
        snapshot
            .content
            .contains("[1] textbox \"Name\" value=\"Ada\""),
        "{}",
        snapshot.content
    );

    let clicked = browser.ok("browser_click", json!({"element": 2})).await;
    let waited = browser
        .ok("browser_wait", json!({"text": "Thanks, Ada!"}))
        .await;
    assert_eq!(waited.content, "The page shows \"Thanks, Ada!\".");
    let after = browser.ok("browser_snapshot", json!({})).await;
    assert!(
        after.content.contains("# Done\nThanks, Ada!"),
        "{}\n(click said: {})",
        after.content,
        clicked.content
    );
    assert!(
        server
            .requests()
            .contains(&"/submitted?name=Ada".to_owned()),
        "{:?}",
        server.requests()
    );

    let shot = browser.ok("browser_screenshot", json!({})).await;
    assert_eq!(shot.images.len(), 1);
    assert_eq!(shot.images[0].media_type, "image/png");
    // Base64 of the PNG signature (89 50 4E 47 0D 0A 1A 0A).
    assert!(shot.images[0].data.starts_with("iVBORw0KGgo"));

    // The form page logged once; reading empties the log.
    let console = browser.ok("browser_console", json!({})).await;
    assert!(
        console.content.contains("log: form ready"),
        "{}",
        console.content
    );
    let again = browser.ok("browser_console", json!({})).await;
    assert_eq!(again.content, "No console messages since the last read.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pressing_enter_in_the_field_submits_the_form() {
    let server = pages().await;
    let browser = Browser::new(true);
    browser
        .ok(
            "browser_open",
            json!({"url": format!("{}/form", server.url())}),
        )
        .await;
    let submitted = browser
        .ok(
            "browser_type",
            json!({"element": 1, "text": "Grace", "submit": true}),
        )
        .await;
    let waited = browser
        .ok(
            "browser_wait",
            json!({"text": "Thanks, Grace!", "timeout_secs": 20}),
        )
        .await;
    assert!(!waited.is_error, "{}", submitted.content);
    let missing = browser.call("browser_click", json!({"element": 9})).await;
    assert!(missing.is_error);
    assert!(
        missing
            .content
            .starts_with("there is no element [9] on the page now"),
        "{}",
        missing.content
    );
    let unknown_key = browser
        .call("browser_press", json!({"keys": "Hyper+x"}))
        .await;
    assert!(
        unknown_key.content.starts_with("unknown key `Hyper+x`"),
        "{}",
        unknown_key.content
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_page_needs_a_rule_and_other_schemes_are_refused() {
    let server = pages().await;
    let browser = Browser::new(false);
    let refused = browser
        .call(
            "browser_open",
            json!({"url": format!("{}/form", server.url())}),
        )
        .await;
    assert!(refused.is_error);
    assert!(
        refused.content.contains("WebFetch(domain:127.0.0.1)"),
        "{}",
        refused.content
    );
    let file = browser
        .call("browser_open", json!({"url": "file:///etc/passwd"}))
        .await;
    assert!(file.is_error);
    assert!(
        file.content.contains("scheme file is not fetched"),
        "{}",
        file.content
    );
    assert!(server.requests().is_empty());
    // Nothing was opened, so no browser was started.
    assert_eq!(browser.session.browser_pid().await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_an_allowed_host_cannot_reach_a_private_host_no_rule_names() {
    // `localhost` reaches the same loopback interface, but no rule names it.
    let private = PageServer::start(vec![
        ("/secret", Page::html("<p>secret</p>")),
        ("/pixel", Page::of("image/gif", "GIF89a")),
        ("/fetched", Page::json("{}")),
        ("/framed", Page::html("<p>framed</p>")),
        ("/sent", Page::html("<p>sent</p>")),
    ])
    .await
    .unwrap();
    let port = private.url().rsplit(':').next().unwrap().to_owned();
    let other = format!("http://localhost:{port}");
    let start = format!(
        r#"<!doctype html><html><head><title>Start</title></head><body>
<img src="/allowed-pixel"><img src="{other}/pixel"><iframe src="{other}/framed"></iframe>
<p id="out">pending</p>
<form action="{other}/sent" method="get"><input name="q" value="x"><button>Send</button></form>
<script>fetch("{other}/fetched").then(() => out.textContent = "fetch reached", () => out.textContent = "fetch refused")</script>
</body></html>"#
    );
    let allowed = PageServer::start(vec![
        ("/start", Page::html(start)),
        ("/allowed-pixel", Page::of("image/gif", "GIF89a")),
        ("/redirect", Page::redirect(format!("{other}/secret"))),
    ])
    .await
    .unwrap();
    let browser = Browser::with_rules(Some(Arc::new(OnlyHost("127.0.0.1"))));

    browser
        .ok(
            "browser_open",
            json!({"url": format!("{}/start", allowed.url())}),
        )
        .await;
    browser
        .ok("browser_wait", json!({"text": "fetch refused"}))
        .await;
    // The form's target is refused too (the click's page fails to load or stays put).
    let _ = browser.call("browser_click", json!({"element": 2})).await;
    let redirected = browser
        .call(
            "browser_open",
            json!({"url": format!("{}/redirect", allowed.url())}),
        )
        .await;
    assert!(redirected.is_error, "{}", redirected.content);
    assert!(
        redirected.content.contains("ERR_BLOCKED_BY_CLIENT"),
        "{}",
        redirected.content
    );
    // The page's own host is still reachable (the rule that allowed it holds).
    let mut seen = allowed.requests();
    seen.retain(|path| path != "/favicon.ico");
    assert_eq!(seen, vec!["/start", "/allowed-pixel", "/redirect"]);
    assert_eq!(private.requests(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_process_group_is_gone_once_closed_or_the_tools_are_dropped() {
    let server = pages().await;
    let browser = Browser::new(true);
    browser
        .ok(
            "browser_open",
            json!({"url": format!("{}/form", server.url())}),
        )
        .await;
    let first = browser.session.browser_pid().await.unwrap();
    assert!(group_members(first) > 0);
    // Closed on purpose: gone, and the next call starts a new browser.
    browser.session.close().await;
    assert_eq!(browser.session.browser_pid().await, None);
    let left = tokio::task::spawn_blocking(move || wait_group_empty(first))
        .await
        .unwrap();
    assert_eq!(left, 0, "processes of group {first} are left after close");
    browser.ok("browser_snapshot", json!({})).await;
    let pid = browser.session.browser_pid().await.unwrap();
    assert_ne!(pid, first);
    drop(browser);
    let gone = tokio::task::spawn_blocking(move || {
        !kigi_testkit::process_probe::still_running(&pid.to_string())
    })
    .await
    .unwrap();
    assert!(gone, "browser {pid} outlived its tools");
    let left = tokio::task::spawn_blocking(move || wait_group_empty(pid))
        .await
        .unwrap();
    assert_eq!(left, 0, "processes of group {pid} are left");
}

/// Live (not zombie) processes in group `pgid`.
fn group_members(pgid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            let fields: Vec<&str> = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            // After the name: state, ppid, pgrp.
            fields.first().is_some_and(|s| *s != "Z")
                && fields.get(2) == Some(&pgid.to_string().as_str())
        })
        .count()
}

/// The group's live members after at most five seconds.
fn wait_group_empty(pgid: u32) -> usize {
    let ceiling = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let left = group_members(pgid);
        if left == 0 || std::time::Instant::now() >= ceiling {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
