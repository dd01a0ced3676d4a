//! Subagents: a main agent hands focused work to children, one level deep.
//!
//! `spawn_args` checks a spawn alone; `model_layers`, `binding` (model, effort and the model
//! policy) and `child_agent` resolve what the child runs with; `coordinator` starts, waits for and keeps children; `tools` are what the model
//! calls.

mod binding;
pub(crate) mod child;
mod child_agent;
mod child_approver;
mod child_hooks;
mod coordinator;
mod delegation_notice;
mod external_child;
mod listing;
mod messaging;
mod model_layers;
mod model_profile_caps;
mod resolve;
mod result;
mod resume;
mod session_choices;
mod spawn_args;
mod spawn_error;
mod tools;

use std::sync::Arc;

pub use child_agent::{child_agent, child_permission};
pub(crate) use coordinator::CoordinatorSetup;
pub use coordinator::{
    Coordinator, DEFAULT_AWAIT_BUDGET, DEFAULT_CHILD_TIMEOUT, EnvLookup, SpawnOutcome,
};
pub use messaging::{ApplyWorktree, ListSubagents, NotifyParent, SendToSubagent};
pub use model_layers::{ModelLayers, ModelPick, ModelSource, pick_model};
pub use result::{ChildStatus, SubagentResult};
pub use spawn_args::{CheckedSpawn, SpawnArgs};
pub(crate) use spawn_args::{parse_capability_mode, parse_effort, parse_isolation};
pub use spawn_error::{ChildError, SpawnError};
pub use tools::{KillTask, SpawnSubagent, WaitForOutput};

use crate::session::SessionSetup;

impl SessionSetup {
    /// Gives the main agent its subagent tools and makes the coordinator its inbox. With
    /// subagents switched off, nothing is added and the tools are not offered.
    pub fn with_coordinator(mut self, coordinator: &Arc<Coordinator>) -> Self {
        if !coordinator.enabled() {
            return self;
        }
        self.runtime
            .register(Arc::new(crate::swarm::AgentSwarm(Arc::clone(coordinator))));
        self.runtime
            .register(Arc::new(SpawnSubagent(Arc::clone(coordinator))));
        self.runtime
            .register(Arc::new(WaitForOutput(Arc::clone(coordinator))));
        self.runtime
            .register(Arc::new(KillTask(Arc::clone(coordinator))));
        self.runtime
            .register(Arc::new(SendToSubagent(Arc::clone(coordinator))));
        self.runtime
            .register(Arc::new(ListSubagents(Arc::clone(coordinator))));
        self.runtime
            .register(Arc::new(ApplyWorktree(Arc::clone(coordinator))));
        self.inbox = Some(Arc::clone(coordinator) as Arc<dyn crate::inbox::Inbox>);
        self
    }
}
