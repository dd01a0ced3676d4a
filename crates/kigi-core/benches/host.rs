//! Benchmark: the session host's own costs. How long an interrupt takes to end a turn whose
//! model is mid-stream (against the scripted server over loopback), and how many events per
//! second the event stream carries from agents to a front end. Prints figures; asserts
//! nothing about time.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use kigi_agent::{Discovery, KigiPaths};
use kigi_core::host::{AgentEmitter, OpenRequest, SessionHost, event_channel};
use kigi_model::{ModelClient, ModelEndpoint, ModelsConfig, Provider};
use kigi_protocol::{HostCommand, SessionEvent};
use kigi_testkit::{Fault, ScriptSet, ScriptedServer, Step};

const INTERRUPTS: usize = 30;
const EVENTS: usize = 1_000_000;

fn percentile(sorted: &[f64], p: usize) -> f64 {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

async fn interrupt_latency() {
    let tmp = tempfile::tempdir().unwrap();
    // One hanging step; each turn is a new conversation, so each one hangs mid-stream.
    let step = Step::text("half arrives, then nothing").after_faults(vec![Fault::Hang]);
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    let host = SessionHost::new(
        Discovery::load(KigiPaths::new(tmp.path().join("home"), None)).unwrap(),
        ModelsConfig::default(),
        Arc::new(|_: &str| None),
    );
    let client =
        ModelClient::new(ModelEndpoint::new(Provider::OpenaiChat, server.url(), "m")).unwrap();
    let mut latencies = Vec::new();
    for n in 0..INTERRUPTS {
        let mut session = host
            .open(OpenRequest {
                client: Some(client.clone()),
                ..OpenRequest::new(tmp.path())
            })
            .unwrap();
        let control = session.control();
        let turn = tokio::spawn({
            let control = control.clone();
            async move { control.run_turn(&format!("talk {n}")).await }
        });
        loop {
            let event = session.events().next().await.unwrap();
            if matches!(event.session_event(), Some(SessionEvent::TextDelta { .. })) {
                break;
            }
        }
        let sent = Instant::now();
        control.submit(HostCommand::Interrupt).unwrap();
        assert!(turn.await.unwrap().is_err());
        latencies.push(sent.elapsed().as_secs_f64() * 1e3);
        session.shutdown().await;
    }
    latencies.sort_by(f64::total_cmp);
    println!(
        "interrupt mid-stream to turn end ({INTERRUPTS} turns): median {:.3} ms, p90 {:.3} ms, max {:.3} ms (issue 11: within 100 ms)",
        percentile(&latencies, 50),
        percentile(&latencies, 90),
        latencies[INTERRUPTS - 1]
    );
}

async fn stream_throughput() {
    for (label, delta) in [
        ("tool results (never coalesced)", false),
        ("text deltas (coalesced when the reader lags)", true),
    ] {
        let (sink, mut stream) = event_channel();
        let agent = AgentEmitter::main(sink.clone()).child("sub-1");
        let started = Instant::now();
        let writer = tokio::spawn(async move {
            for n in 0..EVENTS {
                let event = if delta {
                    SessionEvent::TextDelta {
                        text: "token ".into(),
                    }
                } else {
                    SessionEvent::ToolResult {
                        call_id: n.to_string(),
                        name: "read_file".into(),
                        status: kigi_protocol::ToolStatus::Completed,
                        output: "ok".into(),
                    }
                };
                agent.session(&event);
                if n % 1024 == 0 {
                    tokio::task::yield_now().await;
                }
            }
            sink.close();
        });
        let mut received = 0usize;
        while stream.next().await.is_some() {
            received += 1;
        }
        writer.await.unwrap();
        let elapsed = started.elapsed().max(Duration::from_nanos(1));
        println!(
            "event stream, {label}: {EVENTS} pushed in {:.1} ms ({:.2} M events/s), {received} read",
            elapsed.as_secs_f64() * 1e3,
            EVENTS as f64 / elapsed.as_secs_f64() / 1e6
        );
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        interrupt_latency().await;
        stream_throughput().await;
    });
}
