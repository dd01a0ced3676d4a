//! Every process group kigi starts, so that none outlives what started it. A command runs in
//! its own group; its [`ProcessGroup`] guard kills the whole group (the command and anything
//! it left behind) when dropped: the call ended, the background task ended or was dropped, or
//! the runtime shut down. [`kill_all`] ends every live group at once, for an exit that cannot
//! wait (a second Ctrl-C, SIGTERM).
//!
//! The rule: a guard is made right after the spawn and lives as long as the command may.

use std::collections::BTreeSet;
use std::sync::Mutex;

use rustix::process::{Pid, Signal, kill_process_group};

/// The ids of the groups alive now.
static LIVE: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

fn live() -> std::sync::MutexGuard<'static, BTreeSet<u32>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A started command's process group.
#[derive(Debug)]
pub struct ProcessGroup {
    id: u32,
}

impl ProcessGroup {
    /// Starts `command` as the leader of a new process group (killed with its child when
    /// dropped), and tracks that group: the one way a tokio command starts, so nothing it
    /// starts outlives it.
    pub fn spawn(
        command: &mut tokio::process::Command,
    ) -> std::io::Result<(tokio::process::Child, Self)> {
        let child = command.process_group(0).kill_on_drop(true).spawn()?;
        let group = Self::track(child.id().unwrap_or_default());
        Ok((child, group))
    }

    /// Tracks the group led by process `id` (spawned with `process_group(0)`).
    pub fn track(id: u32) -> Self {
        live().insert(id);
        Self { id }
    }

    /// Sends SIGKILL to every process of the group.
    pub fn kill(&self) {
        signal(self.id);
    }

    /// Sends SIGTERM to every process of the group: a chance to end cleanly first, for a
    /// launcher that must pass the end on (`srun` cancels its cluster step on SIGTERM; a
    /// SIGKILL would leave the step running on the node).
    pub fn terminate(&self) {
        send(self.id, Signal::TERM);
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
        live().remove(&self.id);
    }
}

/// Kills every live group kigi started, at once.
pub fn kill_all() {
    for id in live().iter() {
        signal(*id);
    }
}

fn signal(id: u32) {
    send(id, Signal::KILL);
}

fn send(id: u32, signal: Signal) {
    if let Some(pid) = i32::try_from(id).ok().and_then(Pid::from_raw) {
        // ESRCH (the group is already gone) is the common, harmless case.
        let _ = kill_process_group(pid, signal);
    }
}
