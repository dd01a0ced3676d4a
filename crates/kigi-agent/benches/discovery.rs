//! Benchmark: discover 1,000 definition files spread over nested directories, then build one
//! agent; and what reading a typical setup's definitions costs each model request now that
//! agents, routes, personas and roles are read when used (live, with no watcher at idle).
//! Prints figures; asserts nothing about time. Run with `cargo bench -p kigi-agent`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use kigi_agent::{AgentBuilder, Config, Discovery, KigiPaths, PersonaSet, RoleSet, TrustStore};

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
    live_reads();
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

/// A typical setup: 10 agent files, 5 routes and 3 personas; one request's reads of them.
fn live_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let agents = repo.join(".kigi/agents");
    for i in 0..10 {
        std::fs::create_dir_all(&agents).unwrap();
        std::fs::write(
            agents.join(format!("agent-{i}.md")),
            format!(
                "---\nname: agent-{i}\ndescription: Agent {i}\ntools: Read, Grep\n---\nBody {i}.\n"
            ),
        )
        .unwrap();
    }
    for i in 0..5 {
        let dir = agents.join(".routes/agent-0");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("r{i}.md")),
            format!("---\nid: agent-0.r{i}\nprofile: agent-0\ndescription: Route {i}\nprompt_mode: append\n---\nMore {i}.\n"),
        )
        .unwrap();
    }
    let personas = repo.join(".kigi/personas");
    std::fs::create_dir_all(&personas).unwrap();
    for i in 0..3 {
        std::fs::write(
            personas.join(format!("p{i}.toml")),
            format!("description = \"Persona {i}\"\ninstructions = \"Be {i}.\"\n"),
        )
        .unwrap();
    }
    let paths = KigiPaths::new(tmp.path().join("kigi-home"), None);
    let config = Config::default();
    let discovery = Discovery::new(
        paths.clone(),
        &config,
        TrustStore::empty(paths.trust_file()),
    );
    let mut samples = Vec::with_capacity(RUNS * 10);
    for _ in 0..RUNS * 10 {
        let start = Instant::now();
        let report = discovery.discover(&repo);
        let routes = discovery.routes(&repo);
        let personas = PersonaSet::discover(&config.subagents, &paths, &repo);
        let roles = RoleSet::discover(&config.subagents, &paths, &repo);
        samples.push(start.elapsed());
        assert!(report.agents.len() >= 10 && routes.routes.len() == 5);
        assert!(personas.get("p0").is_some() && roles.entries.is_empty());
    }
    samples.sort();
    println!(
        "live definitions per request (10 agents, 5 routes, 3 personas; {} runs): median {:.3} ms, \
         p90 {:.3} ms; at idle nothing runs (no watcher)",
        samples.len(),
        percentile(&samples, 0.5).as_secs_f64() * 1e3,
        percentile(&samples, 0.9).as_secs_f64() * 1e3,
    );
}
