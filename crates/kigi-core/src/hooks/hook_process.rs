//! One hook command as a child process: `sh -c COMMAND` in the session's folder, in its own
//! process group, its JSON input on stdin, its stdout and stderr read up to a cap, killed with
//! its whole group at its timeout or when the turn is cancelled.
//!
//! The rule: a hook never outlives its timeout and never stalls the session past it; a hook
//! that cannot start is reported, not fatal.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use kigi_agent::hooks::Hook;
use kigi_tools::process_group::ProcessGroup;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use super::hook_response::HookExit;

/// Bytes of stdout and of stderr kept from one hook run.
const OUTPUT_CAP: usize = 256 * 1024;

/// After the hook exits, how long its pipes may stay open (a process it left behind).
const DRAIN_CEILING: Duration = Duration::from_millis(200);

/// Runs `hook` with `input` on stdin; `project_dir` is `KIGI_PROJECT_DIR`.
pub async fn run_hook(
    hook: &Hook,
    input: &[u8],
    cwd: &Path,
    project_dir: &Path,
    cancel: &CancellationToken,
) -> HookExit {
    let spawned = ProcessGroup::spawn(
        Command::new("sh")
            .arg("-c")
            .arg(&hook.command)
            .current_dir(cwd)
            .env("KIGI_PROJECT_DIR", project_dir)
            .env("CLAUDE_PROJECT_DIR", project_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    let (mut child, group) = match spawned {
        Ok(started) => started,
        Err(error) => {
            return HookExit {
                failed: Some(format!("could not start `sh -c`: {error}")),
                ..HookExit::default()
            };
        }
    };
    // A hook that never reads stdin must not block the write: it is written on its own.
    let stdin = child.stdin.take().map(|mut stdin| {
        let input = input.to_vec();
        tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
        })
    });
    let stdout = child
        .stdout
        .take()
        .map(|pipe| tokio::spawn(read_capped(pipe)));
    let stderr = child
        .stderr
        .take()
        .map(|pipe| tokio::spawn(read_capped(pipe)));
    let (code, timed_out, cancelled) = tokio::select! {
        status = child.wait() => (status.ok().and_then(|s| s.code()), false, false),
        () = tokio::time::sleep(hook.timeout) => (None, true, false),
        () = cancel.cancelled() => (None, false, true),
    };
    group.kill();
    let _ = child.kill().await;
    if let Some(stdin) = stdin {
        stdin.abort();
    }
    let stdout = drain(stdout).await;
    let stderr = drain(stderr).await;
    HookExit {
        code,
        stdout,
        stderr,
        timed_out,
        failed: cancelled.then(|| "cancelled with the turn".to_owned()),
    }
}

async fn read_capped(mut pipe: impl AsyncRead + Unpin) -> String {
    let mut kept = Vec::new();
    let mut chunk = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        let room = OUTPUT_CAP.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..n.min(room)]);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

async fn drain(reader: Option<tokio::task::JoinHandle<String>>) -> String {
    crate::reader_drain::drain(reader, DRAIN_CEILING).await
}
