//! The agent swarm: one prompt template fanned out over up to 128 items. `plan` validates and
//! expands (pure), `schedule` is the launch ramp and cap (pure arithmetic), `engine` drives
//! them against a backend, `backend` is the subagent coordinator as that backend (the only
//! way a member starts), `tool` is `agent_swarm`.

mod backend;
mod engine;
mod plan;
mod schedule;
mod tool;

pub use backend::{CoordinatorBackend, SwarmRun, run_swarm, swarm_settings};
pub use engine::{
    EngineSettings, IdSlot, MemberFuture, MemberReport, MemberRun, SwarmBackend, SwarmCounts,
    SwarmOutcome, SwarmReport, member_budget, run,
};
pub use plan::{
    ITEM_PLACEHOLDER, MAX_ITEMS, MIN_ITEMS, MemberSpec, PlanContext, PlanFault, SwarmPlan,
    SwarmRequest, plan, plan_with_effort,
};
pub use schedule::{AdaptiveCapacity, Schedule};
pub use tool::AgentSwarm;
