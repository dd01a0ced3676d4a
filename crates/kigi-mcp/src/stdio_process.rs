//! A stdio server's process: started in its own process group with piped stdin/stdout (the
//! protocol) and stderr (collected into a bounded tail), and ended with its whole group.
//!
//! The rule: the group guard is made right after the spawn, and every wait has a ceiling, so
//! neither a server that ignores stdin closing nor one that forks helpers outlives kigi's use
//! of it, and shutting down never hangs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kigi_tools::process_group::ProcessGroup;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

use crate::error::McpError;
use crate::stderr_tail::{STDERR_TAIL_BYTES, SharedTail, StderrTail, collect_into, tail_text};

/// How long a server may take to exit on its own once its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_millis(500);
/// Ceiling on reaping the child and draining stderr after the group was killed.
const REAP_CEILING: Duration = Duration::from_secs(2);

/// What to run.
#[derive(Debug, Clone)]
pub(crate) struct StdioCommand<'a> {
    pub server: &'a str,
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a BTreeMap<String, String>,
    pub cwd: Option<&'a PathBuf>,
}

/// A running stdio server.
#[derive(Debug)]
pub(crate) struct StdioProcess {
    child: Child,
    group: ProcessGroup,
    pid: u32,
    tail: SharedTail,
    reader: Option<JoinHandle<()>>,
}

impl StdioProcess {
    /// Starts the command; the protocol pipes are returned for the transport.
    pub fn spawn(spec: &StdioCommand<'_>) -> Result<(Self, ChildStdout, ChildStdin), McpError> {
        let mut command = Command::new(spec.command);
        command
            .args(spec.args)
            .envs(spec.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cwd) = spec.cwd {
            command.current_dir(cwd);
        }
        let spawn_error = |source| McpError::Spawn {
            server: spec.server.to_owned(),
            command: spec.command.to_owned(),
            source,
        };
        let (mut child, group) = ProcessGroup::spawn(&mut command).map_err(spawn_error)?;
        let pid = child.id().unwrap_or_default();
        let tail = Arc::new(Mutex::new(StderrTail::new(STDERR_TAIL_BYTES)));
        let reader = child
            .stderr
            .take()
            .map(|stderr| tokio::spawn(collect_into(stderr, Arc::clone(&tail))));
        let missing = || spawn_error(std::io::Error::other("the child has no stdio pipes"));
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stdin = child.stdin.take().ok_or_else(missing)?;
        Ok((
            Self {
                child,
                group,
                pid,
                tail,
                reader,
            },
            stdout,
            stdin,
        ))
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// What the server has written to stderr so far (its tail).
    pub fn stderr_tail(&self) -> String {
        tail_text(&self.tail)
    }

    /// The exit status, if the server exits within `within` (it is exiting when it closed
    /// its stdout unasked).
    pub async fn exit_status_within(
        &mut self,
        within: Duration,
    ) -> Option<std::process::ExitStatus> {
        tokio::time::timeout(within, self.child.wait())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// Ends the server: a short grace to exit on its own (its stdin should be closed by now),
    /// then SIGKILL to the whole group; reaps the child and drains stderr, each with a ceiling.
    /// Returns the stderr tail.
    pub async fn terminate(mut self, grace: bool) -> String {
        if grace {
            let _ = tokio::time::timeout(EXIT_GRACE, self.child.wait()).await;
        }
        self.group.kill();
        if tokio::time::timeout(REAP_CEILING, self.child.wait())
            .await
            .is_err()
        {
            tracing::warn!(pid = self.pid, "MCP server did not exit after SIGKILL");
        }
        if let Some(reader) = self.reader.take() {
            let _ = tokio::time::timeout(REAP_CEILING, reader).await;
        }
        self.stderr_tail()
    }
}

/// Drop without `terminate` (a caller vanished): the group guard kills it, and
/// `kill_on_drop` covers the child itself.
impl Drop for StdioProcess {
    fn drop(&mut self) {
        if let Some(reader) = self.reader.take() {
            reader.abort();
        }
    }
}
