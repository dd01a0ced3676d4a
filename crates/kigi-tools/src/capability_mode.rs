//! Capability modes: a coarse filter on an agent's tools by what the tools do.
//!
//! Modes only ever narrow: a mode never grants a tool the agent's own list lacks.

use std::fmt;
use std::str::FromStr;

use kigi_protocol::ToolKind;
use serde::{Deserialize, Serialize};

/// `read-only`, `read-write`, `execute` or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapabilityMode {
    /// Read, search and inspect; no file edits, no shell.
    ReadOnly,
    /// Read plus create, edit, delete and move files; no shell.
    ReadWrite,
    /// Read plus shell commands and background tasks; no file edits.
    Execute,
    /// Everything.
    All,
}

impl CapabilityMode {
    pub const ALL_MODES: [CapabilityMode; 4] =
        [Self::ReadOnly, Self::ReadWrite, Self::Execute, Self::All];

    /// Whether a tool of this kind is available in this mode. Delegation (subagents, swarms)
    /// needs `all`: a restricted agent must not regain abilities through a child.
    pub fn allows(self, kind: ToolKind) -> bool {
        match self {
            Self::All => true,
            Self::ReadOnly => !kind.writes_files() && !kind.executes() && !kind.delegates(),
            Self::ReadWrite => !kind.executes() && !kind.delegates(),
            Self::Execute => !kind.writes_files() && !kind.delegates(),
        }
    }

    /// Whether a tool of this kind, read-only or not, is available in this mode. `read-only`
    /// also withholds the acting tools of kind `other` (clicking or typing in a browser acts
    /// on the web even though it writes no file).
    pub fn allows_tool(self, kind: ToolKind, read_only: bool) -> bool {
        self.allows(kind) && !(self == Self::ReadOnly && kind == ToolKind::Other && !read_only)
    }

    /// The wire spelling (`read-only`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::ReadWrite => "read-write",
            Self::Execute => "execute",
            Self::All => "all",
        }
    }
}

impl fmt::Display for CapabilityMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A capability mode string that is not one of the four.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCapabilityMode(pub String);

impl fmt::Display for UnknownCapabilityMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown capability mode `{}` (expected read-only, read-write, execute or all)",
            self.0
        )
    }
}

impl std::error::Error for UnknownCapabilityMode {}

impl FromStr for CapabilityMode {
    type Err = UnknownCapabilityMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL_MODES
            .into_iter()
            .find(|mode| mode.as_str() == s)
            .ok_or_else(|| UnknownCapabilityMode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_refuses_edits_shell_and_delegation() {
        let mode = CapabilityMode::ReadOnly;
        assert!(mode.allows(ToolKind::Read));
        assert!(mode.allows_tool(ToolKind::Other, true));
        assert!(!mode.allows_tool(ToolKind::Other, false));
        assert!(CapabilityMode::ReadWrite.allows_tool(ToolKind::Other, false));
        assert!(mode.allows(ToolKind::Search));
        assert!(!mode.allows(ToolKind::Edit));
        assert!(!mode.allows(ToolKind::Execute));
        assert!(!mode.allows(ToolKind::Task));
    }

    #[test]
    fn read_write_allows_edits_but_not_shell() {
        assert!(CapabilityMode::ReadWrite.allows(ToolKind::Write));
        assert!(!CapabilityMode::ReadWrite.allows(ToolKind::Execute));
    }

    #[test]
    fn execute_allows_shell_but_not_edits() {
        assert!(CapabilityMode::Execute.allows(ToolKind::Execute));
        assert!(CapabilityMode::Execute.allows(ToolKind::KillTaskAction));
        assert!(!CapabilityMode::Execute.allows(ToolKind::Edit));
    }

    #[test]
    fn parses_each_wire_spelling_and_rejects_others() {
        for mode in CapabilityMode::ALL_MODES {
            assert_eq!(mode.as_str().parse::<CapabilityMode>(), Ok(mode));
        }
        let err = "readonly".parse::<CapabilityMode>().unwrap_err();
        assert!(err.to_string().contains("`readonly`"));
    }
}
