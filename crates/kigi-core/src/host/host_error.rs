//! Why the host could not open a session or take a command.

use std::path::PathBuf;

use kigi_agent::{AgentBuildError, ConfigError};
use kigi_model::ModelConfigError;

use crate::session_store::StoreError;

/// A session that could not be opened, or a command that could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// `config.toml` or the trust store exists but cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The session file could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `--continue` in a folder where no session was started.
    #[error("--continue: no session was started in {}", cwd.display())]
    NothingToContinue { cwd: PathBuf },
    /// `--agent NAME` names no discovered agent.
    #[error("no agent named `{name}`; available: {available}")]
    UnknownAgent { name: String, available: String },
    /// `--agent-file PATH` (or a named agent) cannot be read or built.
    #[error("{context}: {source}")]
    Agent {
        context: String,
        #[source]
        source: AgentBuildError,
    },
    /// No model could be resolved for the session.
    #[error(transparent)]
    Model(#[from] ModelConfigError),
    /// An approval answer for an id that is not waiting (answered already, or never asked).
    #[error("no approval `{request_id}` is waiting")]
    UnknownApproval { request_id: String },
    /// `SetPermissionMode` with a mode kigi does not have.
    #[error(
        "unknown permission mode `{mode}` (expected default, acceptEdits, plan, dontAsk or bypassPermissions)"
    )]
    UnknownPermissionMode { mode: String },
    /// `KillSubagent` / `SendToSubagent` about a child that cannot take it.
    #[error(transparent)]
    Subagent(#[from] crate::subagent::ChildError),
    /// A user turn's attachment that cannot be read, or may not be.
    #[error(transparent)]
    Attachment(#[from] crate::attachments::AttachmentError),
    /// `SetSubagentEnabled` naming a type that does not exist.
    #[error(transparent)]
    SubagentType(Box<crate::subagent::SpawnError>),
    /// The agent drives a browser and there is none on this machine.
    #[error("agent `{agent}` cannot run here: {reason}")]
    BrowserMissing {
        agent: String,
        reason: Box<kigi_agent::BrowserMissing>,
    },
    /// A command to a session that has shut down.
    #[error("session {session_id} has shut down")]
    SessionClosed { session_id: String },
}

impl From<crate::subagent::SpawnError> for HostError {
    fn from(error: crate::subagent::SpawnError) -> Self {
        Self::SubagentType(Box::new(error))
    }
}
