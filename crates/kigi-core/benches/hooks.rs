//! Benchmark: what one no-op hook adds to a tool call. A session of 40 steps, each one
//! `read_file` call, against the scripted server over loopback, run with no hook and with one
//! `PreToolUse` hook (`true`) matching every tool; the difference per call is the hook's cost
//! (a `sh` started, fed its JSON input, and reaped). Prints figures; asserts nothing about time.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Instant;

use kigi_agent::{KigiPaths, LoadedConfig};
use kigi_core::host::{OpenRequest, SessionHost};
use kigi_model::{ModelClient, ModelEndpoint, Provider};
use kigi_testkit::{ScriptSet, ScriptedServer, Step};
use serde_json::json;

const CALLS: usize = 40;
const ROUNDS: usize = 5;

async fn session_ms(config: &str) -> f64 {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.toml"), config).unwrap();
    std::fs::write(tmp.path().join("a.txt"), "a").unwrap();
    let mut steps: Vec<Step> = (0..CALLS)
        .map(|_| Step::calls(vec![("read_file", json!({"path": "a.txt"}))]))
        .collect();
    steps.push(Step::text("done"));
    let server = ScriptedServer::start(ScriptSet::single(steps))
        .await
        .unwrap();
    let paths = KigiPaths::new(home, None);
    let env: kigi_core::subagent::EnvLookup = Arc::new(|_: &str| None);
    let loaded = LoadedConfig::load(&paths.config_file(), &*env).unwrap();
    let host = SessionHost::from_config(paths, loaded, env).unwrap();
    let client =
        ModelClient::new(ModelEndpoint::new(Provider::OpenaiChat, server.url(), "m")).unwrap();
    let session = host
        .open(OpenRequest {
            client: Some(client),
            ..OpenRequest::new(tmp.path())
        })
        .unwrap();
    let started = Instant::now();
    session.run_turn("go").await.unwrap();
    let took = started.elapsed().as_secs_f64() * 1e3;
    session.shutdown().await;
    took
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let hook = "[[hooks.PreToolUse]]\nhooks = [{ command = \"true\" }]\n";
    let (mut bare, mut hooked) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        bare.push(session_ms("").await);
        hooked.push(session_ms(hook).await);
    }
    let (bare, hooked) = (median(bare), median(hooked));
    let per_call = (hooked - bare) / CALLS as f64;
    println!("{CALLS} tool calls, median of {ROUNDS} sessions:");
    println!(
        "  no hook:            {bare:8.1} ms ({:.3} ms per call)",
        bare / CALLS as f64
    );
    println!(
        "  one no-op hook:     {hooked:8.1} ms ({:.3} ms per call)",
        hooked / CALLS as f64
    );
    println!("  added per call:     {per_call:8.3} ms (budget 5 ms)");
}
