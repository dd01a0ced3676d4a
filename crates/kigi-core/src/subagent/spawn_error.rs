//! Why a subagent did not start, and why an operation on a started one did not happen.

use std::path::PathBuf;

use kigi_agent::AgentBuildError;
use kigi_model::ModelConfigError;

use super::model_layers::ModelSource;
use crate::session_store::StoreError;
use crate::worktree::WorktreeError;

/// A spawn (or resume, or type lookup) that did not start a child.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// `[subagents.toggle]` switches the type off.
    #[error("subagent_type `{agent_type}` is disabled by [subagents.toggle]")]
    TypeDisabled {
        /// The type asked for.
        agent_type: String,
    },
    /// A route (`profile.route`) whose base profile is not discovered.
    #[error("route `{route}` specializes `{base}`, which is missing")]
    RouteBaseMissing {
        /// The route asked for.
        route: String,
        /// Its base profile.
        base: String,
    },
    /// The type's file says `private: true`.
    #[error("subagent_type `{agent_type}`: profile is private (it takes no new dispatches)")]
    PrivateProfile {
        /// The type asked for.
        agent_type: String,
    },
    /// Another child of this session already has the name.
    #[error("name `{name}` is already used by a subagent of this session")]
    NameTaken {
        /// The name asked for.
        name: String,
    },
    /// Neither an agent nor a role has the name.
    #[error("unknown subagent_type `{agent_type}`; available: {}", available.join(", "))]
    UnknownType {
        /// The type asked for.
        agent_type: String,
        /// Every type that can be spawned.
        available: Vec<String>,
    },
    /// Looking up the type's agent definition failed.
    #[error("{0}")]
    Definition(#[source] AgentBuildError),
    /// A role runs as `base`, which is not discovered.
    #[error("role `{role}` runs as `{base}`, which is missing")]
    RoleBaseMissing {
        /// The role.
        role: String,
        /// The agent it runs as.
        base: &'static str,
    },
    /// The role's prompt file could not be read.
    #[error("{reason}")]
    RolePrompt {
        /// The role.
        role: String,
        /// What went wrong, naming the file.
        reason: String,
    },
    /// The role's `default_capability_mode` is not a mode.
    #[error("role `{role}`: default_capability_mode `{mode}` is unknown")]
    RoleCapabilityMode {
        /// The role.
        role: String,
        /// The value in its file.
        mode: String,
    },
    /// The persona is unknown or its instructions cannot be read.
    #[error("{reason}")]
    Persona {
        /// The persona asked for.
        persona: String,
        /// What went wrong, naming the persona.
        reason: String,
    },
    /// The child's model or effort breaks a hard model list.
    #[error("profile.constraint_violation: subagent_type `{agent_type}`: {violation}")]
    Policy {
        /// The type asked for.
        agent_type: String,
        /// The list, where it was set, and the value it refused.
        violation: Box<kigi_agent::ModelPolicyError>,
    },
    /// The type's `effort` is not an effort.
    #[error("subagent_type `{agent_type}`: effort `{effort}` is unknown (low, medium or high)")]
    DefinitionEffort {
        /// The type.
        agent_type: String,
        /// The value in its file.
        effort: String,
    },
    /// The persona's `reasoning_effort` is not an effort.
    #[error("persona: reasoning_effort `{effort}` is unknown (low, medium or high)")]
    PersonaEffort {
        /// The value in the persona.
        effort: String,
    },
    /// The child's `cwd` cannot be resolved.
    #[error("cwd `{cwd}`: {source}")]
    Cwd {
        /// The `cwd` argument.
        cwd: String,
        /// Why it cannot be resolved.
        source: std::io::Error,
    },
    /// The child's `cwd` is outside the parent's working directory.
    #[error("cwd `{cwd}` must be a folder inside {}", root.display())]
    CwdOutside {
        /// The `cwd` argument.
        cwd: String,
        /// The parent's working directory.
        root: PathBuf,
    },
    /// The parent's own working directory cannot be resolved.
    #[error("the working directory: {0}")]
    WorkingDirectory(#[source] std::io::Error),
    /// The child's worktree cannot be made.
    #[error(transparent)]
    Worktree(#[from] WorktreeError),
    /// The model picked for the child cannot be used.
    #[error("model `{alias}` (from the {layer}) cannot be used: {source}")]
    Model {
        /// The model alias.
        alias: String,
        /// Which layer picked it (spawn, role, persona, routing, definition).
        layer: &'static str,
        /// Why it cannot be used.
        source: ModelConfigError,
    },
    /// An explicitly requested model alias does not resolve.
    #[error("model `{alias}` cannot be used: {source}")]
    ModelAlias {
        /// The model alias.
        alias: String,
        /// Why it cannot be used.
        source: ModelConfigError,
    },
    /// The child's agent cannot be built for its type.
    #[error("cannot build subagent_type `{agent_type}`: {source}")]
    BuildAgent {
        /// The type.
        agent_type: String,
        /// Why.
        source: AgentBuildError,
    },
    /// The type drives a browser, and there is none to drive.
    #[error("cannot start subagent_type `{agent_type}`: {reason}")]
    BrowserMissing {
        /// The type.
        agent_type: String,
        /// What is missing and how to install it (boxed: a path, rarely built).
        reason: Box<kigi_agent::BrowserMissing>,
    },
    /// The child's transcript cannot be created or seeded.
    #[error("cannot start subagent {id}: {source}")]
    Store {
        /// The child's id.
        id: String,
        /// Why.
        source: StoreError,
    },
    /// `resume_from` names no child of this session.
    #[error("resume_from `{source_id}`: no subagent with that id or name in this session")]
    ResumeUnknown {
        /// The `resume_from` argument.
        source_id: String,
    },
    /// `resume_from` names a child that is still running.
    #[error("resume_from `{source_id}`: it is still running; wait for it first")]
    ResumeRunning {
        /// The `resume_from` argument.
        source_id: String,
    },
    /// `resume_from` names a child that did not complete.
    #[error("resume_from `{source_id}`: it {what}; only a completed subagent can be resumed")]
    ResumeNotCompleted {
        /// The `resume_from` argument.
        source_id: String,
        /// How it ended.
        what: &'static str,
    },
    /// `resume_from` names a child of another type.
    #[error(
        "resume_from `{source_id}`: it is of type `{actual}`, not `{wanted}`; resume with the same subagent_type"
    )]
    ResumeWrongType {
        /// The `resume_from` argument.
        source_id: String,
        /// Its type.
        actual: String,
        /// The type asked for.
        wanted: String,
    },
    /// In plan mode only read-only subagents may be spawned.
    #[error(
        "plan mode spawns read-only subagents only, and `{agent_type}` is not one: {why}; use subagent_type explore or plan, or capability_mode read-only"
    )]
    PlanMode {
        /// The type asked for.
        agent_type: String,
        /// What makes it more than read-only.
        why: &'static str,
    },
    /// `resume_from` names a child busy with a message.
    #[error("resume_from `{source_id}`: it is busy with a message; try again when it finishes")]
    ResumeBusy {
        /// The `resume_from` argument.
        source_id: String,
    },
    /// The resumed child's transcript cannot be read.
    #[error("resume_from `{source_id}`: {source}")]
    ResumeLoad {
        /// The `resume_from` argument.
        source_id: String,
        /// Why.
        source: StoreError,
    },
    /// The spawn or the type's file names an executor `config.toml` does not configure.
    #[error("executor `{executor}` is not configured; configured: {}", if known.is_empty() { "none; add [agent_executors.<id>] to config.toml".to_owned() } else { known.join(", ") })]
    UnknownExecutor {
        /// The executor id asked for.
        executor: String,
        /// The ids of `[agent_executors]`.
        known: Vec<String>,
    },
    /// The executor cannot run this child (its program is missing, or the spawn asks for
    /// something an external engine cannot honour).
    #[error("executor `{executor}`: {reason}")]
    Executor {
        /// The executor id.
        executor: String,
        /// Why, naming the program or the argument.
        reason: String,
    },
    /// A foreground child was cancelled before it finished.
    #[error("subagent {id} was cancelled before it finished")]
    Cancelled {
        /// The child's id.
        id: String,
    },
}

impl SpawnError {
    /// Whether the spawn failed for a reason in the environment (git, model configuration,
    /// the session store, the file system) rather than in the request.
    /// A model alias the spawn itself named that does not exist is a bad request; any other
    /// model configuration fault (a role's, persona's or routing's alias, a missing key) is
    /// environmental.
    pub fn is_environmental(&self) -> bool {
        match self {
            Self::Worktree(error) => !error.is_bad_request(),
            Self::Model { layer, source, .. } => {
                !(*layer == ModelSource::SpawnOverride.as_str()
                    && matches!(source, ModelConfigError::UnknownAlias { .. }))
            }
            Self::ModelAlias { source, .. } => {
                !matches!(source, ModelConfigError::UnknownAlias { .. })
            }
            Self::Store { .. }
            | Self::ResumeLoad { .. }
            | Self::WorkingDirectory(_)
            | Self::BrowserMissing { .. } => true,
            _ => false,
        }
    }

    /// A stable code for an environmental failure (`spawn.worktree`, `spawn.model`,
    /// `spawn.store`, `spawn.browser`, `spawn.io`); `None` for a bad request.
    pub fn code(&self) -> Option<&'static str> {
        if !self.is_environmental() {
            return None;
        }
        Some(match self {
            Self::Worktree(_) => "spawn.worktree",
            Self::Model { .. } | Self::ModelAlias { .. } => "spawn.model",
            Self::Store { .. } | Self::ResumeLoad { .. } => "spawn.store",
            Self::BrowserMissing { .. } => "spawn.browser",
            _ => "spawn.io",
        })
    }
}

/// An operation on a started child (`result`, `kill`, `send`, `apply_worktree`) that did not
/// happen.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    /// No child of this session has the id or name.
    #[error("no subagent `{id}` in this session; its subagents: {}", if known.is_empty() { "none".to_owned() } else { known.join(", ") })]
    UnknownChild {
        /// The id or name asked for.
        id: String,
        /// The session's child ids.
        known: Vec<String>,
    },
    /// The child was cancelled; it takes no more messages.
    #[error("subagent {id} was cancelled; spawn a new one")]
    Cancelled {
        /// The child's id.
        id: String,
    },
    /// The child did not run in a worktree.
    #[error("subagent {id} did not run in a worktree")]
    NoWorktree {
        /// The child's id.
        id: String,
    },
    /// The child is still running, so its worktree cannot be applied yet.
    #[error("subagent {id} is still running; apply its worktree when it finishes")]
    StillRunning {
        /// The child's id.
        id: String,
    },
    /// The apply task was stopped before it finished.
    #[error("the apply was interrupted")]
    ApplyInterrupted,
    /// Applying the child's worktree failed.
    #[error(transparent)]
    Worktree(#[from] WorktreeError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_failure_is_environmental_and_an_unknown_type_is_not() {
        let git = SpawnError::Worktree(WorktreeError::Git {
            args: vec!["worktree".into(), "add".into()],
            stderr: "fatal: boom".into(),
        });
        assert!(git.is_environmental());
        assert_eq!(git.code(), Some("spawn.worktree"));
        let outside = SpawnError::Worktree(WorktreeError::NotARepository { cwd: "/tmp".into() });
        assert!(!outside.is_environmental());
        assert_eq!(outside.code(), None);
        let unknown = SpawnError::UnknownType {
            agent_type: "nope".into(),
            available: vec!["explore".into()],
        };
        assert!(!unknown.is_environmental());
        assert_eq!(
            unknown.to_string(),
            "unknown subagent_type `nope`; available: explore"
        );
        assert!(!SpawnError::NameTaken { name: "a".into() }.is_environmental());
        let unknown_alias = || ModelConfigError::UnknownAlias {
            name: "nope".into(),
            known: "default".into(),
        };
        let asked = SpawnError::Model {
            alias: "nope".into(),
            layer: ModelSource::SpawnOverride.as_str(),
            source: unknown_alias(),
        };
        assert!(!asked.is_environmental());
        let routed = SpawnError::Model {
            alias: "nope".into(),
            layer: ModelSource::Role.as_str(),
            source: unknown_alias(),
        };
        assert_eq!(routed.code(), Some("spawn.model"));
    }

    #[test]
    fn an_unknown_child_names_the_known_ones() {
        let error = ChildError::UnknownChild {
            id: "sub-9".into(),
            known: Vec::new(),
        };
        assert_eq!(
            error.to_string(),
            "no subagent `sub-9` in this session; its subagents: none"
        );
    }
}
