//! A child's hooks: the session's and its definition's inline ones, run with the child's own
//! identity (its id, its type, its parent), and `SubagentStart` as it starts. Its
//! `SubagentStop` fires in its own loop when it would end its turn.

use std::path::Path;

use kigi_agent::Agent;
use kigi_agent::hooks::HookEvent;
use serde_json::Map;
use tokio_util::sync::CancellationToken;

use super::coordinator::Coordinator;
use crate::hooks::HookIdentity;
use crate::session::SessionSetup;

impl Coordinator {
    /// Gives `setup` the child's hooks and runs its `SubagentStart` hooks (their runs are
    /// written to the child's transcript when it starts).
    pub(super) async fn child_hooks(
        &self,
        setup: &mut SessionSetup,
        agent: &Agent,
        id: &str,
        cwd: &Path,
    ) {
        let guard = &self.setup.guard;
        let identity = HookIdentity {
            session_id: self.setup.session_id.clone(),
            transcript_path: self
                .setup
                .store
                .child_wire_path(&self.setup.session_id, id)
                .unwrap_or_default(),
            cwd: cwd.to_path_buf(),
            project_dir: guard.project_dir.clone(),
            agent_id: id.to_owned(),
            agent_type: agent.name.clone(),
            parent_agent_id: Some(kigi_protocol::MAIN_AGENT_ID.to_owned()),
        };
        let (hooks, warning) =
            guard.agent_hooks(&agent.name, agent.definition.hooks.as_ref(), identity);
        if let Some(warning) = warning {
            tracing::warn!(%warning, "subagent hooks");
        }
        let Some(hooks) = hooks else {
            return;
        };
        hooks
            .run(
                HookEvent::SubagentStart,
                &[agent.name.as_str()],
                Map::new(),
                setup.runtime.mode(),
                &CancellationToken::new(),
            )
            .await;
        setup.runtime.set_hooks(hooks);
    }
}
