//! For tests that prove a process did not outlive what started it.

use std::time::{Duration, Instant};

/// How long a killed process may take to go.
const CEILING: Duration = Duration::from_secs(5);

/// Whether process `pid` is still running after a few seconds (a zombie waiting for its
/// reaper does not count). A killed process may take a moment to go; one that nobody killed
/// (the tests' sleepers run for a minute) is still there at the ceiling.
pub fn still_running(pid: &str) -> bool {
    let pid = pid.trim();
    assert!(!pid.is_empty(), "no pid was written");
    let alive = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| {
                let state = stat.rsplit(')').next().unwrap_or("").trim_start();
                !state.starts_with('Z')
            })
            .unwrap_or(false)
    };
    let ceiling = Instant::now() + CEILING;
    while alive() {
        if Instant::now() >= ceiling {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}
