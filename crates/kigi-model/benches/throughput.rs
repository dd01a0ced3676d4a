//! Events per second: the SSE parser alone, and the whole client (HTTP over loopback, SSE,
//! decoding, tool-call assembly) against the scripted server. Prints figures; asserts nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::time::{Duration, Instant};

use kigi_model::{
    CancellationToken, ModelClient, ModelEndpoint, ModelEvent, ModelRequest, Provider, SseParser,
};
use kigi_protocol::Message;
use kigi_testkit::{ScriptSet, ScriptedServer, Step};

const PARSER_EVENTS: usize = 200_000;
const RUNS: usize = 5;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn parser_bench() {
    let mut bytes = Vec::new();
    for n in 0..PARSER_EVENTS {
        bytes.extend_from_slice(
            format!(
                "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"tok{n}\"}},\"finish_reason\":null}}]}}\n\n"
            )
            .as_bytes(),
        );
    }
    let samples: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let mut parser = SseParser::new();
            let mut events = 0;
            for chunk in bytes.chunks(16 * 1024) {
                events += parser.push(chunk).len();
            }
            assert_eq!(events, PARSER_EVENTS);
            started.elapsed()
        })
        .collect();
    let time = median(samples);
    println!(
        "SSE parser: {PARSER_EVENTS} chat chunks ({:.1} MB) in {:.1} ms median of {RUNS}: {:.2} M events/s, {:.0} MB/s",
        bytes.len() as f64 / 1e6,
        time.as_secs_f64() * 1e3,
        PARSER_EVENTS as f64 / time.as_secs_f64() / 1e6,
        bytes.len() as f64 / time.as_secs_f64() / 1e6,
    );
}

async fn client_bench(provider: Provider) {
    let text = "abcd".repeat(50_000);
    let step = Step {
        text: Some(text.clone()),
        chunk_chars: Some(4),
        ..Step::default()
    };
    let server = ScriptedServer::start(ScriptSet::single(vec![step]))
        .await
        .unwrap();
    let client = ModelClient::new(ModelEndpoint::new(provider, server.url(), "bench")).unwrap();
    let mut request = ModelRequest::new("", "bench");
    request.messages.push(Message::user("go"));
    let mut samples = Vec::new();
    let mut events = 0;
    for _ in 0..RUNS {
        let started = Instant::now();
        let mut stream = client.stream(&request, CancellationToken::new());
        events = 0;
        let mut received = 0;
        while let Some(event) = stream.next().await {
            if let ModelEvent::TextDelta(delta) = event.unwrap() {
                received += delta.len();
            }
            events += 1;
        }
        assert_eq!(received, text.len());
        samples.push(started.elapsed());
    }
    let time = median(samples);
    println!(
        "client, {provider:?}: {events} events over loopback in {:.1} ms median of {RUNS}: {:.0} k events/s (server rendering included)",
        time.as_secs_f64() * 1e3,
        events as f64 / time.as_secs_f64() / 1e3,
    );
}

fn main() {
    parser_bench();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    for provider in [
        Provider::OpenaiChat,
        Provider::Anthropic,
        Provider::OpenaiResponses,
    ] {
        runtime.block_on(client_bench(provider));
    }
}
