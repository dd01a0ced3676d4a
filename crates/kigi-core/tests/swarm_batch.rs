//! A `kigi swarm` batch through the host: finished members are let go (their transcripts stay
//! on disk), while the `agent_swarm` tool's members are kept for the parent to resume or ask
//! about. What keeps a batch of 10,000 from holding 10,000 conversations.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_core::host::SwarmOpen;
use kigi_core::swarm::{SwarmCounts, SwarmRequest, SwarmRun, run_swarm};
use kigi_model::ModelFlags;
use kigi_testkit::{ScriptSet, Step};
use support::Fixture;

const MODEL: &str = "[models.scripted]\nbase_url = \"{URL}\"\nmodel = \"scripted\"\n";

async fn swarm_of(fx: &Fixture, batch: bool) -> (usize, usize) {
    let swarm = fx
        .host
        .open_swarm(SwarmOpen {
            cwd: fx.cwd.clone(),
            model: ModelFlags::default(),
            permission_mode: None,
            rules: Default::default(),
            sandbox: None,
            summary: "test".into(),
            resume: None,
        })
        .unwrap();
    let request = SwarmRequest {
        description: "d".into(),
        prompt_template: "check {{item}}".into(),
        items: (0..20).map(|n| format!("item-{n}")).collect(),
        batch,
        ..SwarmRequest::default()
    };
    let run = SwarmRun {
        max_concurrency: Some(5),
        ..SwarmRun::default()
    };
    let report = run_swarm(
        swarm.coordinator(),
        &request,
        run,
        swarm.cancel(),
        &|_: &SwarmCounts| {},
    )
    .await
    .unwrap();
    let on_disk = std::fs::read_dir(
        fx.tmp
            .path()
            .join("home/sessions")
            .join(swarm.id())
            .join("agents"),
    )
    .unwrap()
    .count();
    assert_eq!(report.counts().completed, 20);
    (swarm.coordinator().ids().len(), on_disk)
}

#[tokio::test]
async fn a_batch_lets_its_finished_members_go_and_the_tool_keeps_them() {
    let fx = Fixture::with_config(ScriptSet::single(vec![Step::text("ok")]), MODEL).await;
    assert_eq!(swarm_of(&fx, true).await, (0, 20));
    assert_eq!(swarm_of(&fx, false).await, (20, 20));
}
