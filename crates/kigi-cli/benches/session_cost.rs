//! Benchmark: the harness's own cost. The real `kigi -p` binary runs against the scripted
//! model server (0 ms latency) in a temporary git repository: a five-tool-turn task and a
//! 50-turn session. CPU time is bash's `times` for its child (millisecond resolution, no
//! unsafe code here); peak resident memory is GNU time's `%M` (it also covers the small bash
//! that starts kigi, which is smaller); the time to the first model request comes from the
//! server's request log. Needs `/usr/bin/time` (Debian's `time` package). Prints figures;
//! asserts nothing about time.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::Instant;

use kigi_testkit::{ScriptSet, ScriptedServer, ScriptedToolCall, Step};
use serde_json::json;

const RUNS: usize = 7;

/// Runs kigi (its arguments follow), then prints its exit code and bash's `times`.
const WRAPPER: &str = "\"$@\" >/dev/null; echo $?; times";

/// `0m0.012s` → seconds.
fn seconds(field: &str) -> f64 {
    let (minutes, rest) = field.split_once('m').unwrap();
    minutes.parse::<f64>().unwrap() * 60.0 + rest.trim_end_matches('s').parse::<f64>().unwrap()
}

fn script(tool_turns: usize, shell: bool) -> ScriptSet {
    let tools = [
        ("read_file", json!({"path": "src/lib.rs"})),
        ("grep", json!({"pattern": "fn"})),
        ("list_dir", json!({})),
        ("glob", json!({"pattern": "*.rs"})),
        ("run_terminal_cmd", json!({"command": "true"})),
    ];
    let tools = if shell { &tools[..] } else { &tools[..4] };
    let mut steps: Vec<Step> = (0..tool_turns)
        .map(|n| {
            let (name, arguments) = &tools[n % tools.len()];
            Step {
                text: Some("Looking.".into()),
                tool_calls: vec![ScriptedToolCall {
                    id: None,
                    name: (*name).into(),
                    arguments: arguments.clone(),
                }],
                ..Step::default()
            }
        })
        .collect();
    steps.push(Step::text("Done."));
    ScriptSet::single(steps)
}

struct Sample {
    cpu_s: f64,
    max_rss_kb: u64,
    first_request_ms: f64,
}

fn run_once(runtime: &tokio::runtime::Runtime, tool_turns: usize, shell: bool) -> Sample {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/lib.rs"), "pub fn a() {}\npub fn b() {}\n").unwrap();
    assert!(
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()
            .unwrap()
            .success()
    );
    let server_started = Instant::now();
    let server = runtime
        .block_on(ScriptedServer::start(script(tool_turns, shell)))
        .unwrap();
    let spawned = server_started.elapsed();
    let rss_file = tmp.path().join("rss");
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(&rss_file)
        .args(["bash", "-c", WRAPPER, "bash", env!("CARGO_BIN_EXE_kigi")])
        .args(["-p", "work", "--permission-mode", "bypassPermissions"])
        .current_dir(&repo)
        .env("KIGI_HOME", tmp.path().join("home"))
        .env("KIGI_BASE_URL", server.url())
        .env("KIGI_MODEL", "scripted")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let fields: Vec<&str> = text.split_whitespace().collect();
    assert_eq!(
        fields.first(),
        Some(&"0"),
        "kigi failed: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Fields: exit code, bash user, bash sys, children user, children sys.
    let cpu_s = seconds(fields[3]) + seconds(fields[4]);
    let max_rss_kb = std::fs::read_to_string(&rss_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let log = server.requests();
    assert_eq!(log.len(), tool_turns + 1);
    Sample {
        cpu_s,
        max_rss_kb,
        first_request_ms: log[0].at.saturating_sub(spawned).as_secs_f64() * 1e3,
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn report(runtime: &tokio::runtime::Runtime, tool_turns: usize, shell: bool) {
    let samples: Vec<Sample> = (0..RUNS)
        .map(|_| run_once(runtime, tool_turns, shell))
        .collect();
    let cpu = median(samples.iter().map(|s| s.cpu_s).collect());
    let rss = samples.iter().map(|s| s.max_rss_kb).max().unwrap();
    let first = median(samples.iter().map(|s| s.first_request_ms).collect());
    let turns = tool_turns + 1;
    println!(
        "kigi -p, {tool_turns} tool turns + answer, {} ({RUNS} runs): CPU median {:.1} ms ({:.3} ms per model turn), peak RSS max {:.1} MB, start to first model request median {first:.1} ms (bash start included)",
        if shell {
            "every 5th a shell command"
        } else {
            "read-only tools"
        },
        cpu * 1e3,
        cpu * 1e3 / turns as f64,
        rss as f64 / 1024.0,
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    report(&runtime, 5, true);
    report(&runtime, 49, true);
    report(&runtime, 49, false);
}
