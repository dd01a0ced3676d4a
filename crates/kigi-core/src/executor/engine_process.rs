//! The external engine as a process: started in its own process group with stdin closed,
//! stdout read line by line (each line capped), the tail of stderr kept for the error, and
//! the whole group killed when the turn ends, is cancelled or runs out of time (SIGTERM and a
//! short grace first when it ended early, so a launcher such as `srun` or `kubectl` can end
//! what it started on another machine).
//!
//! The rule: nothing the engine started outlives the turn, and no read or wait is unbounded.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use kigi_tools::process_group::ProcessGroup;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

use super::command_line::CommandLine;

/// Longest stdout line read whole; a longer one is skipped (a stray base64 blob must not
/// grow kigi's memory).
pub const LINE_CAP: usize = 4 * 1024 * 1024;
/// Bytes of stderr kept: its end, where a CLI says why it failed.
pub const STDERR_TAIL: usize = 4 * 1024;
/// After stdout closes, how long the engine may take to exit.
const EXIT_CEILING: Duration = Duration::from_secs(10);
/// How long an engine ended early (cancel, its time limit) has after SIGTERM before SIGKILL:
/// a cluster launcher passes the end on to its job in that time.
const TERM_GRACE: Duration = Duration::from_secs(5);
/// How long the stderr reader may take once the group is dead.
const DRAIN_CEILING: Duration = Duration::from_millis(500);

/// How the process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineEnd {
    /// It exited on its own (`code` is `None` when a signal ended it).
    Exited {
        code: Option<i32>,
        stderr_tail: String,
    },
    /// Its own `timeout_secs` passed: killed.
    TimedOut,
    /// The turn was cancelled (kill, parent cancel, the child's timeout): killed.
    Cancelled,
    /// An ACP agent's prompt ended (kigi then ended the process).
    Answered,
    /// An ACP agent's connection failed before the prompt ended.
    Disconnected { reason: String, stderr_tail: String },
}

/// Why the process did not run.
#[derive(Debug, thiserror::Error)]
#[error("cannot start `{program}`: {source}")]
pub struct StartError {
    /// The program.
    pub program: String,
    /// The operating system's reason.
    pub source: std::io::Error,
}

/// Runs `line` in `cwd`, handing each stdout line to `on_line`, until it exits, `timeout`
/// passes or `cancel` fires. `on_started` gets the process group's id once it runs.
pub async fn run_engine(
    line: &CommandLine,
    cwd: &Path,
    timeout: Duration,
    cancel: &CancellationToken,
    on_line: &mut (dyn FnMut(&str) + Send),
) -> Result<EngineEnd, StartError> {
    let StartedEngine {
        mut child,
        group,
        stderr,
    } = start_engine(line, cwd, Stdio::null())?;
    let ended = match child.stdout.take() {
        Some(stdout) => {
            let mut reader = BufReader::new(stdout);
            let deadline = tokio::time::sleep(timeout);
            tokio::pin!(deadline);
            loop {
                tokio::select! {
                    read = next_line(&mut reader) => match read {
                        Some(text) => on_line(&text),
                        None => break None,
                    },
                    () = &mut deadline => break Some(EngineEnd::TimedOut),
                    () = cancel.cancelled() => break Some(EngineEnd::Cancelled),
                }
            }
        }
        None => None,
    };
    let code = match ended {
        Some(_) => None,
        None => tokio::select! {
            status = tokio::time::timeout(EXIT_CEILING, child.wait()) => {
                status.ok().and_then(Result::ok).and_then(|s| s.code())
            }
            () = cancel.cancelled() => None,
        },
    };
    let early = ended.is_some();
    let stderr_tail = StartedEngine {
        child,
        group,
        stderr,
    }
    .end(early)
    .await;
    Ok(ended.unwrap_or(EngineEnd::Exited { code, stderr_tail }))
}

/// An engine's process, started: the guard of its group and the reader of its stderr's tail.
pub(super) struct StartedEngine {
    pub child: Child,
    pub group: ProcessGroup,
    pub stderr: Option<tokio::task::JoinHandle<String>>,
}

/// Starts `line` in `cwd` in its own process group (killed if dropped), stdout piped, the
/// tail of stderr kept, stdin as given.
pub(super) fn start_engine(
    line: &CommandLine,
    cwd: &Path,
    stdin: Stdio,
) -> Result<StartedEngine, StartError> {
    let (mut child, group) = ProcessGroup::spawn(
        Command::new(&line.program)
            .args(&line.args)
            .envs(&line.env)
            .current_dir(cwd)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(|source| StartError {
        program: line.program.clone(),
        source,
    })?;
    let stderr = child
        .stderr
        .take()
        .map(|pipe| tokio::spawn(read_tail(pipe)));
    Ok(StartedEngine {
        child,
        group,
        stderr,
    })
}

impl StartedEngine {
    /// Ends the engine and whatever it left behind, and returns the tail of its stderr. An
    /// engine ended `early` (cancelled, out of time) is asked first (SIGTERM, a grace), so what
    /// it launched elsewhere is stopped too.
    pub(super) async fn end(mut self, early: bool) -> String {
        if early {
            self.group.terminate();
            let _ = tokio::time::timeout(TERM_GRACE, self.child.wait()).await;
        }
        self.group.kill();
        let _ = self.child.kill().await;
        drop(self.group);
        drain(self.stderr).await
    }
}

/// The next line without its newline; `None` at the end (or on a read error). A line past [`LINE_CAP`] is
/// skipped whole.
pub async fn next_line(reader: &mut (impl AsyncBufRead + Unpin)) -> Option<String> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buffer = reader.fill_buf().await.ok()?;
        if buffer.is_empty() {
            return (!line.is_empty() && !too_long)
                .then(|| String::from_utf8_lossy(&line).into_owned());
        }
        let (part, found) = match buffer.iter().position(|b| *b == b'\n') {
            Some(at) => (&buffer[..at], Some(at + 1)),
            None => (buffer, None),
        };
        if line.len() + part.len() > LINE_CAP {
            too_long = true;
            line.clear();
        } else if !too_long {
            line.extend_from_slice(part);
        }
        let used = found.unwrap_or(buffer.len());
        reader.consume(used);
        if found.is_some() {
            if too_long {
                too_long = false;
                continue;
            }
            return Some(String::from_utf8_lossy(&line).into_owned());
        }
    }
}

pub(super) async fn read_tail(mut pipe: impl AsyncRead + Unpin) -> String {
    let mut kept: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        kept.extend_from_slice(&chunk[..n]);
        if kept.len() > STDERR_TAIL {
            kept.drain(..kept.len() - STDERR_TAIL);
        }
    }
    String::from_utf8_lossy(&kept).trim().to_owned()
}

pub(super) async fn drain(reader: Option<tokio::task::JoinHandle<String>>) -> String {
    crate::reader_drain::drain(reader, DRAIN_CEILING).await
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn sh(script: &str) -> CommandLine {
        CommandLine {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            env: BTreeMap::new(),
        }
    }

    async fn run(script: &str, cancel: &CancellationToken) -> (EngineEnd, Vec<String>) {
        let mut lines = Vec::new();
        let end = run_engine(
            &sh(script),
            Path::new("/"),
            Duration::from_secs(60),
            cancel,
            &mut |l| lines.push(l.to_owned()),
        )
        .await
        .unwrap();
        (end, lines)
    }

    #[tokio::test]
    async fn lines_arrive_in_order_and_the_exit_keeps_the_stderr_tail() {
        let (end, lines) = run(
            "printf 'a\\nb\\n'; printf 'partial'; echo boom >&2; exit 3",
            &CancellationToken::new(),
        )
        .await;
        assert_eq!(lines, ["a", "b", "partial"]);
        assert_eq!(
            end,
            EngineEnd::Exited {
                code: Some(3),
                stderr_tail: "boom".into()
            }
        );
    }

    #[tokio::test]
    async fn a_line_past_the_cap_is_skipped_whole() {
        let mut reader = BufReader::new(&b"x"[..]);
        assert_eq!(next_line(&mut reader).await.as_deref(), Some("x"));
        let long = format!("{}\nafter\n", "y".repeat(LINE_CAP + 10));
        let mut reader = BufReader::new(long.as_bytes());
        assert_eq!(next_line(&mut reader).await.as_deref(), Some("after"));
        assert_eq!(next_line(&mut reader).await, None);
    }

    #[tokio::test]
    async fn a_program_that_cannot_start_says_which() {
        let error = run_engine(
            &CommandLine {
                program: "/nonexistent/engine".into(),
                args: vec![],
                env: BTreeMap::new(),
            },
            Path::new("/"),
            Duration::from_secs(5),
            &CancellationToken::new(),
            &mut |_| {},
        )
        .await
        .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("cannot start `/nonexistent/engine`")
        );
    }

    #[tokio::test]
    async fn cancelling_kills_the_whole_group() {
        let cancel = CancellationToken::new();
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        // A grandchild that would outlive a kill of the engine alone.
        let script = format!(
            "sleep 300 & echo $! > {}; echo started; wait",
            pid_file.display()
        );
        let line = sh(&script);
        let mut on_line = |_: &str| cancel.cancel();
        let run = run_engine(
            &line,
            Path::new("/"),
            Duration::from_secs(600),
            &cancel,
            &mut on_line,
        );
        let end = tokio::time::timeout(Duration::from_secs(30), run)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(end, EngineEnd::Cancelled);
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(gone(pid).await, "the grandchild {pid} still runs");
    }

    /// Whether `pid` stops running (gone, or a zombie for init to reap) within a ceiling:
    /// SIGKILL is delivered at once, the exit lands when the kernel schedules it.
    pub(crate) async fn gone(pid: i32) -> bool {
        for _ in 0..1000 {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let running = state
                .rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next())
                .is_some_and(|s| s != "Z" && s != "X");
            if !running {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }
}
