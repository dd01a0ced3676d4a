//! The subagent coordinator as the swarm's backend: a member is a child started through the
//! same coordinator as `spawn_subagent` (no second way to start a child), awaited up to the
//! foreground budget, then reported as backgrounded if it is still running.

use std::sync::Arc;
use std::time::Duration;

use kigi_agent::SwarmConfig;
use tokio_util::sync::CancellationToken;

use super::engine::{
    EngineSettings, IdSlot, MemberFuture, MemberRun, SwarmBackend, SwarmReport, SwarmWatch,
    member_budget, run,
};
use super::plan::{MemberSpec, PlanContext, PlanFault, SwarmPlan, SwarmRequest, plan_with_effort};
use super::schedule::Schedule;
use crate::subagent::{CheckedSpawn, ChildStatus, Coordinator, SpawnOutcome};

/// Runs members as children of `coordinator`.
#[derive(Debug)]
pub struct CoordinatorBackend {
    pub coordinator: Arc<Coordinator>,
    pub plan: SwarmPlan,
}

impl SwarmBackend for CoordinatorBackend {
    fn run(&self, member: &MemberSpec, cancel: CancellationToken, id: IdSlot) -> MemberFuture {
        let coordinator = Arc::clone(&self.coordinator);
        let spawn = CheckedSpawn {
            prompt: member.prompt.clone(),
            description: format!("{} #{}", self.plan.description, member.index + 1),
            agent_type: self.plan.subagent_type.clone(),
            background: false,
            capability_mode: self.plan.capability_mode,
            cwd: None,
            name: None,
            model: self.plan.model.clone(),
            effort: self.plan.effort,
            persona: None,
            resume_from: None,
            worktree: self.plan.worktree,
            executor: self.plan.executor.clone(),
        };
        let release = self.plan.batch;
        // The id is taken here, not in the future: members get ids in launch (item) order.
        let child_id = coordinator.reserve_id();
        Box::pin(async move {
            let child = match coordinator.launch(spawn, child_id, None).await {
                Ok(child) => child,
                Err(error) => {
                    return MemberRun::Failed {
                        error: error.to_string(),
                    };
                }
            };
            if let Ok(mut slot) = id.lock() {
                *slot = Some(child.id.clone());
            }
            let outcome = coordinator.await_foreground(&child, &cancel).await;
            if release && child.finished() {
                // A batch's finished member lives on in its transcript, not in memory.
                coordinator.release(&child.id);
            }
            match outcome {
                Ok(SpawnOutcome::Background { .. }) => MemberRun::Backgrounded,
                Ok(SpawnOutcome::Finished(result)) => match result.status {
                    ChildStatus::Completed => MemberRun::Completed {
                        output: result.message.clone(),
                        tokens: result.usage.input_tokens + result.usage.output_tokens,
                    },
                    ChildStatus::Cancelled => MemberRun::Cancelled,
                    _ if result.rate_limited => MemberRun::RateLimited {
                        error: result.error.clone().unwrap_or_default(),
                    },
                    _ => MemberRun::Failed {
                        error: result.error.clone().unwrap_or_else(|| "failed".into()),
                    },
                },
                Err(_) if cancel.is_cancelled() => MemberRun::Cancelled,
                Err(error) => MemberRun::Failed {
                    error: error.to_string(),
                },
            }
        })
    }
}

impl PlanContext for Coordinator {
    fn depth(&self) -> u8 {
        0
    }

    fn check_type(&self, agent_type: &str) -> Result<(), crate::subagent::SpawnError> {
        self.check_spawnable_type(agent_type)
    }

    fn check_model(&self, model: &str) -> Result<(), crate::subagent::SpawnError> {
        self.check_model_alias(model)
    }

    fn check_binding(
        &self,
        agent_type: &str,
        model: Option<&str>,
        effort: Option<kigi_model::ReasoningEffort>,
    ) -> Result<(), crate::subagent::SpawnError> {
        Coordinator::check_binding(self, agent_type, model, effort)
    }

    fn check_executor(&self, executor: &str) -> Result<(), crate::subagent::SpawnError> {
        self.check_executor_id(executor)
    }
}

/// Characters of each member's answer on its `swarm_member` line (head and tail kept).
pub const STREAMED_OUTPUT_CHARS: usize = 6_000;

/// How a swarm runs beside its request: every member's `effort` (checked with the rest of
/// the request) and the most members at once (overriding `[swarm]` and the environment).
#[derive(Debug, Clone, Copy, Default)]
pub struct SwarmRun<'a> {
    pub effort: Option<&'a str>,
    pub max_concurrency: Option<usize>,
    /// The caller streams each member's line as it finishes: the final report then keeps
    /// outcomes without outputs.
    pub streams_members: bool,
}

/// From a request to a report on `coordinator`, the one path `agent_swarm` and `kigi swarm`
/// share: plan (every fault at once, nothing started), settings from `[swarm]` and the
/// environment, then the engine.
pub async fn run_swarm(
    coordinator: &Arc<Coordinator>,
    request: &SwarmRequest,
    run: SwarmRun<'_>,
    cancel: &CancellationToken,
    progress: &dyn SwarmWatch,
) -> Result<SwarmReport, Vec<PlanFault>> {
    let plan = plan_with_effort(request, run.effort, &**coordinator)?;
    Ok(run_plan(coordinator, plan, run, cancel, progress).await)
}

/// A plan (from [`plan_with_effort`], possibly narrowed to the members a resumed swarm
/// still owes) run on `coordinator`.
pub async fn run_plan(
    coordinator: &Arc<Coordinator>,
    plan: SwarmPlan,
    run_with: SwarmRun<'_>,
    cancel: &CancellationToken,
    progress: &dyn SwarmWatch,
) -> SwarmReport {
    let mut settings = swarm_settings(coordinator.swarm_config(), plan.members.len());
    if plan.batch {
        settings.schedule.max_concurrency = coordinator
            .swarm_config()
            .max_concurrency
            .unwrap_or(settings.schedule.max_concurrency)
            .clamp(1, super::plan::MAX_BATCH_ITEMS);
    }
    if let Some(cap) = run_with.max_concurrency {
        settings.schedule.max_concurrency = cap.max(1);
    }
    settings.keep_outputs = !run_with.streams_members;
    if run_with.streams_members {
        // Each answer goes out on a line of its own: it need not share one tool result.
        settings.member_output_chars = STREAMED_OUTPUT_CHARS;
    }
    let backend = Arc::new(CoordinatorBackend {
        coordinator: Arc::clone(coordinator),
        plan: plan.clone(),
    });
    run(&plan, backend, &settings, cancel, progress).await
}

/// Engine settings from `[swarm]` (with `KIGI_SWARM_MAX_CONCURRENCY` already applied when
/// the configuration was loaded), for a swarm of `members`.
pub fn swarm_settings(config: &SwarmConfig, members: usize) -> EngineSettings {
    let defaults = EngineSettings::default();
    let max_concurrency = config
        .max_concurrency
        .unwrap_or(defaults.schedule.max_concurrency)
        .clamp(1, super::plan::MAX_ITEMS);
    EngineSettings {
        schedule: Schedule {
            initial_burst: config
                .initial_burst
                .unwrap_or(defaults.schedule.initial_burst),
            interval: config
                .launch_interval_ms
                .map_or(defaults.schedule.interval, Duration::from_millis),
            max_concurrency,
        },
        rate_limit_retries: config
            .rate_limit_retries
            .unwrap_or(defaults.rate_limit_retries),
        retry_delay: config
            .retry_delay_ms
            .map_or(defaults.retry_delay, Duration::from_millis),
        deadline: config
            .deadline_ms
            .map_or(defaults.deadline, Duration::from_millis),
        member_output_chars: member_budget(members),
        keep_outputs: true,
    }
}
