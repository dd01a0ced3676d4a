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
    /// It ran past `timeout` and was killed.
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
    // Readers on their own threads, so a full pipe never stalls git while we wait.
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = read(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = read(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            break None;
        }
        std::thread::sleep(POLL);
    };
    let Some(status) = status else {
        // `kill` on the negative pid reaches the group; no unsafe signal call needed.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = child.kill();
        let _ = child.wait();
        return Ok(GitRun::TimedOut);
    };
    Ok(GitRun::Exited {
        success: status.success(),
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether process `pid` still runs (a zombie waiting for its reaper does not).
    fn running(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| {
                let state = stat.rsplit(')').next().unwrap_or("").trim_start();
                !state.starts_with('Z')
            })
            .unwrap_or(false)
    }

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
        assert!(!running(pid.trim()), "the alias's sleep outlived the call");
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
