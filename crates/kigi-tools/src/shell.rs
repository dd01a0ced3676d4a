//! Running a shell command as a child process: its own process group (so a timeout or cancel
//! kills everything it started), output from stdout and stderr interleaved into one bounded
//! buffer, every wait with a ceiling, and the start inside the context's sandbox.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Child;
use tokio_util::sync::CancellationToken;

use crate::process_group::ProcessGroup;
use crate::sandbox::{SandboxError, SandboxPolicy, spawn_in_sandbox};

/// After the command exits, how long to wait for its pipes to drain: a process it left running
/// in the background may hold them open forever.
const DRAIN_CEILING: Duration = Duration::from_millis(500);

/// Output kept within a byte limit: the first half and the last half, with a count of what
/// fell between.
#[derive(Debug, Default)]
pub struct OutputBuffer {
    limit: usize,
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    dropped: usize,
}

impl OutputBuffer {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        let half = self.limit / 2;
        for &byte in bytes {
            if self.head.len() < half.max(1) && self.dropped == 0 && self.tail.is_empty() {
                self.head.push(byte);
            } else {
                self.tail.push_back(byte);
                if self.tail.len() > self.limit - half {
                    self.tail.pop_front();
                    self.dropped += 1;
                }
            }
        }
    }

    /// The kept text, with a line where bytes were dropped.
    pub fn text(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let tail = String::from_utf8_lossy(&tail);
        if self.dropped == 0 {
            format!("{head}{tail}")
        } else {
            format!(
                "{head}\n[… {} bytes of output dropped (limit {}) …]\n{tail}",
                self.dropped, self.limit
            )
        }
    }
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    /// Killed by a signal, or no exit code.
    Signalled,
    TimedOut(Duration),
    Cancelled,
}

/// A started command: the child, the readers collecting its output, and its process group.
#[derive(Debug)]
pub struct Spawned {
    pub child: Child,
    pub readers: Vec<tokio::task::JoinHandle<()>>,
    /// Killed when dropped: nothing the command started outlives the call or task.
    pub group: ProcessGroup,
}

/// Starts `command` under `sh -c` in `cwd`, confined to `sandbox`, in a new process group,
/// with output collected into `buffer` by background readers.
pub async fn spawn(
    command: &str,
    cwd: &Path,
    sandbox: &SandboxPolicy,
    buffer: Arc<Mutex<OutputBuffer>>,
) -> Result<Spawned, SandboxError> {
    let mut shell = tokio::process::Command::new("sh");
    shell
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = spawn_in_sandbox(shell, sandbox).await?;
    let group = ProcessGroup::track(child.id().unwrap_or_default());
    let mut readers = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        readers.push(tokio::spawn(read_into(stdout, Arc::clone(&buffer))));
    }
    if let Some(stderr) = child.stderr.take() {
        readers.push(tokio::spawn(read_into(stderr, buffer)));
    }
    Ok(Spawned {
        child,
        readers,
        group,
    })
}

async fn read_into(mut pipe: impl tokio::io::AsyncRead + Unpin, buffer: Arc<Mutex<OutputBuffer>>) {
    let mut chunk = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        if let Ok(mut buffer) = buffer.lock() {
            buffer.push(&chunk[..n]);
        }
    }
}

/// Waits for the command to exit, up to `timeout` (none: no limit) or until `cancel`. Then
/// its whole process group is killed, so whatever it left running in the background ends with
/// it (long-lived processes belong in background tasks), and the readers drain, up to a
/// ceiling.
pub async fn wait(
    spawned: Spawned,
    timeout: Option<Duration>,
    cancel: &CancellationToken,
) -> Ending {
    let Spawned {
        mut child,
        readers,
        group,
    } = spawned;
    let limit = async {
        match timeout {
            Some(timeout) => tokio::time::sleep(timeout).await,
            None => std::future::pending().await,
        }
    };
    let ending = tokio::select! {
        status = child.wait() => match status.ok().and_then(|s| s.code()) {
            Some(code) => Ending::Exited(code),
            None => Ending::Signalled,
        },
        () = limit => Ending::TimedOut(timeout.unwrap_or_default()),
        () = cancel.cancelled() => Ending::Cancelled,
    };
    group.kill();
    let _ = child.kill().await;
    for reader in readers {
        let _ = tokio::time::timeout(DRAIN_CEILING, reader).await;
    }
    ending
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_keeps_head_and_tail_within_its_limit() {
        let mut buffer = OutputBuffer::new(10);
        buffer.push(b"0123456789abcdefghij");
        assert_eq!(
            buffer.text(),
            "01234\n[… 10 bytes of output dropped (limit 10) …]\nfghij"
        );
        let mut small = OutputBuffer::new(10);
        small.push(b"abc");
        small.push(b"def");
        assert_eq!(small.text(), "abcdef");
    }
}
