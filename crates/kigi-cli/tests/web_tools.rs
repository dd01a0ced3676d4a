//! `web_fetch` and `web_search` through the real `kigi -p` binary and the scripted model,
//! against pages and a fake SearXNG the test serves on loopback: a loopback fetch needs a rule
//! naming the host, a configured search service answers, and without one the model is never
//! offered `web_search`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_testkit::{Page, PageServer, Step};
use serde_json::json;
use support::{Env, stderr, tool_results};

/// The tool names the first request offered.
fn offered_tools(env: &Env) -> Vec<String> {
    env.server().requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

fn page_server(env: &Env) -> PageServer {
    env.runtime
        .block_on(PageServer::start(vec![
            (
                "/notes",
                Page::html("<html><body><h1>Notes</h1><p>Ship on <em>Friday</em>.</p></body></html>"),
            ),
            (
                "/search",
                Page::json(
                    r#"{"results":[{"title":"Kigi docs","url":"https://example.com/kigi","content":"How kigi works."}]}"#,
                ),
            ),
        ]))
        .unwrap()
}

fn fetching(url: &str) -> Env {
    Env::new(vec![
        Step::calls(vec![("web_fetch", json!({ "url": url }))]),
        Step::text("done"),
    ])
}

#[test]
fn a_loopback_fetch_is_refused_without_a_rule_and_runs_with_one_naming_the_host() {
    // The page server must exist before the scripted steps name its URL.
    let probe = Env::new(vec![Step::text("unused")]);
    let pages = page_server(&probe);
    let url = format!("{}/notes", pages.url());

    let refused = fetching(&url);
    let out = refused.kigi(&["-p", "go", "--permission-mode", "bypassPermissions"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_results(&refused);
    assert!(
        results[0].contains("127.0.0.1 is a loopback, private or link-local address")
            && results[0].contains("WebFetch(domain:127.0.0.1)"),
        "{results:?}"
    );
    assert!(pages.requests().is_empty(), "nothing may reach the page");

    let allowed = fetching(&url);
    let out = allowed.kigi(&["-p", "go", "--allowedTools", "WebFetch(domain:127.0.0.1)"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_results(&allowed);
    assert!(
        results[0].contains("# Notes\n\nShip on *Friday*."),
        "{results:?}"
    );
    assert_eq!(pages.requests(), vec!["/notes"]);
}

#[test]
fn a_public_fetch_with_nobody_to_ask_is_refused_naming_the_rule_to_add() {
    let env = fetching("https://example.com/page");
    let out = env.kigi(&["-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_results(&env);
    assert!(
        results[0].contains("fetching example.com needs approval")
            && results[0].contains("WebFetch(domain:example.com)"),
        "{results:?}"
    );
}

#[test]
fn web_search_is_offered_only_with_a_provider_and_returns_its_results() {
    let env = Env::new(vec![
        Step::calls(vec![("web_search", json!({"query": "kigi agents"}))]),
        Step::text("done"),
    ]);
    let pages = page_server(&env);
    // No provider: the model is not offered the tool (web_fetch it is).
    let out = env.kigi(&["-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let offered = offered_tools(&env);
    assert!(offered.contains(&"web_fetch".to_owned()), "{offered:?}");
    assert!(!offered.contains(&"web_search".to_owned()), "{offered:?}");
    assert!(tool_results(&env)[0].contains("unknown tool `web_search`"));

    std::fs::write(
        env.home.join("config.toml"),
        format!(
            "[web_search]\nprovider = \"searxng\"\nurl = \"{}\"\n",
            pages.url()
        ),
    )
    .unwrap();
    let configured = Env::new(vec![
        Step::calls(vec![("web_search", json!({"query": "kigi agents"}))]),
        Step::text("done"),
    ]);
    std::fs::copy(
        env.home.join("config.toml"),
        configured.home.join("config.toml"),
    )
    .unwrap();
    let out = configured.kigi(&["-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(offered_tools(&configured).contains(&"web_search".to_owned()));
    assert!(
        tool_results(&configured)[0]
            .contains("1. [Kigi docs](https://example.com/kigi)\n   How kigi works."),
        "{:?}",
        tool_results(&configured)
    );
    assert_eq!(pages.requests(), vec!["/search?q=kigi+agents&format=json"]);
}

#[test]
fn the_web_search_template_variable_renders_empty_without_a_provider() {
    let prompt_of = |config: Option<&str>| {
        let env = Env::new(vec![Step::text("done")]);
        std::fs::create_dir_all(env.home.join("agents")).unwrap();
        std::fs::write(
            env.home.join("agents/seeker.md"),
            "---\nname: seeker\ndescription: Looks things up\npromptMode: full\n---\nsearch=[${{ tools.web_search }}] fetch=[${{ tools.web_fetch }}]\n",
        )
        .unwrap();
        if let Some(config) = config {
            std::fs::write(env.home.join("config.toml"), config).unwrap();
        }
        let out = env.kigi(&["-p", "go", "--agent", "seeker"]);
        assert!(out.status.success(), "{}", stderr(&out));
        env.server().requests()[0].body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let bare = prompt_of(None);
    assert!(bare.contains("search=[] fetch=[web_fetch]"), "{bare}");
    let configured = prompt_of(Some(
        "[web_search]\nprovider = \"searxng\"\nurl = \"http://127.0.0.1:9\"\n",
    ));
    assert!(
        configured.contains("search=[web_search] fetch=[web_fetch]"),
        "{configured}"
    );
}

/// A fake Kimi chat completions endpoint on loopback: a request without a tool message is
/// answered with a `$web_search` call, one with the call's arguments sent back with the
/// results. Each request's authorization header and JSON body is recorded.
struct FakeKimi {
    url: String,
    requests: std::sync::Arc<std::sync::Mutex<Vec<(String, String, serde_json::Value)>>>,
}

const SEARCH_ARGUMENTS: &str =
    r#"{"search_result":{"search_id":"s-42"},"usage":{"total_tokens":900}}"#;

impl FakeKimi {
    fn start() -> Self {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = std::sync::Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let (mut path, mut auth, mut length) = (String::new(), String::new(), 0usize);
                let mut line = String::new();
                // Headers, at most 100 lines; the body by its length, at most 1 MB.
                for n in 0..100 {
                    line.clear();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    let lower = line.to_ascii_lowercase();
                    if n == 0 {
                        path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                    } else if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0).min(1 << 20);
                    } else if lower.starts_with("authorization:") {
                        auth = line["authorization:".len()..].trim().to_owned();
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
                let searched = body["messages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|m| m["role"] == "tool");
                let answer = if searched {
                    json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
                        "content": "1. [Kigi docs](https://example.com/kigi)\n   How kigi works."}}]})
                } else {
                    json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": "",
                        "tool_calls": [{"index": 0, "id": "web_search:0", "type": "builtin_function",
                            "function": {"name": "$web_search", "arguments": SEARCH_ARGUMENTS}}]}}]})
                }
                .to_string();
                log.lock().unwrap().push((path, auth, body));
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            }
        });
        Self { url, requests }
    }
}

#[test]
fn web_search_through_kimi_answers_its_search_call_and_returns_its_results() {
    let kimi = FakeKimi::start();
    let env = Env::new(vec![
        Step::calls(vec![("web_search", json!({"query": "kigi agents"}))]),
        Step::text("done"),
    ]);
    std::fs::write(
        env.home.join("config.toml"),
        format!(
            "[web_search]\nprovider = \"kimi\"\nurl = \"{}\"\napi_key_env = \"KIGI_TEST_KIMI_KEY\"\nmodel = \"kimi-search\"\n",
            kimi.url
        ),
    )
    .unwrap();
    let out = env
        .command(&["-p", "go"])
        .env("KIGI_TEST_KIMI_KEY", "sk-kimi-test")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(offered_tools(&env).contains(&"web_search".to_owned()));
    assert_eq!(
        tool_results(&env)[0],
        "1. [Kigi docs](https://example.com/kigi)\n   How kigi works."
    );
    let requests = kimi.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 2, "{requests:?}");
    for (path, auth, body) in &requests {
        assert_eq!(path, "/v1/chat/completions");
        assert_eq!(auth, "Bearer sk-kimi-test");
        assert_eq!(body["model"], "kimi-search");
        assert_eq!(
            body["tools"],
            json!([{"type": "builtin_function", "function": {"name": "$web_search"}}])
        );
    }
    let first = requests[0].2["messages"].as_array().unwrap();
    assert_eq!(
        first.last().unwrap(),
        &json!({"role": "user", "content": "kigi agents"})
    );
    // The second request carries the call and its arguments back verbatim.
    let second = requests[1].2["messages"].as_array().unwrap();
    assert_eq!(second.len(), first.len() + 2);
    assert_eq!(second[first.len()]["tool_calls"][0]["id"], "web_search:0");
    assert_eq!(
        second[first.len() + 1],
        json!({"role": "tool", "tool_call_id": "web_search:0", "name": "$web_search", "content": SEARCH_ARGUMENTS})
    );
}
