//! What a sandboxed command may do: the mode, the folders it may write, and whether it may
//! use the network. Plain data the host fills (the workspace, or a child's worktree, plus the
//! configured extra roots).
//!
//! The rule: reads and execution are allowed everywhere; writes only below the writable
//! roots, the temp dir and the device files commands need; nothing else is implied (not even
//! the working directory).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::path_resolution::resolve_path;

/// How far a shell command is confined (Codex's names).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Nothing writable but `/dev/null` and the terminal devices.
    ReadOnly,
    /// The writable roots and the temp dir.
    #[default]
    WorkspaceWrite,
    /// No sandbox: the command runs as kigi does.
    DangerFullAccess,
}

impl SandboxMode {
    pub const ALL_MODES: [SandboxMode; 3] =
        [Self::ReadOnly, Self::WorkspaceWrite, Self::DangerFullAccess];

    /// The wire spelling (`read-only`, `workspace-write`, `danger-full-access`).
    pub fn spelling(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
            Self::DangerFullAccess => "danger-full-access",
        }
    }

    /// The mode of a wire spelling.
    pub fn parse(spelling: &str) -> Result<Self, UnknownSandboxMode> {
        Self::ALL_MODES
            .into_iter()
            .find(|mode| mode.spelling() == spelling)
            .ok_or_else(|| UnknownSandboxMode(spelling.to_owned()))
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}

impl FromStr for SandboxMode {
    type Err = UnknownSandboxMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// A sandbox mode string that is not one of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox mode `{0}` (expected read-only, workspace-write or danger-full-access)")]
pub struct UnknownSandboxMode(pub String);

/// The sandbox a shell command runs in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SandboxPolicy {
    pub mode: SandboxMode,
    /// Folders writable in `workspace-write` (ignored otherwise).
    pub writable_roots: Vec<PathBuf>,
    /// Whether commands may open network sockets (TCP, UDP, raw).
    pub network: bool,
}

/// Device files commands write to (their output thrown away, a terminal); granted where they
/// exist, in every confined mode.
const DEVICE_FILES: [&str; 5] = [
    "/dev/null",
    "/dev/zero",
    "/dev/tty",
    "/dev/pts",
    "/dev/ptmx",
];

impl SandboxPolicy {
    /// No sandbox (what a context that does not opt in gets).
    pub fn full_access() -> Self {
        Self {
            mode: SandboxMode::DangerFullAccess,
            writable_roots: Vec::new(),
            network: true,
        }
    }

    /// Writes below `roots` (and the temp dir); no network.
    pub fn workspace_write(roots: impl IntoIterator<Item = PathBuf>) -> Self {
        Self {
            mode: SandboxMode::WorkspaceWrite,
            writable_roots: roots.into_iter().collect(),
            network: false,
        }
    }

    /// No writes at all; no network.
    pub fn read_only() -> Self {
        Self {
            mode: SandboxMode::ReadOnly,
            writable_roots: Vec::new(),
            network: false,
        }
    }

    /// Whether commands run confined at all.
    pub fn is_confined(&self) -> bool {
        self.mode != SandboxMode::DangerFullAccess
    }

    /// The same policy with every root resolved (symlinks, `..`), sorted and deduplicated:
    /// two spellings of one policy share one spawner thread.
    pub fn normalized(&self) -> Self {
        let mut writable_roots: Vec<PathBuf> = self
            .writable_roots
            .iter()
            .map(|root| resolve_path(Path::new("/"), root))
            .collect();
        writable_roots.sort();
        writable_roots.dedup();
        Self {
            mode: self.mode,
            writable_roots,
            network: self.network,
        }
    }

    /// Folders writable with every right (create, remove, rename): the roots and the temp
    /// dir in `workspace-write`, none otherwise.
    pub fn writable_folders(&self) -> Vec<PathBuf> {
        match self.mode {
            SandboxMode::WorkspaceWrite => {
                let mut folders: Vec<PathBuf> = self
                    .writable_roots
                    .iter()
                    .map(|root| resolve_path(Path::new("/"), root))
                    .collect();
                folders.push(temp_dir());
                folders
            }
            SandboxMode::ReadOnly | SandboxMode::DangerFullAccess => Vec::new(),
        }
    }

    /// Device files writable in every confined mode, those that exist here.
    pub fn writable_devices(&self) -> Vec<PathBuf> {
        DEVICE_FILES
            .iter()
            .map(PathBuf::from)
            .filter(|path| path.exists())
            .collect()
    }
}

/// The temp dir, resolved (on some systems `/tmp` is a symlink).
pub(crate) fn temp_dir() -> PathBuf {
    resolve_path(Path::new("/"), &std::env::temp_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_use_codex_spellings_on_the_wire() {
        for (mode, spelling) in [
            (SandboxMode::ReadOnly, "read-only"),
            (SandboxMode::WorkspaceWrite, "workspace-write"),
            (SandboxMode::DangerFullAccess, "danger-full-access"),
        ] {
            assert_eq!(
                serde_json::to_value(mode).ok(),
                Some(serde_json::json!(spelling))
            );
            assert_eq!(
                serde_json::from_value::<SandboxMode>(serde_json::json!(spelling)).ok(),
                Some(mode)
            );
            assert_eq!(mode.spelling(), spelling);
            assert_eq!(SandboxMode::parse(spelling), Ok(mode));
        }
    }

    #[test]
    fn workspace_write_is_the_default_mode() {
        assert_eq!(SandboxMode::default(), SandboxMode::WorkspaceWrite);
    }

    #[test]
    fn rejects_an_unknown_mode_naming_the_choices() {
        let error = SandboxMode::parse("full").err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some(
                "unknown sandbox mode `full` (expected read-only, workspace-write or danger-full-access)"
            )
        );
    }

    #[test]
    fn read_only_writes_nothing_but_devices() {
        let policy = SandboxPolicy {
            writable_roots: vec![PathBuf::from("/work")],
            ..SandboxPolicy::read_only()
        };
        assert_eq!(policy.writable_folders(), Vec::<PathBuf>::new());
        assert!(
            policy
                .writable_devices()
                .iter()
                .all(|p| p.starts_with("/dev"))
        );
    }

    #[test]
    fn workspace_write_adds_the_temp_dir_and_normalizes_roots() {
        let policy = SandboxPolicy::workspace_write([
            PathBuf::from("/b/x/.."),
            PathBuf::from("/a"),
            PathBuf::from("/b"),
        ]);
        assert_eq!(
            policy.normalized().writable_roots,
            vec![PathBuf::from("/a"), PathBuf::from("/b")]
        );
        assert!(policy.writable_folders().contains(&temp_dir()));
    }
}
