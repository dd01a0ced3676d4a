//! Peak memory of an endless model stream before it is cut: endless data against the size cap
//! (default 32 MiB), and endless keep-alive comments against the request deadline, over
//! loopback from the scripted server (which runs in this process and is counted too). Prints
//! VmHWM (peak resident set) from /proc/self/status before and after each; asserts nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::time::{Duration, Instant};

use kigi_model::{
    CancellationToken, DEFAULT_MAX_RESPONSE_BYTES, ModelClient, ModelEndpoint, ModelError,
    ModelEvent, ModelRequest, Provider, RetryPolicy,
};
use kigi_protocol::Message;
use kigi_testkit::{Fault, ScriptSet, ScriptedServer, Step};

/// `VmHWM` and `VmRSS` in kB, or zeros where /proc is not there.
fn memory_kb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn request() -> ModelRequest {
    let mut request = ModelRequest::new("", "You are a test.");
    request.messages.push(Message::user("go"));
    request
}

fn step(fault: Fault) -> Step {
    Step {
        text: Some("an answer that goes on and on ".repeat(8)),
        chunk_chars: Some(4),
        ..Step::default()
    }
    .after_faults(vec![fault])
}

/// Streams until the error; `keep` collects the answer the way a session does.
async fn run(label: &str, fault: Fault, policy: RetryPolicy, keep: bool) {
    let server = ScriptedServer::start(ScriptSet::single(vec![step(fault)]))
        .await
        .unwrap();
    let endpoint = ModelEndpoint::new(Provider::OpenaiChat, server.url(), "scripted-model");
    let client = ModelClient::with_policy(endpoint, policy).unwrap();
    let (hwm_before, rss_before) = memory_kb();
    let started = Instant::now();
    let mut stream = client.stream(&request(), CancellationToken::new());
    let mut events = 0u64;
    let mut text = String::new();
    let error: Option<ModelError> = loop {
        match stream.next().await {
            Some(Ok(event)) => {
                events += 1;
                if let (true, ModelEvent::TextDelta(delta)) = (keep, event) {
                    text.push_str(&delta);
                }
            }
            Some(Err(error)) => break Some(error),
            None => break None,
        }
    };
    let took = started.elapsed();
    let (hwm_after, rss_after) = memory_kb();
    println!(
        "{label}: cut after {:.2} s, {events} events, {} text bytes kept\n  error: {}\n  VmHWM {:.1} MB -> {:.1} MB (+{:.1} MB); VmRSS {:.1} MB -> {:.1} MB",
        took.as_secs_f64(),
        text.len(),
        error.map_or_else(|| "none".into(), |e| e.to_string()),
        hwm_before as f64 / 1024.0,
        hwm_after as f64 / 1024.0,
        hwm_after.saturating_sub(hwm_before) as f64 / 1024.0,
        rss_before as f64 / 1024.0,
        rss_after as f64 / 1024.0,
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        println!(
            "endless stream bounds (max_response_bytes = {} bytes, OpenAI chat wire):",
            DEFAULT_MAX_RESPONSE_BYTES
        );
        run(
            "endless data, events discarded, default 32 MiB cap",
            Fault::EndlessData,
            RetryPolicy::default(),
            false,
        )
        .await;
        run(
            "endless data, text kept, default 32 MiB cap",
            Fault::EndlessData,
            RetryPolicy::default(),
            true,
        )
        .await;
        run(
            "endless keep-alive every 10 ms, request_timeout 3 s",
            Fault::KeepAlive { interval_ms: 10 },
            RetryPolicy {
                request_timeout: Duration::from_secs(3),
                ..RetryPolicy::default()
            },
            true,
        )
        .await;
    });
}
