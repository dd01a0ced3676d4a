//! The built-in `browser-use` agent through the real `kigi -p` binary and the scripted model:
//! the main agent spawns a `browser-use` child, which drives a real headless Chromium against
//! a form this test serves on loopback (open, type, click submit, wait for the answer, take a
//! screenshot), with the screenshot in the child's transcript; without a browser the agent is
//! still listed, says how to install one, and spawning it fails with that reason.
//!
//! Chromium must be installed (`apt install chromium`; `.ci/run` does it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_testkit::{Page, PageServer, Script, ScriptSet, Step};
use serde_json::{Value, json};
use support::{Env, result_of, stderr, stdout};

const FORM: &str = r#"<!doctype html><html><head><title>Sign up</title></head><body>
<h1>Sign up</h1>
<form action="/submitted" method="get">
  <label for="name">Name</label> <input id="name" name="name">
  <button type="submit">Send</button>
</form></body></html>"#;

const SUBMITTED: &str = r#"<!doctype html><html><head><title>Done</title></head><body>
<p id="out"></p>
<script>document.getElementById("out").textContent = "Thanks, " + new URLSearchParams(location.search).get("name") + "!";</script>
</body></html>"#;

/// The parent delegates to `browser-use`, then answers with a fixed line.
fn parent() -> Script {
    Script::matching(
        "#parent",
        vec![
            Step::calls(vec![(
                "spawn_subagent",
                json!({"prompt": "#browse sign up as Ada and say what the page answers",
                       "description": "sign up", "subagent_type": "browser-use"}),
            )]),
            Step::text("The child reported."),
        ],
    )
}

fn tool_results(events: &[Value]) -> Vec<(String, String)> {
    events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_owned(),
                e["output"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_browser_use_child_fills_a_form_and_reports_the_answer_with_a_screenshot() {
    let pages_runtime = tokio::runtime::Runtime::new().unwrap();
    let pages = pages_runtime
        .block_on(PageServer::start(vec![
            ("/form", Page::html(FORM)),
            ("/submitted", Page::html(SUBMITTED)),
        ]))
        .unwrap();
    let child = Script::matching(
        "#browse",
        vec![
            Step::calls(vec![(
                "browser_open",
                json!({"url": format!("{}/form", pages.url())}),
            )]),
            Step::calls(vec![("browser_type", json!({"element": 1, "text": "Ada"}))]),
            Step::calls(vec![("browser_click", json!({"element": 2}))]),
            Step::calls(vec![("browser_wait", json!({"text": "Thanks, Ada!"}))]),
            Step::calls(vec![("browser_screenshot", json!({}))]),
            Step::text("The page answers: Thanks, Ada!"),
        ],
    );
    let env = Env::with_scripts(ScriptSet::default().with(parent()).with(child));
    // The scripted model reads images, so the screenshot is sent on and recorded.
    std::fs::write(
        env.home.join("config.toml"),
        "[models.scripted]\nimages = true\n",
    )
    .unwrap();
    let out = env.kigi(&[
        "-p",
        "#parent sign up on the page",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
        "--allowedTools",
        "WebFetch(domain:127.0.0.1)",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let result = result_of(&out);
    assert_eq!(result["result"], "The child reported.", "{result}");
    let session = result["session_id"].as_str().unwrap();

    // The parent got the child's report.
    let parent_results = tool_results(&env.session_events(session));
    assert_eq!(parent_results[0].0, "spawn_subagent");
    assert!(
        parent_results[0]
            .1
            .contains("The page answers: Thanks, Ada!"),
        "{parent_results:?}"
    );

    let events = env.agent_events(session, "sub-1");
    let results = tool_results(&events);
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "browser_open",
            "browser_type",
            "browser_click",
            "browser_wait",
            "browser_screenshot"
        ]
    );
    // Numbered elements, in document order, as the script expects them.
    assert!(
        results[0]
            .1
            .contains("Name [1] textbox \"Name\" value=\"\" [2] button \"Send\""),
        "{}",
        results[0].1
    );
    // What the page shows after submitting, read back by the browser.
    assert!(results[2].1.contains("Thanks, Ada!"), "{}", results[2].1);
    assert_eq!(results[3].1, "The page shows \"Thanks, Ada!\".");
    assert!(
        pages.requests().contains(&"/submitted?name=Ada".to_owned()),
        "{:?}",
        pages.requests()
    );

    let images: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_images")
        .collect();
    assert_eq!(images.len(), 1, "{events:?}");
    assert_eq!(images[0]["name"], "browser_screenshot");
    assert_eq!(images[0]["images"][0]["media_type"], "image/png");
    // Base64 of the PNG signature.
    assert!(
        images[0]["images"][0]["data"]
            .as_str()
            .unwrap()
            .starts_with("iVBORw0KGgo")
    );
}

#[test]
fn without_a_browser_browser_use_is_listed_with_how_to_install_one_and_does_not_spawn() {
    let env = Env::with_scripts(
        ScriptSet::default()
            .with(parent())
            .with(Script::matching("#browse", vec![Step::text("never asked")])),
    );
    let missing = env.home.join("no-such-chromium");
    std::fs::write(
        env.home.join("config.toml"),
        format!("[browser]\nexecutable = \"{}\"\n", missing.display()),
    )
    .unwrap();
    let reason = format!(
        "[browser] executable = \"{}\" does not exist: install Chromium (`apt install chromium`) or point [browser] executable in config.toml at a Chromium or Chrome binary",
        missing.display()
    );

    let list = env.kigi(&["agents", "list"]);
    assert!(list.status.success(), "{}", stderr(&list));
    assert!(
        stdout(&list).contains(&format!("cannot run here: {reason}")),
        "{}",
        stdout(&list)
    );
    let json = env.kigi(&["agents", "list", "--json"]);
    let listed: Value = serde_json::from_str(&stdout(&json)).unwrap();
    let entry = listed["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "browser-use")
        .unwrap();
    assert_eq!(entry["description"], "Web browsing and interaction agent");
    assert_eq!(entry["unavailable"], reason.as_str());
    let show = env.kigi(&["agents", "show", "browser-use"]);
    assert!(show.status.success(), "{}", stderr(&show));
    assert!(
        stdout(&show).contains(&format!("unavailable:     {reason}"))
            && stdout(&show).contains("prompt mode:     full"),
        "{}",
        stdout(&show)
    );

    let out = env.kigi(&[
        "-p",
        "#parent sign up on the page",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let session = result_of(&out)["session_id"].as_str().unwrap().to_owned();
    let results = tool_results(&env.session_events(&session));
    assert!(
        results[0].1.contains(&format!(
            "cannot start subagent_type `browser-use`: {reason}"
        )),
        "{results:?}"
    );
    // No child conversation ever reached the model.
    assert!(env.server().requests().iter().all(|r| {
        !r.body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .contains("You are a browser agent")
    }),);
    // As the main agent it does not start either, and says why.
    let main = env.kigi(&["-p", "browse", "--agent", "browser-use"]);
    assert!(!main.status.success());
    assert!(
        stderr(&main).contains(&format!("agent `browser-use` cannot run here: {reason}")),
        "{}",
        stderr(&main)
    );
}
