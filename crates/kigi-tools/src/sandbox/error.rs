//! Why a command could not start in its sandbox.
//!
//! The rule: a sandbox that cannot be enforced is an error, never a silent unconfined run.

use std::path::PathBuf;

/// A sandboxed spawn that failed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The kernel cannot enforce the sandbox (no Landlock, or too old an ABI).
    #[error(
        "the kernel cannot sandbox commands: {reason}; set `[sandbox] mode = \"danger-full-access\"` to run them unconfined"
    )]
    Unavailable {
        /// What is missing.
        reason: String,
    },
    /// A writable root could not be opened to build its rule.
    #[error("cannot open sandbox writable root {}: {detail}", path.display())]
    Root {
        /// The root, as resolved.
        path: PathBuf,
        /// Why it could not be opened.
        detail: String,
    },
    /// Landlock refused the ruleset (kept as text: the Landlock types exist on Linux only).
    #[error("cannot build the Landlock ruleset: {detail}")]
    Ruleset {
        /// The Landlock error.
        detail: String,
    },
    /// Landlock accepted the ruleset but does not enforce all of it.
    #[error("the Landlock sandbox is not enforced ({status}); refusing to run unconfined")]
    NotEnforced {
        /// The status the kernel reported.
        status: String,
    },
    /// The seccomp filter that blocks network sockets could not be built or installed.
    #[error("cannot install the no-network seccomp filter: {detail}")]
    Seccomp {
        /// The seccompiler error.
        detail: String,
    },
    /// The spawner thread of this policy stopped before answering.
    #[error("the sandbox spawner thread stopped: {reason}")]
    SpawnerStopped {
        /// What it said, or that it vanished.
        reason: String,
    },
    /// The process itself could not start.
    #[error("{0}")]
    Spawn(#[from] std::io::Error),
}
