//! Where kigi keeps its files: `$KIGI_HOME` (default `~/.kigi`) and the user's home, which the
//! compat directories (`~/.claude/agents/`, …) live under.

use std::path::{Path, PathBuf};

/// The user-level locations kigi reads. Built from the environment once, then passed down, so
/// tests can point it anywhere without touching process-wide state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KigiPaths {
    /// `$KIGI_HOME`.
    pub kigi_home: PathBuf,
    /// `$HOME`, when known.
    pub user_home: Option<PathBuf>,
}

impl KigiPaths {
    pub fn new(kigi_home: impl Into<PathBuf>, user_home: Option<PathBuf>) -> Self {
        Self {
            kigi_home: kigi_home.into(),
            user_home,
        }
    }

    /// `$KIGI_HOME` if set and not empty, else `$HOME/.kigi`, else `.kigi` in the current
    /// directory (a machine with no home still works, just without user-level files).
    pub fn from_env() -> Self {
        let user_home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let kigi_home = std::env::var_os("KIGI_HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(|| user_home.as_ref().map(|h| h.join(".kigi")))
            .unwrap_or_else(|| PathBuf::from(".kigi"));
        Self {
            kigi_home,
            user_home,
        }
    }

    pub fn config_file(&self) -> PathBuf {
        self.kigi_home.join("config.toml")
    }

    pub fn agents_dir(&self) -> PathBuf {
        self.kigi_home.join("agents")
    }

    /// The user's personas (`<name>.toml`).
    pub fn personas_dir(&self) -> PathBuf {
        self.kigi_home.join("personas")
    }

    pub fn skills_dir(&self) -> PathBuf {
        self.kigi_home.join("skills")
    }

    /// `$KIGI_HOME/sessions/`: one folder per session, each with its `wire.jsonl`.
    pub fn sessions_dir(&self) -> PathBuf {
        self.kigi_home.join("sessions")
    }

    pub fn trust_file(&self) -> PathBuf {
        self.kigi_home.join("trusted_folders.toml")
    }

    pub fn agents_md(&self) -> PathBuf {
        self.kigi_home.join("AGENTS.md")
    }

    /// Agent directories other harnesses keep in the user's home.
    pub fn user_compat_agent_dirs(&self) -> Vec<PathBuf> {
        let Some(home) = &self.user_home else {
            return Vec::new();
        };
        [".claude/agents", ".gemini/agents", ".config/opencode/agent"]
            .iter()
            .map(|rel| home.join(rel))
            .collect()
    }
}

/// Agent directories other harnesses keep in a project folder, in priority order.
pub const PROJECT_COMPAT_AGENT_DIRS: &[&str] = &[
    ".claude/agents",
    ".agents/agents",
    ".gemini/agents",
    ".opencode/agent",
    ".opencode/agents",
];

/// kigi's own agent directory in a project folder.
pub const PROJECT_AGENT_DIR: &str = ".kigi/agents";

/// True when `path` lies in a directory written for another harness, whose files get the
/// lenient name rule.
pub fn is_compat_path(path: &Path) -> bool {
    let text = path.to_string_lossy().replace('\\', "/");
    PROJECT_COMPAT_AGENT_DIRS
        .iter()
        .chain([".config/opencode/agent"].iter())
        .any(|dir| text.contains(&format!("{dir}/")))
}
