//! The prompt budget (DESIGN.md): system prompt plus tool schemas, as sent with every request,
//! for the default main agent (with its subagent tools) and the default subagent. A size
//! check, not a timing one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::sync::Arc;

use kigi_agent::{AgentBuilder, Discovery, KigiPaths, PermissionMode, built_in_definitions};
use kigi_core::subagent::{Coordinator, CoordinatorSetup, child_agent};
use kigi_core::{SessionSetup, SessionStore};
use kigi_model::{CancellationToken, ModelClient, ModelEndpoint, ModelsConfig, Provider};
use kigi_tools::ToolRegistry;

fn chars(setup: &SessionSetup, name: &str) -> usize {
    let schemas = serde_json::to_string(&setup.runtime.schemas()).unwrap();
    let total = setup.system_prompt.chars().count() + schemas.chars().count();
    println!(
        "{name}: system prompt {} + tool schemas {} = {total} characters",
        setup.system_prompt.chars().count(),
        schemas.chars().count()
    );
    total
}

#[tokio::test]
async fn the_default_agents_fit_their_prompt_budgets() {
    let tmp = tempfile::tempdir().unwrap();
    let paths = KigiPaths::new(tmp.path().join("home"), None);
    let definition = |name: &str| {
        built_in_definitions()
            .into_iter()
            .find(|d| d.name == name)
            .unwrap()
    };
    let main = AgentBuilder::new(tmp.path())
        .with_paths(paths.clone())
        .from_definition(definition("kigi"))
        .build()
        .unwrap();
    let client = ModelClient::new(ModelEndpoint::new(
        Provider::OpenaiChat,
        "http://127.0.0.1:9/v1",
        "m",
    ))
    .unwrap();
    let setup = SessionSetup::for_agent(
        &main,
        client.clone(),
        ToolRegistry::built_in(),
        tmp.path(),
        None,
    );
    let discovery = Discovery::load(paths.clone()).unwrap();
    let coordinator = Coordinator::new(CoordinatorSetup {
        session_id: kigi_core::new_session_id(),
        store: SessionStore::new(tmp.path().join("sessions")),
        discovery,
        models: ModelsConfig::default(),
        base_url_override: None,
        env: Arc::new(|_: &str| None),
        parent_client: client.clone(),
        parent_tools: main.tools.clone(),
        parent_mode: PermissionMode::Default,
        cwd: tmp.path().to_path_buf(),
        cancel: CancellationToken::new(),
    });
    let setup = setup.with_coordinator(&coordinator);
    assert!(
        setup
            .runtime
            .schemas()
            .iter()
            .any(|s| s.name == "spawn_subagent")
    );
    assert!(chars(&setup, "kigi (main agent, with subagent tools)") <= 15_000);

    let child = child_agent(
        definition("general-purpose"),
        None,
        &main.tools,
        tmp.path(),
        &paths,
    )
    .unwrap();
    let child_setup =
        SessionSetup::for_agent(&child, client, ToolRegistry::built_in(), tmp.path(), None);
    assert!(chars(&child_setup, "general-purpose (subagent)") <= 8_000);
}
