//! `kigi demo`: a real session in this folder, with real (read-only) tools, on the bundled
//! scripted model, which says plainly that it is scripted.

use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::PermissionMode;
use kigi_core::host::OpenRequest;
use kigi_model::{ModelClient, ModelEndpoint, Provider};
use kigi_testkit::{ScriptSet, ScriptedServer, ScriptedToolCall, Step};
use serde_json::json;

use super::print::run_session;
use super::progress::OutputFormat;

/// The prompt `kigi demo` sends when none is given.
pub const DEMO_PROMPT: &str = "Give me a short tour of this folder.";

/// The scripted model's answers: look around with real tools, then say what happened.
pub fn demo_script() -> ScriptSet {
    let call = |name: &str, arguments| ScriptedToolCall {
        id: None,
        name: name.into(),
        arguments,
    };
    ScriptSet::single(vec![
        Step {
            thinking: Some("Start by listing the folder.".into()),
            text: Some("Let me look around.".into()),
            tool_calls: vec![call("list_dir", json!({}))],
            ..Step::default()
        },
        Step {
            tool_calls: vec![
                call("glob", json!({"pattern": "*.md"})),
                call("grep", json!({"pattern": "TODO|FIXME", "max_results": 5})),
            ],
            ..Step::default()
        },
        Step::text(
            "I listed this folder, found its Markdown files and searched it for TODO and FIXME notes: \
             those were real tool calls on your files, and their results are above and in the session file. \
             This answer, though, is scripted: `kigi demo` runs on kigi's bundled scripted model, not a real one. \
             Configure a model (`--base-url` and `--model`, or `[endpoints]` and `[models.<alias>]` in \
             $KIGI_HOME/config.toml) and run `kigi -p \"...\"` for real work.",
        ),
    ])
}

/// `kigi demo [PROMPT]`: the demo, saying first that a prompt given to it changes nothing.
pub fn run_command(prompt: Option<&str>, format: OutputFormat) -> anyhow::Result<ExitCode> {
    if prompt.is_some() {
        errln!(
            "kigi demo: the scripted model ignores your prompt: it always gives the same short tour of this folder. Ask a real model with `kigi -p \"PROMPT\"`."
        );
    }
    run(prompt.unwrap_or(DEMO_PROMPT), format)
}

/// Runs the demo with `prompt` in the working directory.
pub fn run(prompt: &str, format: OutputFormat) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let host = super::session_host()?;
    let runtime = super::runtime()?;
    runtime.block_on(async {
        let server = ScriptedServer::start(demo_script()).await?;
        errln!(
            "kigi demo: the model is kigi's bundled scripted model at {} (no API key, no network); the tools are real and read-only.",
            server.url()
        );
        let endpoint = ModelEndpoint::new(Provider::OpenaiChat, server.url(), "kigi-scripted");
        let session = host.open(OpenRequest {
            client: Some(ModelClient::new(endpoint)?),
            permission_mode: Some(PermissionMode::Plan),
            ..OpenRequest::new(&cwd)
        })?;
        let code = run_session(session, prompt, format, false).await;
        drop(server);
        code
    })
}
