//! The agent swarm: one prompt template fanned out over up to 128 items (the tool), or up to
//! 10,000 (`kigi swarm`). `plan` validates and expands (pure), `schedule` is the launch ramp
//! and cap (pure arithmetic), `engine` drives them against a backend, `backend` is the
//! subagent coordinator as that backend (the only way a member starts, in this process or on
//! an executor), `tool` is `agent_swarm`; `record` is a batch's `swarm.jsonl` and `resume`
//! what a resumed batch still owes.

mod backend;
mod engine;
mod plan;
mod record;
mod resume;
mod schedule;
mod tool;

pub use backend::{CoordinatorBackend, SwarmRun, run_plan, run_swarm, swarm_settings};
pub use engine::{
    EngineSettings, IdSlot, MemberFuture, MemberReport, MemberRun, SwarmBackend, SwarmCounts,
    SwarmOutcome, SwarmReport, SwarmWatch, member_budget, run,
};
pub use plan::{
    ITEM_PLACEHOLDER, MAX_BATCH_ITEMS, MAX_ITEMS, MIN_ITEMS, MemberSpec, PlanContext, PlanFault,
    SwarmPlan, SwarmRequest, plan, plan_with_effort,
};
pub use record::{
    RECORD_FILE, RecordError, RecordedMember, RecordedRequest, RecordedSwarm, RecordingWatch,
    SwarmRecord, read_record,
};
pub use resume::resume_plan;
pub use schedule::{AdaptiveCapacity, Schedule};
pub use tool::AgentSwarm;
