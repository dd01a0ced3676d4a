//! Running `git` with a ceiling: every call ends within [`GIT_TIMEOUT`], and a call past it is
//! killed with its whole process group (hooks, ssh, pagers it started) and reaped.
//!
//! The rule: this blocks its thread, so async code calls it through `spawn_blocking`, never
//! on the runtime's own threads.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kigi_tools::process_group::ProcessGroup;

/// The longest any git call may take (a `worktree add` of a large repository included).
pub const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// How often the wait looks at the process.
const POLL: Duration = Duration::from_millis(5);

/// How a git call ended.
#[derive(Debug)]
pub enum GitRun {
    /// It exited; its status, stdout and stderr.
    Exited {
        success: bool,
        stdout: String,
        stderr: String,
    },
    /// It, or something it started that kept its output open, ran past `timeout`; all of
    /// it was killed.
    TimedOut,
}

/// Runs `git -C dir args…`, at most `timeout`.
pub fn run_git(dir: &Path, args: &[&str], timeout: Duration) -> std::io::Result<GitRun> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("GIT_TERMINAL_PROMPT", "0")
        .process_group(0)
        .spawn()?;
    // Tracked from the start: whatever git or its hooks start dies when this call ends, or
    // with kigi if this thread is still stuck when the process exits.
    let group = ProcessGroup::track(child.id());
    // Readers on their own threads, so a full pipe never stalls git while we wait.
    let (sent, output) = std::sync::mpsc::channel();
    for (stream, pipe) in [
        (
            Stream::Out,
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ),
        (
            Stream::Err,
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ),
    ] {
        let sent = sent.clone();
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            let _ = sent.send((stream, String::from_utf8_lossy(&text).into_owned()));
        });
    }
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
            // Past the ceiling, or the wait itself failed: either way git is stopped.
            Ok(None) | Err(_) => break None,
        }
    };
    // Something git started may hold its pipes open after it exits (a hook's background
    // job): the output is read until the same deadline, no longer.
    let (mut stdout, mut stderr) = (None, None);
    while status.is_some() && (stdout.is_none() || stderr.is_none()) {
        let left = deadline.saturating_duration_since(Instant::now());
        match output.recv_timeout(left) {
            Ok((Stream::Out, text)) => stdout = Some(text),
            Ok((Stream::Err, text)) => stderr = Some(text),
            Err(_) => break,
        }
    }
    match (status, stdout, stderr) {
        (Some(status), Some(stdout), Some(stderr)) => Ok(GitRun::Exited {
            success: status.success(),
            stdout,
            stderr,
        }),
        _ => {
            group.kill();
            let _ = child.kill();
            let _ = child.wait();
            Ok(GitRun::TimedOut)
        }
    }
}

/// Which pipe a reader read.
#[derive(Debug, Clone, Copy)]
enum Stream {
    Out,
    Err,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_past_its_ceiling_is_killed_with_what_it_started() {
        let tmp = tempfile::tempdir().unwrap();
        let pid_file = tmp.path().join("pid");
        // A shell alias: git starts a shell, which writes its pid and becomes `sleep`.
        let alias = format!(
            "alias.nap=!echo $$ > '{}'; exec sleep 30",
            pid_file.display()
        );
        let outcome = run_git(
            tmp.path(),
            &["-c", &alias, "nap"],
            Duration::from_millis(300),
        );
        assert!(matches!(outcome.unwrap(), GitRun::TimedOut));
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        assert!(
            !kigi_testkit::process_probe::still_running(&pid),
            "the alias's sleep outlived the call"
        );
    }

    #[test]
    fn a_job_left_holding_the_output_is_stopped_at_the_ceiling() {
        let tmp = tempfile::tempdir().unwrap();
        let pid_file = tmp.path().join("pid");
        // git exits at once; the background job it started keeps stdout open.
        let alias = format!(
            "alias.leave=!sh -c 'echo $$ > \"{}\"; exec sleep 30' & echo started",
            pid_file.display()
        );
        let outcome = run_git(
            tmp.path(),
            &["-c", &alias, "leave"],
            Duration::from_millis(500),
        );
        assert!(matches!(outcome.unwrap(), GitRun::TimedOut));
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        assert!(
            !kigi_testkit::process_probe::still_running(&pid),
            "the job outlived the call"
        );
    }

    #[test]
    fn a_quick_call_reports_its_output_and_status() {
        let tmp = tempfile::tempdir().unwrap();
        let outcome = run_git(tmp.path(), &["--version"], GIT_TIMEOUT).unwrap();
        let GitRun::Exited {
            success, stdout, ..
        } = outcome
        else {
            panic!("timed out");
        };
        assert!(success && stdout.starts_with("git version"), "{stdout}");
        let failed = run_git(tmp.path(), &["rev-parse", "--show-toplevel"], GIT_TIMEOUT).unwrap();
        assert!(matches!(failed, GitRun::Exited { success: false, .. }));
    }
}
