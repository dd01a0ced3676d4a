//! The swarm engine against backends that await: concurrency, ordering, the cap, the ramp,
//! the deadline, rate-limit retries, cancellation on drop. Time is tokio's paused clock where
//! the test is about time, so nothing here sleeps for real.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kigi_core::swarm::{
    EngineSettings, IdSlot, MemberFuture, MemberReport, MemberRun, MemberSpec, Schedule,
    SwarmBackend, SwarmCounts, SwarmOutcome, SwarmPlan, SwarmWatch, run,
};
use tokio_util::sync::CancellationToken;

fn plan(items: usize) -> SwarmPlan {
    SwarmPlan {
        description: "test swarm".into(),
        subagent_type: "general-purpose".into(),
        capability_mode: None,
        worktree: false,
        model: None,
        effort: None,
        executor: None,
        batch: false,
        members: (0..items)
            .map(|index| MemberSpec {
                index,
                item: format!("item-{index}"),
                prompt: format!("do item-{index}"),
            })
            .collect(),
    }
}

fn settings(burst: usize, interval_ms: u64, cap: usize) -> EngineSettings {
    EngineSettings {
        schedule: Schedule {
            initial_burst: burst,
            interval: Duration::from_millis(interval_ms),
            max_concurrency: cap,
        },
        rate_limit_retries: 2,
        retry_delay: Duration::from_millis(100),
        deadline: Duration::from_secs(3600),
        member_output_chars: 2_000,
        keep_outputs: true,
    }
}

/// Counts how many members run at once; each yields a few times before finishing.
#[derive(Default)]
struct Counting {
    current: Arc<AtomicUsize>,
    max: Arc<AtomicUsize>,
}

impl SwarmBackend for Counting {
    fn run(&self, member: &MemberSpec, _: CancellationToken, _: IdSlot) -> MemberFuture {
        let current = Arc::clone(&self.current);
        let max = Arc::clone(&self.max);
        let output = format!("result of {}", member.item);
        Box::pin(async move {
            let now = current.fetch_add(1, Ordering::SeqCst) + 1;
            max.fetch_max(now, Ordering::SeqCst);
            for _ in 0..5 {
                tokio::task::yield_now().await;
            }
            current.fetch_sub(1, Ordering::SeqCst);
            MemberRun::Completed { output, tokens: 10 }
        })
    }
}

#[tokio::test]
async fn the_cap_holds_and_the_fixture_could_exceed_it() {
    for (cap, expected) in [(4, 4), (20, 20)] {
        let backend = Arc::new(Counting::default());
        let max = Arc::clone(&backend.max);
        let report = run(
            &plan(20),
            backend,
            &settings(20, 0, cap),
            &CancellationToken::new(),
            &|_: &SwarmCounts| {},
        )
        .await;
        assert_eq!(max.load(Ordering::SeqCst), expected, "cap {cap}");
        assert_eq!(report.counts().completed, 20);
        assert_eq!(report.tokens, 200);
    }
}

/// Every member's end as the watcher saw it, in the order it saw them.
#[derive(Default)]
struct Streamed(Mutex<Vec<MemberReport>>);

impl SwarmWatch for Streamed {
    fn counts(&self, _: &SwarmCounts) {}
    fn member(&self, member: &MemberReport) {
        self.0.lock().unwrap().push(member.clone());
    }
}

#[tokio::test]
async fn a_streaming_watcher_gets_each_answer_once_and_the_report_keeps_only_outcomes() {
    // A resumed swarm's plan: items 1 and 3 of five still owed.
    let mut owed = plan(5);
    owed.members.retain(|m| m.index == 1 || m.index == 3);
    let watch = Streamed::default();
    let report = run(
        &owed,
        Arc::new(Counting::default()),
        &EngineSettings {
            keep_outputs: false,
            ..settings(5, 0, 5)
        },
        &CancellationToken::new(),
        &watch,
    )
    .await;
    let mut seen: Vec<(usize, String, String)> = watch
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|m| (m.index, m.item.clone(), m.output.clone()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            (1, "item-1".into(), "result of item-1".into()),
            (3, "item-3".into(), "result of item-3".into())
        ]
    );
    let kept: Vec<(usize, SwarmOutcome, &str)> = report
        .members
        .iter()
        .map(|m| (m.index, m.outcome, m.output.as_str()))
        .collect();
    assert_eq!(
        kept,
        [
            (1, SwarmOutcome::Completed, ""),
            (3, SwarmOutcome::Completed, "")
        ]
    );
    assert_eq!(report.tokens, 20);
}

/// Member 1's task panics; the others complete.
struct Panicking;

impl SwarmBackend for Panicking {
    fn run(&self, member: &MemberSpec, _: CancellationToken, _: IdSlot) -> MemberFuture {
        let index = member.index;
        Box::pin(async move {
            assert!(index != 1, "member 1 breaks");
            MemberRun::Completed {
                output: format!("out {index}"),
                tokens: 1,
            }
        })
    }
}

#[tokio::test]
async fn a_member_whose_task_panics_is_reported_failed_and_streamed_like_the_rest() {
    let watch = Streamed::default();
    let report = run(
        &plan(3),
        Arc::new(Panicking),
        &settings(3, 0, 3),
        &CancellationToken::new(),
        &watch,
    )
    .await;
    let outcomes: Vec<SwarmOutcome> = report.members.iter().map(|m| m.outcome).collect();
    assert_eq!(
        outcomes,
        [
            SwarmOutcome::Completed,
            SwarmOutcome::Failed,
            SwarmOutcome::Completed
        ]
    );
    let error = report.members[1].error.as_deref().unwrap();
    assert!(error.contains("ended abnormally"), "{error}");
    assert_eq!(watch.0.lock().unwrap().len(), 3);
}

/// Member k finishes only after member k+1 has: results arrive in reverse order.
struct Reverse {
    finished: Arc<Mutex<Vec<usize>>>,
    signals: Vec<Arc<tokio::sync::Notify>>,
}

impl SwarmBackend for Reverse {
    fn run(&self, member: &MemberSpec, _: CancellationToken, id: IdSlot) -> MemberFuture {
        let index = member.index;
        let wait_for = self.signals.get(index + 1).cloned();
        let signal = Arc::clone(&self.signals[index]);
        let finished = Arc::clone(&self.finished);
        *id.lock().unwrap() = Some(format!("sub-{index}"));
        Box::pin(async move {
            if let Some(next) = wait_for {
                next.notified().await;
            }
            finished.lock().unwrap().push(index);
            signal.notify_one();
            MemberRun::Completed {
                output: format!("out {index}"),
                tokens: 1,
            }
        })
    }
}

#[tokio::test]
async fn results_are_reported_in_item_order_whatever_order_they_finish_in() {
    let signals: Vec<Arc<tokio::sync::Notify>> = (0..6)
        .map(|_| Arc::new(tokio::sync::Notify::new()))
        .collect();
    let finished = Arc::new(Mutex::new(Vec::new()));
    let backend = Arc::new(Reverse {
        finished: Arc::clone(&finished),
        signals,
    });
    let report = run(
        &plan(6),
        backend,
        &settings(6, 0, 6),
        &CancellationToken::new(),
        &|_: &SwarmCounts| {},
    )
    .await;
    assert_eq!(*finished.lock().unwrap(), [5, 4, 3, 2, 1, 0]);
    let order: Vec<(usize, Option<String>, String)> = report
        .members
        .iter()
        .map(|m| (m.index, m.id.clone(), m.output.clone()))
        .collect();
    assert_eq!(order[0], (0, Some("sub-0".into()), "out 0".into()));
    assert_eq!(
        order.iter().map(|o| o.0).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5]
    );
}

/// Records when each member launched, on tokio's clock.
struct Launches(Arc<Mutex<Vec<Duration>>>, tokio::time::Instant);

impl SwarmBackend for Launches {
    fn run(&self, _: &MemberSpec, _: CancellationToken, _: IdSlot) -> MemberFuture {
        self.0.lock().unwrap().push(self.1.elapsed());
        Box::pin(async {
            MemberRun::Completed {
                output: String::new(),
                tokens: 0,
            }
        })
    }
}

#[tokio::test(start_paused = true)]
async fn the_ramp_bursts_then_launches_one_per_interval() {
    let launches = Arc::new(Mutex::new(Vec::new()));
    let backend = Arc::new(Launches(Arc::clone(&launches), tokio::time::Instant::now()));
    run(
        &plan(5),
        backend,
        &settings(2, 100, 10),
        &CancellationToken::new(),
        &|_: &SwarmCounts| {},
    )
    .await;
    let ms: Vec<u128> = launches
        .lock()
        .unwrap()
        .iter()
        .map(Duration::as_millis)
        .collect();
    assert_eq!(ms, [0, 0, 100, 200, 300]);
}

/// Rate-limited on the first `limited` attempts, then completes.
struct Throttled {
    attempts: Arc<Mutex<Vec<usize>>>,
    limited: usize,
}

impl SwarmBackend for Throttled {
    fn run(&self, member: &MemberSpec, _: CancellationToken, _: IdSlot) -> MemberFuture {
        let attempt = {
            let mut attempts = self.attempts.lock().unwrap();
            attempts[member.index] += 1;
            attempts[member.index]
        };
        let limited = self.limited;
        Box::pin(async move {
            if attempt <= limited {
                MemberRun::RateLimited {
                    error: "model.rate_limited: slow down".into(),
                }
            } else {
                MemberRun::Completed {
                    output: "ok".into(),
                    tokens: 1,
                }
            }
        })
    }
}

#[tokio::test(start_paused = true)]
async fn rate_limited_members_are_retried_within_their_bound() {
    let attempts = Arc::new(Mutex::new(vec![0; 3]));
    let backend = Arc::new(Throttled {
        attempts: Arc::clone(&attempts),
        limited: 1,
    });
    let report = run(
        &plan(3),
        backend,
        &settings(3, 0, 3),
        &CancellationToken::new(),
        &|_: &SwarmCounts| {},
    )
    .await;
    assert!(
        report
            .members
            .iter()
            .all(|m| m.outcome == SwarmOutcome::Completed && m.attempts == 2)
    );
    let spent = Arc::new(Throttled {
        attempts: Arc::new(Mutex::new(vec![0; 2])),
        limited: 10,
    });
    let report = run(
        &plan(2),
        spent,
        &settings(2, 0, 2),
        &CancellationToken::new(),
        &|_: &SwarmCounts| {},
    )
    .await;
    for member in &report.members {
        assert_eq!(
            (member.outcome, member.attempts),
            (SwarmOutcome::RateLimited, 3)
        );
        assert!(
            member
                .error
                .as_deref()
                .unwrap()
                .ends_with("(after 3 attempts)")
        );
    }
}

/// Never finishes on its own; counts cancellations it observes from a task of its own (as a
/// real child runs apart from the engine).
struct Forever {
    cancelled: Arc<AtomicUsize>,
}

impl SwarmBackend for Forever {
    fn run(&self, member: &MemberSpec, cancel: CancellationToken, id: IdSlot) -> MemberFuture {
        *id.lock().unwrap() = Some(format!("sub-{}", member.index + 1));
        let cancelled = Arc::clone(&self.cancelled);
        let watcher = cancel.clone();
        tokio::spawn(async move {
            watcher.cancelled().await;
            cancelled.fetch_add(1, Ordering::SeqCst);
        });
        Box::pin(async move {
            cancel.cancelled().await;
            MemberRun::Cancelled
        })
    }
}

#[tokio::test(start_paused = true)]
async fn the_deadline_reports_stragglers_with_their_ids_and_leaves_them_running() {
    let cancelled = Arc::new(AtomicUsize::new(0));
    let backend = Arc::new(Forever {
        cancelled: Arc::clone(&cancelled),
    });
    let mut settings = settings(2, 0, 2);
    settings.deadline = Duration::from_secs(5);
    let report = run(
        &plan(3),
        backend,
        &settings,
        &CancellationToken::new(),
        &|_: &SwarmCounts| {},
    )
    .await;
    let outcomes: Vec<(SwarmOutcome, Option<String>)> = report
        .members
        .iter()
        .map(|m| (m.outcome, m.id.clone()))
        .collect();
    assert_eq!(
        outcomes,
        [
            (SwarmOutcome::StillRunning, Some("sub-1".into())),
            (SwarmOutcome::StillRunning, Some("sub-2".into())),
            (SwarmOutcome::Cancelled, None),
        ]
    );
    tokio::task::yield_now().await;
    assert_eq!(
        cancelled.load(Ordering::SeqCst),
        0,
        "stragglers must keep running"
    );
}

#[tokio::test]
async fn dropping_the_swarm_cancels_every_live_member() {
    let cancelled = Arc::new(AtomicUsize::new(0));
    let backend = Arc::new(Forever {
        cancelled: Arc::clone(&cancelled),
    });
    let started = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&started);
    let swarm = tokio::spawn(async move {
        let plan = plan(4);
        run(
            &plan,
            backend,
            &settings(4, 0, 4),
            &CancellationToken::new(),
            &move |c: &SwarmCounts| {
                seen.store(c.running, Ordering::SeqCst);
            },
        )
        .await
    });
    while started.load(Ordering::SeqCst) < 4 {
        tokio::task::yield_now().await;
    }
    swarm.abort();
    let _ = swarm.await;
    let all = tokio::time::timeout(Duration::from_secs(10), async {
        while cancelled.load(Ordering::SeqCst) < 4 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(
        all.is_ok(),
        "only {} of 4 members were cancelled",
        cancelled.load(Ordering::SeqCst)
    );
}

struct Fixed(MemberRun);

impl SwarmBackend for Fixed {
    fn run(&self, _: &MemberSpec, _: CancellationToken, _: IdSlot) -> MemberFuture {
        let run = self.0.clone();
        Box::pin(async move { run })
    }
}

#[tokio::test]
async fn backgrounded_members_are_not_failures_and_long_output_is_clamped() {
    let report = run(
        &plan(2),
        Arc::new(Fixed(MemberRun::Backgrounded)),
        &settings(2, 0, 2),
        &CancellationToken::new(),
        &|_: &SwarmCounts| {},
    )
    .await;
    assert!(
        report
            .members
            .iter()
            .all(|m| m.outcome == SwarmOutcome::Backgrounded)
    );
    assert!(
        report
            .render()
            .contains("keeps running; its result arrives later; do not relaunch it")
    );
    let long = "x".repeat(10_000);
    let mut narrow = settings(2, 0, 2);
    narrow.member_output_chars = 200;
    let report = run(
        &plan(2),
        Arc::new(Fixed(MemberRun::Completed {
            output: long,
            tokens: 5,
        })),
        &narrow,
        &CancellationToken::new(),
        &|_: &SwarmCounts| {},
    )
    .await;
    for member in &report.members {
        assert!(
            member.output.len() < 400 && member.output.contains("[… 9800 characters"),
            "{}",
            member.output
        );
    }
    assert!(
        report
            .render()
            .starts_with("swarm \"test swarm\": 2 members in")
    );
}
