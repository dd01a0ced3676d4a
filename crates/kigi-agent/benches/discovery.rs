//! Benchmark: discover 1,000 definition files spread over nested directories, then build one
//! agent. Prints figures; asserts nothing about time. Run with `cargo bench -p kigi-agent`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use kigi_agent::{AgentBuilder, Config, Discovery, KigiPaths, TrustStore};

const FILES: usize = 1_000;
const RUNS: usize = 30;

fn write_tree(root: &Path) {
    for i in 0..FILES {
        // Spread over the project root, a nested working directory, the user home and a
        // compat directory, each with nested sub-folders.
        let base = match i % 4 {
            0 => root.join("repo/.kigi/agents"),
            1 => root.join("repo/app/.kigi/agents"),
            2 => root.join("kigi-home/agents"),
            _ => root.join("repo/.claude/agents"),
        };
        let dir = base.join(format!("team-{}/group-{}", i % 5, i % 3));
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!(
            "---\nname: agent-{i}\ndescription: Agent number {i}, for benchmarks\ntools: Read, Grep, Bash\nmodel: inherit\nmaxTurns: 10\n---\nYou are agent {i}. Do the task.\n"
        );
        std::fs::write(dir.join(format!("agent-{i}.md")), text).unwrap();
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("repo/.git")).unwrap();
    std::fs::create_dir_all(tmp.path().join("repo/app")).unwrap();
    write_tree(tmp.path());
    let cwd = tmp.path().join("repo/app");
    let paths = KigiPaths::new(tmp.path().join("kigi-home"), Some(tmp.path().join("home")));
    let discovery = Discovery::new(
        paths.clone(),
        &Config::default(),
        TrustStore::empty(paths.trust_file()),
    );

    let mut samples = Vec::with_capacity(RUNS);
    let mut loaded = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        let report = discovery.discover(&cwd);
        let def = report.get("agent-1").unwrap().definition.clone();
        let agent = AgentBuilder::new(&cwd)
            .with_paths(paths.clone())
            .from_definition(def)
            .build()
            .unwrap();
        samples.push(start.elapsed());
        loaded = report.agents.len();
        assert!(!agent.system_prompt.is_empty());
    }
    samples.sort();
    println!(
        "discover {FILES} files + build one agent ({loaded} agents loaded, {RUNS} runs): \
         median {:.2} ms, p90 {:.2} ms, min {:.2} ms (target < 50 ms)",
        percentile(&samples, 0.5).as_secs_f64() * 1e3,
        percentile(&samples, 0.9).as_secs_f64() * 1e3,
        samples[0].as_secs_f64() * 1e3,
    );
}
