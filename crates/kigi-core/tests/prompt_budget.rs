//! The prompt budget (DESIGN.md): system prompt plus tool schemas, as sent with every request,
//! for the default main agent (with its subagent tools) and the default subagent. Measured on
//! the requests a hosted session really sends to the scripted model. A size check, not a
//! timing one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::sync::Arc;

use kigi_agent::{Discovery, KigiPaths};
use kigi_core::host::{OpenRequest, SessionHost};
use kigi_model::{ModelClient, ModelEndpoint, ModelsConfig, Provider};
use kigi_testkit::{RecordedRequest, Script, ScriptSet, ScriptedServer, ScriptedToolCall, Step};
use serde_json::{Value, json};

/// System prompt plus the tool schemas (`{name, description, parameters}` each, as a JSON
/// array), as the request carried them.
fn chars(request: &RecordedRequest, name: &str) -> usize {
    let system = request.body["messages"][0]["content"].as_str().unwrap();
    let functions: Vec<&Value> = request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| &tool["function"])
        .collect();
    let schemas = serde_json::to_string(&functions).unwrap();
    let total = system.chars().count() + schemas.chars().count();
    println!(
        "{name}: system prompt {} + tool schemas {} = {total} characters",
        system.chars().count(),
        schemas.chars().count()
    );
    total
}

#[tokio::test]
async fn the_default_agents_fit_their_prompt_budgets() {
    let tmp = tempfile::tempdir().unwrap();
    let paths = KigiPaths::new(tmp.path().join("home"), None);
    let server = ScriptedServer::start(ScriptSet {
        scripts: vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![ScriptedToolCall::new(
                        "spawn_subagent",
                        json!({"prompt": "#child look", "description": "look"}),
                    )]),
                    Step::text("done"),
                ],
            ),
            Script::matching("#child", vec![Step::text("looked")]),
        ],
    })
    .await
    .unwrap();
    let client =
        ModelClient::new(ModelEndpoint::new(Provider::OpenaiChat, server.url(), "m")).unwrap();
    let host = SessionHost::new(
        Discovery::load(paths).unwrap(),
        ModelsConfig::default(),
        Arc::new(|_: &str| None),
    );
    let session = host
        .open(OpenRequest {
            client: Some(client),
            ..OpenRequest::new(tmp.path())
        })
        .unwrap();
    assert_eq!(session.run_turn("#parent go").await.unwrap().text, "done");
    let requests = server.requests();
    let of = |script: &str| {
        requests
            .iter()
            .find(|r| r.script.as_deref() == Some(script))
            .unwrap()
    };
    let main = of("#parent");
    assert!(
        main.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "spawn_subagent")
    );
    assert!(chars(main, "kigi (main agent, with subagent tools)") <= 15_000);
    assert!(chars(of("#child"), "general-purpose (subagent)") <= 8_000);
    session.shutdown().await;
}
