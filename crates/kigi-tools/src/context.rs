//! What a running tool may use: the working directory, limits, cancellation, and the
//! session's background tasks and todo list, and the sandbox commands run in.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::builtin::todo_write::TodoItem;
use crate::editor_files::EditorFiles;
use crate::editor_terminal::EditorTerminal;
use crate::path_resolution::resolve_path;
use crate::private_address::PrivateHostAllowance;
use crate::sandbox::SandboxPolicy;
use crate::secret_paths::SecretPaths;
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
    /// What file tools never read (credentials, `.env`, kigi's trust list).
    pub secrets: SecretPaths,
    /// The sandbox shell commands and background tasks run in.
    pub sandbox: SandboxPolicy,
    /// When set, `read_file`, `write_file` and `search_replace` read and write through the
    /// editor kigi runs in (after judging the path as always).
    pub editor_files: Option<Arc<dyn EditorFiles>>,
    /// When set, `run_terminal_cmd` runs a foreground command in the editor's terminal, but
    /// only while [`Self::sandbox`] is unconfined (the editor's terminal is outside it).
    pub editor_terminal: Option<Arc<dyn EditorTerminal>>,
    /// The id of the call being run (the runtime sets it per call), for a seam that shows
    /// the call's work in the editor.
    pub call_id: Option<String>,
    /// Hosts `web_fetch` may reach at a loopback or private address (those allow rules
    /// name); `None`: none.
    pub private_hosts: Option<Arc<dyn PrivateHostAllowance>>,
}

impl ToolContext {
    /// A context for `cwd` with default limits and fresh session state. Commands run
    /// unsandboxed (`danger-full-access`) until the host sets [`Self::sandbox`].
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            cancel: CancellationToken::new(),
            bash: BashLimits::default(),
            tasks: Arc::new(TaskRegistry::default()),
            todos: Arc::new(Mutex::new(Vec::new())),
            write_root: None,
            secrets: SecretPaths::default(),
            sandbox: SandboxPolicy::full_access(),
            editor_files: None,
            editor_terminal: None,
            call_id: None,
            private_hosts: None,
        }
    }

    /// Refuses a write outside `write_root`. `path` comes from [`Self::resolve`], so `..`
    /// and symlinks have already been followed and cannot lead out.
    pub fn check_writable(&self, path: &Path) -> Result<(), String> {
        let Some(root) = &self.write_root else {
            return Ok(());
        };
        let root = resolve_path(root, Path::new(""));
        let resolved = resolve_path(&self.cwd, path);
        if resolved.starts_with(&root) {
            Ok(())
        } else {
            Err(format!(
                "{} is outside this agent's worktree ({}); write there instead",
                resolved.display(),
                root.display()
            ))
        }
    }

    /// A path argument, resolved where it really leads (relative to the working directory
    /// unless absolute; `..` and symlinks followed): what every decision and every file
    /// operation uses.
    pub fn resolve(&self, path: &str) -> PathBuf {
        resolve_path(&self.cwd, Path::new(path))
    }

    /// How a path is shown back to the model: relative to the working directory when inside it.
    pub fn display(&self, path: &Path) -> String {
        let cwd = resolve_path(&self.cwd, Path::new(""));
        path.strip_prefix(&cwd)
            .or_else(|_| path.strip_prefix(&self.cwd))
            .unwrap_or(path)
            .display()
            .to_string()
    }
}
