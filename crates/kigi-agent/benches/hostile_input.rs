//! Benchmark: how fast hostile agent files are refused. Frontmatter nested 100,000 brackets deep
//! (refused by the depth scan before the YAML parser, whose time grows with the square of the
//! depth), and a `promptMode: full` body with three nested 100,000-item loops (stopped by the
//! template fuel). Prints figures; asserts nothing about time. Run with
//! `cargo bench -p kigi-agent --bench hostile_input`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use kigi_agent::{AgentBuilder, AgentDefinition, KigiPaths};

const RUNS: usize = 20;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let deep = format!(
        "---\nname: deep\ndescription: nested\nx: {}\n---\nbody\n",
        "[".repeat(100_000)
    );
    let samples: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let err = AgentDefinition::parse(&deep, None).unwrap_err();
            let took = start.elapsed();
            assert!(err.to_string().contains("deeper than"), "{err}");
            took
        })
        .collect();
    println!(
        "reject frontmatter nested 100,000 `[` deep: median {:.3} ms ({RUNS} runs)",
        median(samples).as_secs_f64() * 1e3
    );

    let tmp = tempfile::tempdir().unwrap();
    let paths = KigiPaths::new(tmp.path().join("kigi-home"), None);
    let looping = "---\nname: looper\ndescription: loops\npromptMode: full\n---\n\
                   ${% for a in range(100000) %}${% for b in range(100000) %}\
                   ${% for c in range(100000) %}x${% endfor %}${% endfor %}${% endfor %}\n";
    let def = AgentDefinition::parse(looping, None).unwrap();
    let samples: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let err = AgentBuilder::new(tmp.path())
                .with_paths(paths.clone())
                .from_definition(def.clone())
                .build()
                .unwrap_err();
            let took = start.elapsed();
            assert!(err.to_string().contains("stopped after"), "{err}");
            took
        })
        .collect();
    println!(
        "reject a body with three nested 100,000-item loops (build, fuel exhausted): \
         median {:.3} ms ({RUNS} runs)",
        median(samples).as_secs_f64() * 1e3
    );
}
