//! Servers that crash at once or never answer `initialize`: a clear error with the stderr
//! tail, never a hang, and nothing left running.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use kigi_mcp::{McpConnection, McpError, McpServerConfig, prepare_launch_from_env};

const HANG_GUARD: Duration = Duration::from_secs(30);

fn sh(script: &str, startup_timeout_ms: u64) -> McpServerConfig {
    let mut config = McpServerConfig::stdio("sh", vec!["-c".into(), script.into()]);
    config.startup_timeout_ms = startup_timeout_ms;
    config
}

async fn start(config: &McpServerConfig) -> McpError {
    let launch = prepare_launch_from_env("broken", config).unwrap();
    tokio::time::timeout(HANG_GUARD, McpConnection::connect(&launch))
        .await
        .expect("a failing server never hangs the caller")
        .expect_err("the server must fail to start")
}

#[tokio::test]
async fn a_server_that_crashes_at_once_reports_its_exit_and_stderr() {
    let err = start(&sh("echo 'fatal: missing API key' >&2; exit 3", 10_000)).await;
    let McpError::Startup {
        server,
        reason,
        stderr_tail,
    } = &err
    else {
        panic!("a startup error: {err:?}");
    };
    assert_eq!(server, "broken");
    assert!(
        reason.contains("exited") && reason.contains('3'),
        "{reason}"
    );
    assert_eq!(stderr_tail, "fatal: missing API key\n");
    let text = err.to_string();
    assert!(
        text.contains("`broken` did not start") && text.contains("fatal: missing API key"),
        "{text}"
    );
}

#[tokio::test]
async fn a_server_that_never_answers_initialize_times_out_and_is_reaped() {
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "sleep 600 & echo $! > {0}/helper; echo $$ > {0}/pid; echo 'listening on nothing' >&2; wait",
        dir.path().display()
    );
    let err = start(&sh(&script, 300)).await;
    let McpError::Startup {
        reason,
        stderr_tail,
        ..
    } = &err
    else {
        panic!("a startup error: {err:?}");
    };
    assert!(
        reason.contains("no answer to initialize within 0.3s"),
        "{reason}"
    );
    assert_eq!(stderr_tail, "listening on nothing\n");
    let read_pid = |name: &str| -> u32 {
        std::fs::read_to_string(dir.path().join(name))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    // The server itself was reaped before the error returned.
    assert!(common::process_gone(read_pid("pid")));
    // What it started went with its process group (not our child: wait for init to reap it).
    assert!(
        common::wait_gone(read_pid("helper")),
        "the server's helper outlived it"
    );
}

#[tokio::test]
async fn a_command_that_does_not_exist_names_itself() {
    let config = McpServerConfig::stdio("/nonexistent/kigi-mcp-server", vec![]);
    let err = start(&config).await;
    assert!(
        matches!(&err, McpError::Spawn { command, .. } if command == "/nonexistent/kigi-mcp-server"),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_http_server_that_is_not_there_fails_fast_with_its_url() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let err = start(&McpServerConfig::http(&url)).await;
    assert!(matches!(&err, McpError::Startup { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&url) || err.to_string().contains("initialize"),
        "{err}"
    );
}
