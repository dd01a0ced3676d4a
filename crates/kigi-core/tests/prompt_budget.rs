//! The prompt budget (DESIGN.md): system prompt plus tool schemas, as sent with every request,
//! for the default main agent and the default subagent. A size check, not a timing one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use kigi_agent::{AgentBuilder, KigiPaths, built_in_definitions};
use kigi_core::SessionSetup;
use kigi_model::{ModelClient, ModelEndpoint, Provider};
use kigi_tools::ToolRegistry;

fn request_chars(name: &str) -> usize {
    let tmp = tempfile::tempdir().unwrap();
    let definition = built_in_definitions()
        .into_iter()
        .find(|d| d.name == name)
        .unwrap();
    let agent = AgentBuilder::new(tmp.path())
        .with_paths(KigiPaths::new(tmp.path().join("home"), None))
        .from_definition(definition)
        .build()
        .unwrap();
    let client = ModelClient::new(ModelEndpoint::new(
        Provider::OpenaiChat,
        "http://127.0.0.1:9/v1",
        "m",
    ))
    .unwrap();
    let setup = SessionSetup::for_agent(&agent, client, ToolRegistry::built_in(), tmp.path(), None);
    let schemas = serde_json::to_string(&setup.runtime.schemas()).unwrap();
    let total = setup.system_prompt.chars().count() + schemas.chars().count();
    println!(
        "{name}: system prompt {} + tool schemas {} = {total} characters",
        setup.system_prompt.chars().count(),
        schemas.chars().count()
    );
    total
}

#[test]
fn the_default_main_agent_fits_its_prompt_budget() {
    assert!(request_chars("kigi") <= 15_000);
}

#[test]
fn the_default_subagent_fits_its_prompt_budget() {
    assert!(request_chars("general-purpose") <= 8_000);
}
