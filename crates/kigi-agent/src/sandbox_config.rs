//! `[sandbox]` in `config.toml`: how shell commands are confined (Codex's mode names), whether
//! they may use the network, and folders they may write besides the workspace and the temp
//! dir. Only the user's own configuration sets these: a project cannot widen its sandbox.

use std::path::PathBuf;

use kigi_tools::sandbox::SandboxMode;
use serde::{Deserialize, Serialize};

/// `[sandbox]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct SandboxConfig {
    /// `read-only`, `workspace-write` (default) or `danger-full-access`.
    pub mode: SandboxMode,
    /// Commands may use the network (default false).
    pub network: bool,
    /// More folders commands may write (`~/` is the home folder).
    pub writable_roots: Vec<PathBuf>,
}
