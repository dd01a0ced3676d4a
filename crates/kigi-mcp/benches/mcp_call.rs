//! Benchmark: per-call overhead of `echo` on `@modelcontextprotocol/server-everything` over
//! stdio and over streamable HTTP on loopback (median of 200 calls each, after a warm-up), and
//! the time from `McpServers::start_all` to both of two stdio servers ready (median of 5).
//! Prints the figures; asserts nothing about time. Needs
//! `npm ci --prefix crates/kigi-mcp/tests/npm`. Run with `cargo bench -p kigi-mcp`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use kigi_mcp::{
    McpConnection, McpServerConfig, McpServerEntry, McpServerStatus, McpServers, McpSource,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const CALLS: usize = 200;
const WARM_UP: usize = 20;
const START_RUNS: usize = 5;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

async fn echo_median(conn: &McpConnection) -> Duration {
    let cancel = CancellationToken::new();
    let mut samples = Vec::with_capacity(CALLS);
    for i in 0..WARM_UP + CALLS {
        let started = Instant::now();
        let result = conn
            .call_tool("echo", json!({"message": "ping"}), &cancel)
            .await
            .unwrap();
        let took = started.elapsed();
        assert_eq!(result.to_text(), "Echo: ping");
        if i >= WARM_UP {
            samples.push(took);
        }
    }
    median(samples)
}

async fn two_servers_ready() -> Duration {
    let entries: Vec<McpServerEntry> = ["one", "two"]
        .into_iter()
        .map(|name| McpServerEntry {
            name: name.into(),
            config: common::stdio_config(),
            source: McpSource::User,
            trusted: true,
        })
        .collect();
    let started = Instant::now();
    let mut servers = McpServers::start_all(entries);
    let statuses = servers.wait_ready(Duration::from_secs(30)).await;
    let took = started.elapsed();
    assert!(
        statuses
            .iter()
            .all(|(_, s)| matches!(s, McpServerStatus::Ready { .. })),
        "{statuses:?}"
    );
    servers.shutdown().await;
    took
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let stdio = common::connect("everything", &common::stdio_config()).await;
        let stdio_median = echo_median(&stdio).await;
        stdio.shutdown().await;

        let server = common::HttpServer::start();
        let http = common::connect("everything", &McpServerConfig::http(&server.url)).await;
        let http_median = echo_median(&http).await;
        http.shutdown().await;
        drop(server);

        let mut starts = Vec::with_capacity(START_RUNS);
        for _ in 0..START_RUNS {
            starts.push(two_servers_ready().await);
        }
        let start_median = median(starts.clone());

        println!("mcp echo over stdio, median of {CALLS}: {}", ms(stdio_median));
        println!("mcp echo over HTTP loopback, median of {CALLS}: {}", ms(http_median));
        println!(
            "two stdio servers, start_all to both ready (initialize + tools/list), median of {START_RUNS}: {} (runs: {})",
            ms(start_median),
            starts.iter().map(|d| ms(*d)).collect::<Vec<_>>().join(", ")
        );
    });
}
