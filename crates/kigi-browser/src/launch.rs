//! Starting the browser: a headless Chromium with a fresh profile in a temp folder, in its own
//! process group, DevTools on a port the system picks (`--remote-debugging-port=0`), whose
//! address is read from the line the browser prints on stderr (`DevTools listening on
//! ws://…`).
//!
//! The rule: the process group is tracked from the moment of the spawn, and dropping a
//! [`BrowserProcess`] kills the whole group, reaps the browser and only then removes the
//! profile folder.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use kigi_tools::process_group::ProcessGroup;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStderr, Command};

use crate::error::BrowserError;
use crate::profile_dir::ProfileDir;

/// How long a cold browser may take to open its DevTools port.
pub const START_CEILING: Duration = Duration::from_secs(30);
/// Bytes of stderr read while waiting for the DevTools line.
const STDERR_LIMIT: u64 = 1024 * 1024;
/// Bytes of one stderr line kept.
const LINE_LIMIT: u64 = 8 * 1024;
/// Lines of stderr quoted when the browser fails to start.
const TAIL_LINES: usize = 5;
/// How long a killed browser is waited for before the reaper gives up.
const REAP_CEILING: Duration = Duration::from_secs(10);

/// How to start the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchOptions {
    /// The Chromium (or Chrome) executable.
    pub executable: PathBuf,
    /// Without a window (the default; a visible window is for watching it work).
    pub headless: bool,
}

/// A running browser and its profile.
#[derive(Debug)]
pub struct BrowserProcess {
    child: Option<Child>,
    group: ProcessGroup,
    group_id: u32,
    profile: Option<ProfileDir>,
    /// `ws://127.0.0.1:PORT/devtools/browser/…`.
    devtools_url: String,
}

impl BrowserProcess {
    /// Starts the browser and waits (at most `START_CEILING`) for its DevTools address.
    pub async fn launch(options: &LaunchOptions) -> Result<Self, BrowserError> {
        let launch_error = |detail: String| BrowserError::Launch {
            executable: options.executable.clone(),
            detail,
        };
        let temp = std::env::temp_dir();
        // Profiles of kigi processes that ended without dropping their browser.
        let stale = temp.clone();
        tokio::task::spawn_blocking(move || ProfileDir::sweep_stale(&stale));
        let profile = ProfileDir::create_in(&temp)
            .map_err(|e| launch_error(format!("cannot make its profile folder: {e}")))?;
        let mut command = Command::new(&options.executable);
        command
            .args(arguments(options, profile.path(), is_root()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let (mut child, group) =
            ProcessGroup::spawn(&mut command).map_err(|e| launch_error(e.to_string()))?;
        let group_id = child.id().unwrap_or_default();
        let Some(stderr) = child.stderr.take() else {
            return Err(launch_error("its stderr was not captured".into()));
        };
        let mut process = Self {
            child: Some(child),
            group,
            group_id,
            profile: Some(profile),
            devtools_url: String::new(),
        };
        let mut stderr = BufReader::new(stderr);
        let found = tokio::time::timeout(START_CEILING, devtools_line(&mut stderr)).await;
        match found {
            Ok(Ok(url)) => {
                // The browser keeps writing to stderr; a full pipe would stall it.
                tokio::spawn(drain(stderr));
                process.devtools_url = url;
                Ok(process)
            }
            Ok(Err(tail)) => Err(BrowserError::NoDevTools {
                executable: options.executable.clone(),
                ceiling: START_CEILING,
                tail: quote_tail(&tail),
            }),
            Err(_) => Err(BrowserError::NoDevTools {
                executable: options.executable.clone(),
                ceiling: START_CEILING,
                tail: String::new(),
            }),
        }
    }

    /// The process id, which is also the id of its process group.
    pub fn id(&self) -> u32 {
        self.group_id
    }

    /// The browser-wide DevTools WebSocket URL.
    pub fn devtools_url(&self) -> &str {
        &self.devtools_url
    }
}

impl Drop for BrowserProcess {
    fn drop(&mut self) {
        self.group.kill();
        let (Some(mut child), profile) = (self.child.take(), self.profile.take()) else {
            return;
        };
        if matches!(child.try_wait(), Ok(Some(_))) {
            drop(profile);
            return;
        }
        // Reaped off the caller: SIGKILL is delivered at once, but the exit is observed a
        // moment later. Without a runtime, tokio's own orphan reaping (kill_on_drop) takes it.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = tokio::time::timeout(REAP_CEILING, child.wait()).await;
                drop(profile);
            });
        }
    }
}

/// The command line. `as_root`: Chromium refuses to run its sandbox as root (containers, CI),
/// so `--no-sandbox` is passed then and only then.
pub fn arguments(options: &LaunchOptions, profile: &std::path::Path, as_root: bool) -> Vec<String> {
    let mut args = vec![
        format!("--user-data-dir={}", profile.display()),
        "--remote-debugging-port=0".to_owned(),
        "--remote-debugging-address=127.0.0.1".to_owned(),
        "--no-first-run".to_owned(),
        "--no-default-browser-check".to_owned(),
        "--disable-background-networking".to_owned(),
        "--disable-component-update".to_owned(),
        "--disable-default-apps".to_owned(),
        "--disable-extensions".to_owned(),
        "--disable-sync".to_owned(),
        "--disable-dev-shm-usage".to_owned(),
        "--password-store=basic".to_owned(),
        "--use-mock-keychain".to_owned(),
        "--mute-audio".to_owned(),
        "--window-size=1280,800".to_owned(),
    ];
    if options.headless {
        args.push("--headless".to_owned());
        args.push("--hide-scrollbars".to_owned());
    }
    if as_root {
        args.push("--no-sandbox".to_owned());
    }
    args.push("about:blank".to_owned());
    args
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Reads stderr until the DevTools line; on end of stream, the last lines read.
async fn devtools_line(stderr: &mut BufReader<ChildStderr>) -> Result<String, Vec<String>> {
    let mut tail: VecDeque<String> = VecDeque::with_capacity(TAIL_LINES);
    let mut read_total = 0u64;
    loop {
        let mut line = Vec::new();
        let read = (&mut *stderr)
            .take(LINE_LIMIT)
            .read_until(b'\n', &mut line)
            .await
            .unwrap_or(0);
        read_total += read as u64;
        if read == 0 || read_total > STDERR_LIMIT {
            return Err(tail.into());
        }
        let line = String::from_utf8_lossy(&line).trim().to_owned();
        if let Some(url) = devtools_url_in(&line) {
            return Ok(url);
        }
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}

/// The URL in `DevTools listening on ws://…`.
pub fn devtools_url_in(line: &str) -> Option<String> {
    let rest = line.split("DevTools listening on ").nth(1)?;
    let url = rest.split_whitespace().next()?;
    url.starts_with("ws://").then(|| url.to_owned())
}

fn quote_tail(tail: &[String]) -> String {
    let lines: Vec<&str> = tail
        .iter()
        .map(String::as_str)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        String::new()
    } else {
        format!(": {}", lines.join(" | "))
    }
}

async fn drain(mut stderr: BufReader<ChildStderr>) {
    let mut sink = [0u8; 4096];
    while matches!(stderr.read(&mut sink).await, Ok(n) if n > 0) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_devtools_url_is_read_from_its_stderr_line() {
        assert_eq!(
            devtools_url_in("DevTools listening on ws://127.0.0.1:41239/devtools/browser/ab-c"),
            Some("ws://127.0.0.1:41239/devtools/browser/ab-c".into())
        );
        assert_eq!(
            devtools_url_in("[0101/1:ERROR:bus.cc] Failed to connect to the bus"),
            None
        );
    }

    #[test]
    fn no_sandbox_is_passed_only_as_root_and_headless_by_option() {
        let options = LaunchOptions {
            executable: "/usr/bin/chromium".into(),
            headless: true,
        };
        let profile = std::path::Path::new("/tmp/p");
        let user = arguments(&options, profile, false);
        assert!(!user.iter().any(|a| a == "--no-sandbox"));
        assert!(user.iter().any(|a| a == "--headless"));
        assert!(user.contains(&"--user-data-dir=/tmp/p".to_owned()));
        assert!(user.contains(&"--remote-debugging-port=0".to_owned()));
        let root = arguments(&options, profile, true);
        assert!(root.iter().any(|a| a == "--no-sandbox"));
        let windowed = arguments(
            &LaunchOptions {
                headless: false,
                ..options
            },
            profile,
            false,
        );
        assert!(!windowed.iter().any(|a| a == "--headless"));
    }
}
