//! Benchmark: the cost of a child. Spawn latency is measured from the `spawn` call to the
//! child's first model request as the scripted server logs it; memory as the growth of this
//! process's resident set while 100 children wait on their model (the in-process server's
//! side of each connection is included, so the figure is an upper bound). Prints figures;
//! asserts nothing about time.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use kigi_agent::{KigiPaths, PermissionMode};
use kigi_core::host::{OpenRequest, SessionHost};
use kigi_core::subagent::{CheckedSpawn, SpawnOutcome};
use kigi_model::{CancellationToken, ModelClient, ModelEndpoint, Provider};
use kigi_testkit::{Script, ScriptSet, ScriptedServer, Step};

const CHILDREN: usize = 100;

fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

fn spawn_args(marker: &str) -> CheckedSpawn {
    CheckedSpawn {
        prompt: format!("{marker} wait"),
        description: "wait for the model".into(),
        agent_type: "general-purpose".into(),
        background: true,
        capability_mode: None,
        cwd: None,
        name: None,
        model: None,
        effort: None,
        persona: None,
        resume_from: None,
        worktree: false,
        executor: None,
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("repo");
        std::fs::create_dir_all(&cwd).unwrap();
        let paths = KigiPaths::new(tmp.path().join("home"), None);
        let mut scripts = ScriptSet::default();
        for n in 0..=CHILDREN {
            scripts = scripts.with(Script::matching(format!("#child-{n}#"), vec![Step { latency_ms: 600_000, ..Step::text("late") }]));
        }
        let server = ScriptedServer::start(scripts).await.unwrap();
        let started = Instant::now();
        let client = ModelClient::new(ModelEndpoint::new(Provider::OpenaiChat, server.url(), "m")).unwrap();
        // All 100 children run at once (the default cap is 16): the bench measures each one's cost.
        std::fs::create_dir_all(&paths.kigi_home).unwrap();
        std::fs::write(paths.config_file(), "[subagents]\nmax_concurrent = 128\n").unwrap();
        let host = SessionHost::load(paths, Arc::new(|_: &str| None)).unwrap();
        let mut session = host
            .open(OpenRequest { client: Some(client), permission_mode: Some(PermissionMode::BypassPermissions), ..OpenRequest::new(&cwd) })
            .unwrap();
        let coordinator = Arc::clone(session.coordinator());
        let cancel = CancellationToken::new();
        // Warm the connection pool and caches with one child, as a running session would be.
        let warm = coordinator.spawn(spawn_args("#child-0#"), &cancel).await.unwrap();
        assert!(matches!(warm, SpawnOutcome::Background { .. }));
        assert!(server.wait_for(Duration::from_secs(30), |log| log.len() == 1).await);
        let before = rss_kb();
        let mut latencies = Vec::new();
        for n in 1..=CHILDREN {
            let at = started.elapsed();
            coordinator.spawn(spawn_args(&format!("#child-{n}#")), &cancel).await.unwrap();
            assert!(server.wait_for(Duration::from_secs(30), |log| log.len() == n + 1).await);
            let request = server.requests().into_iter().find(|r| r.script.as_deref() == Some(&format!("#child-{n}#"))).unwrap();
            latencies.push(request.at.saturating_sub(at).as_secs_f64() * 1e3);
            // A front end reads the children's events as they come.
            session.events().drain();
        }
        let after = rss_kb();
        latencies.sort_by(f64::total_cmp);
        println!(
            "spawn to first model request ({CHILDREN} children, one at a time): median {:.2} ms, p90 {:.2} ms, max {:.2} ms (target < 5 ms)",
            latencies[CHILDREN / 2],
            latencies[CHILDREN * 9 / 10],
            latencies[CHILDREN - 1]
        );
        println!(
            "memory of {CHILDREN} idle children (waiting on their model): {:.1} MB in all, {:.0} KB each (target < 1 MB each; in-process server included)",
            (after.saturating_sub(before)) as f64 / 1024.0,
            after.saturating_sub(before) as f64 / CHILDREN as f64
        );
        let _ = started;
        cancel.cancel();
        drop(coordinator);
        session.shutdown().await;
    });
}
