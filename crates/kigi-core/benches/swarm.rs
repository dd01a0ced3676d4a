//! Benchmark: a swarm of 128 members against the scripted model server with 200 ms latency,
//! cap 16, the default ramp. Wall time against the ideal the schedule's own arithmetic
//! predicts, the harness's CPU per member, and peak memory. CPU and memory are this process's
//! (`/proc/self`), so the in-process server's share is included: upper bounds. Prints
//! figures; asserts nothing about time.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use kigi_agent::{Discovery, KigiPaths, PermissionMode};
use kigi_core::host::{OpenRequest, SessionHost};
use kigi_core::swarm::{
    CoordinatorBackend, EngineSettings, Schedule, SwarmRequest, member_budget, plan, run,
};
use kigi_model::{CancellationToken, ModelClient, ModelEndpoint, ModelsConfig, Provider};
use kigi_testkit::{Script, ScriptSet, ScriptedServer, Step};

const MEMBERS: usize = 128;
const LATENCY: Duration = Duration::from_millis(200);

fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb / 1024.0
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
        let member = Script {
            name: "member".into(),
            marker: None,
            steps: vec![Step { latency_ms: LATENCY.as_millis() as u64, ..Step::text("done") }],
        };
        let server = ScriptedServer::start(ScriptSet::default().with(member)).await.unwrap();
        let client = ModelClient::new(ModelEndpoint::new(Provider::OpenaiChat, server.url(), "m")).unwrap();
        let host = SessionHost::new(Discovery::load(paths).unwrap(), ModelsConfig::default(), Arc::new(|_: &str| None));
        let mut session = host
            .open(OpenRequest { client: Some(client), permission_mode: Some(PermissionMode::BypassPermissions), ..OpenRequest::new(&cwd) })
            .unwrap();
        let coordinator = Arc::clone(session.coordinator());
        let cancel = CancellationToken::new();
        // A front end reads the members' events as they come.
        let mut events = session.take_events();
        let reader = tokio::spawn(async move { while events.next().await.is_some() {} });
        let request = SwarmRequest {
            description: "bench".into(),
            prompt_template: "Work on item {{item}}.".into(),
            items: (0..MEMBERS).map(|n| format!("#{n}")).collect(),
            ..SwarmRequest::default()
        };
        let plan = plan(&request, &*coordinator).unwrap();
        let settings = EngineSettings {
            schedule: Schedule { max_concurrency: 16, ..Schedule::default() },
            member_output_chars: member_budget(MEMBERS),
            ..EngineSettings::default()
        };
        let ideal = settings.schedule.ideal_makespan(MEMBERS, LATENCY);
        let backend = Arc::new(CoordinatorBackend { coordinator: Arc::clone(&coordinator), plan: plan.clone() });
        let cpu_before = cpu_seconds();
        let report = run(&plan, backend, &settings, &cancel, &|_: &_| {}).await;
        let cpu = cpu_seconds() - cpu_before;
        assert_eq!(report.counts().completed, MEMBERS);
        let wall = report.duration;
        println!(
            "swarm of {MEMBERS}, {} ms model latency, cap 16, burst {} then one per {} ms: wall {:.3} s against an ideal of {:.3} s ({:+.1}%)",
            LATENCY.as_millis(),
            settings.schedule.initial_burst,
            settings.schedule.interval.as_millis(),
            wall.as_secs_f64(),
            ideal.as_secs_f64(),
            (wall.as_secs_f64() / ideal.as_secs_f64() - 1.0) * 100.0
        );
        println!(
            "CPU {:.0} ms in all, {:.2} ms per member (server included, 10 ms clock ticks); peak RSS {:.1} MB",
            cpu * 1e3,
            cpu * 1e3 / MEMBERS as f64,
            peak_rss_mb()
        );
        cancel.cancel();
        drop(coordinator);
        session.shutdown().await;
        let _ = reader.await;
    });
}
