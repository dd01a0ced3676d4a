//! Shared setup for tests that run `@modelcontextprotocol/server-everything` from npm.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kigi_mcp::{McpConnection, McpServerConfig, prepare_launch_from_env};

/// The installed server, or a panic saying how to install it.
pub fn everything_bin() -> PathBuf {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/npm/node_modules/.bin/mcp-server-everything");
    assert!(
        bin.exists(),
        "{} is missing: run `npm ci --prefix crates/kigi-mcp/tests/npm` (Node 20+)",
        bin.display()
    );
    bin
}

pub fn stdio_config() -> McpServerConfig {
    McpServerConfig::stdio(
        everything_bin().to_string_lossy().into_owned(),
        vec!["stdio".into()],
    )
}

pub async fn connect(name: &str, config: &McpServerConfig) -> McpConnection {
    let launch = prepare_launch_from_env(name, config).expect("launch");
    McpConnection::connect(&launch).await.expect("connect")
}

/// Whether process `pid` is gone (or a zombie nobody has reaped yet: no longer running).
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Waits (up to 5 s) for a process that is not our child (so not ours to reap) to go.
pub fn wait_gone(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if process_gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    process_gone(pid)
}

/// server-everything serving streamable HTTP on a free loopback port; killed on drop.
pub struct HttpServer {
    child: Child,
    pub url: String,
}

impl HttpServer {
    pub fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let mut child = Command::new(everything_bin())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start server-everything over HTTP");
        let stderr = child.stderr.take().expect("stderr");
        // Readiness is the server's own line, with a ceiling: no sleeping for it.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("listening on port") {
                    let _ = tx.send(Ok(()));
                } else if line.contains("Failed to start") {
                    let _ = tx.send(Err(line));
                }
            }
        });
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(Ok(())) => {}
            Ok(Err(line)) => panic!("server-everything did not start: {line}"),
            Err(_) => panic!("server-everything did not report listening within 20 s"),
        }
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
