//! `ToolKind`: what a tool does, at the level capability modes and front ends care about.
//!
//! The set is open: a value this build does not know reads as [`ToolKind::Other`], so a newer
//! session file or peer never fails to load because of a new kind.

use serde::{Deserialize, Serialize};

/// Categorizes what a tool does at a high level (the `kind` of the `kigi/tool` envelope).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    ListDir,
    Write,
    Move,
    Search,
    Lsp,
    Execute,
    Plan,
    WebSearch,
    WebFetch,
    BackgroundTaskAction,
    WaitTasksAction,
    KillTaskAction,
    List,
    Skill,
    MemorySearch,
    MemoryGet,
    Task,
    AgentSwarm,
    EnterPlan,
    ExitPlan,
    AskUser,
    DeployApp,
    SearchTool,
    UseTool,
    Monitor,
    GoalUpdate,
    /// Declares the agent's task done, with its result summary (`complete_task`).
    Complete,
    /// Any kind this build does not know.
    #[serde(other)]
    Other,
}

impl ToolKind {
    /// True for kinds that change files in the working tree.
    pub fn writes_files(self) -> bool {
        matches!(self, Self::Edit | Self::Delete | Self::Write | Self::Move)
    }

    /// True for kinds that run commands or act on running background work.
    pub fn executes(self) -> bool {
        matches!(
            self,
            Self::Execute
                | Self::BackgroundTaskAction
                | Self::WaitTasksAction
                | Self::KillTaskAction
        )
    }

    /// True for kinds that start other agents.
    pub fn delegates(self) -> bool {
        matches!(self, Self::Task | Self::AgentSwarm)
    }
}

#[cfg(test)]
mod tests {
    use super::ToolKind;

    #[test]
    fn unknown_kind_reads_as_other() {
        let kind: ToolKind = serde_json::from_str("\"teleport\"").unwrap();
        assert_eq!(kind, ToolKind::Other);
    }

    #[test]
    fn wire_names_are_snake_case() {
        assert_eq!(
            serde_json::to_string(&ToolKind::BackgroundTaskAction).unwrap(),
            "\"background_task_action\""
        );
        assert_eq!(
            serde_json::to_string(&ToolKind::ListDir).unwrap(),
            "\"list_dir\""
        );
        assert_eq!(
            serde_json::to_string(&ToolKind::AgentSwarm).unwrap(),
            "\"agent_swarm\""
        );
    }
}
