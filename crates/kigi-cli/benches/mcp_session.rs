//! Benchmark: what MCP servers cost a `kigi -p` run. Process start to the first model request
//! with no server, with two tiny stdio servers (a shell script speaking MCP: "servers that
//! start fast"), and with two `server-everything` (Node); and the wall time per tool call of
//! 30 `mcp__…__echo` calls against 30 `read_file` calls in the same session shape. Real binary,
//! scripted model over loopback. Prints figures; asserts nothing about time.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use kigi_testkit::{ScriptSet, ScriptedServer, Step};
use serde_json::{Value, json};

const RUNS: usize = 5;
const CALLS: usize = 30;

/// An MCP server in a few lines of shell: answers initialize, tools/list and tools/call.
const TINY_SERVER: &str = r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"tiny","version":"1"}}}\n' "$id";;
    *'"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}\n' "$id";;
    *'"tools/call"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"pong"}]}}\n' "$id";;
  esac
done"#;

fn everything() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kigi-mcp/tests/npm/node_modules/.bin/mcp-server-everything")
}

/// Milliseconds from starting kigi to its first request, and from its first request to its
/// last (the steps themselves, server startup left out).
fn run(runtime: &tokio::runtime::Runtime, config: &str, steps: Vec<Step>) -> (f64, f64) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("a.txt"), "a").unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("config.toml"), config).unwrap();
    let server_started = Instant::now();
    let server = runtime
        .block_on(ScriptedServer::start(ScriptSet::single(steps)))
        .unwrap();
    let spawned = server_started.elapsed();
    let out = Command::new(env!("CARGO_BIN_EXE_kigi"))
        .args(["-p", "work", "--permission-mode", "bypassPermissions"])
        .current_dir(&repo)
        .env("KIGI_HOME", &home)
        .env("KIGI_BASE_URL", server.url())
        .env("KIGI_MODEL", "scripted")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = server.requests();
    let first = log[0].at.saturating_sub(spawned).as_secs_f64() * 1e3;
    let span = log[log.len() - 1]
        .at
        .saturating_sub(log[0].at)
        .as_secs_f64()
        * 1e3;
    (first, span)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn calls(name: &str, arguments: Value) -> Vec<Step> {
    let mut steps: Vec<Step> = (0..CALLS)
        .map(|_| Step::calls(vec![(name.to_owned(), arguments.clone())]))
        .collect();
    steps.push(Step::text("done"));
    steps
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let tiny = |name: &str| {
        format!("[mcp_servers.{name}]\ncommand = \"sh\"\nargs = [\"-c\", '''{TINY_SERVER}''']\n")
    };
    let node = |name: &str| {
        format!(
            "[mcp_servers.{name}]\ncommand = \"{}\"\nargs = [\"stdio\"]\n",
            everything().display()
        )
    };
    for (label, config) in [
        ("no MCP server", String::new()),
        (
            "two tiny stdio servers",
            format!("{}{}", tiny("a"), tiny("b")),
        ),
        (
            "two server-everything (Node)",
            format!("{}{}", node("a"), node("b")),
        ),
    ] {
        let firsts: Vec<f64> = (0..RUNS)
            .map(|_| run(&runtime, &config, vec![Step::text("hi")]).0)
            .collect();
        println!(
            "start to first model request, {label} ({RUNS} runs): median {:.1} ms",
            median(firsts)
        );
    }
    let builtin: Vec<f64> = (0..RUNS)
        .map(|_| run(&runtime, "", calls("read_file", json!({"path": "a.txt"}))).1)
        .collect();
    let mcp: Vec<f64> = (0..RUNS)
        .map(|_| {
            run(
                &runtime,
                &node("everything"),
                calls("mcp__everything__echo", json!({"message": "x"})),
            )
            .1
        })
        .collect();
    let (builtin, mcp) = (median(builtin), median(mcp));
    println!(
        "{CALLS} tool steps, first request to last: read_file {builtin:.1} ms, mcp__everything__echo {mcp:.1} ms; per MCP call over a built-in: {:.3} ms",
        (mcp - builtin) / CALLS as f64
    );
}
