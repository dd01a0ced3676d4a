//! What a running tool may use: the working directory, limits, cancellation, and the
//! session's background tasks and todo list.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::builtin::todo_write::TodoItem;
use crate::tasks::TaskRegistry;

/// Limits of `run_terminal_cmd` (from the agent definition's `bash` settings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashLimits {
    pub timeout: Duration,
    /// Bytes of output kept per command.
    pub output_limit: usize,
    /// Prepended to every command (`cmdPrefix`).
    pub prefix: Option<String>,
}

impl Default for BashLimits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            output_limit: 200_000,
            prefix: None,
        }
    }
}

/// Everything a tool call runs with.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub cwd: PathBuf,
    pub cancel: CancellationToken,
    pub bash: BashLimits,
    pub tasks: Arc<TaskRegistry>,
    pub todos: Arc<Mutex<Vec<TodoItem>>>,
    /// When set, file tools may only write below this folder (a child in its worktree).
    pub write_root: Option<PathBuf>,
}

impl ToolContext {
    /// A context for `cwd` with default limits and fresh session state.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            cancel: CancellationToken::new(),
            bash: BashLimits::default(),
            tasks: Arc::new(TaskRegistry::default()),
            todos: Arc::new(Mutex::new(Vec::new())),
            write_root: None,
        }
    }

    /// Refuses a write outside `write_root`. The nearest existing ancestor is resolved, so
    /// `..` and symlinks cannot lead out.
    pub fn check_writable(&self, path: &Path) -> Result<(), String> {
        let Some(root) = &self.write_root else {
            return Ok(());
        };
        let root = root.canonicalize().unwrap_or_else(|_| root.clone());
        let mut existing = path.to_path_buf();
        let mut rest = Vec::new();
        while !existing.exists() {
            match (
                existing.file_name().map(|n| n.to_owned()),
                existing.parent(),
            ) {
                (Some(name), Some(parent)) => {
                    rest.push(name);
                    existing = parent.to_path_buf();
                }
                _ => break,
            }
        }
        let mut resolved = existing.canonicalize().unwrap_or(existing);
        for name in rest.into_iter().rev() {
            if name == ".." {
                resolved.pop();
            } else {
                resolved.push(name);
            }
        }
        if resolved.starts_with(&root) {
            Ok(())
        } else {
            Err(format!(
                "{} is outside this agent's worktree ({}); write there instead",
                path.display(),
                root.display()
            ))
        }
    }

    /// A path argument, relative to the working directory unless absolute.
    pub fn resolve(&self, path: &str) -> PathBuf {
        let path = Path::new(path);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.cwd.join(path)
        }
    }

    /// How a path is shown back to the model: relative to the working directory when inside it.
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.cwd)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}
