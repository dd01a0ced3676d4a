//! The browser's throwaway profile: a fresh folder under the system temp dir, removed when
//! dropped. Made here rather than with a temp-file crate, which nothing else in the binary
//! needs. A kigi process that exits without dropping its browser (its process group is
//! killed at exit all the same) leaves the folder behind; the next launch removes the folders
//! of kigi processes that are gone.
//!
//! The rule: the folder is created new (never one that already exists, which someone else
//! could have prepared) and readable by its owner only; only folders of this user whose
//! process is gone are swept.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// Attempts at a free name before giving up.
const ATTEMPTS: u32 = 100;
/// Entries of the temp folder looked at by one sweep.
const SWEEP_LIMIT: usize = 10_000;
const PREFIX: &str = "kigi-browser-";

/// A profile folder; dropping it removes it with everything the browser wrote.
#[derive(Debug)]
pub struct ProfileDir {
    path: PathBuf,
}

impl ProfileDir {
    /// A new, empty, owner-only folder `kigi-browser-<pid>-<n>` under `parent`.
    pub fn create_in(parent: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::DirBuilderExt;
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let mut last = None;
        for _ in 0..ATTEMPTS {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or_default();
            let path = parent.join(format!("kigi-browser-{}-{n}-{nanos:x}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(Self { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free profile folder name")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the profile folders under `parent` that belong to this user and to a process
    /// that no longer runs. Best effort: what cannot be removed stays.
    pub fn sweep_stale(parent: &Path) {
        use std::os::unix::fs::MetadataExt;
        let Ok(entries) = std::fs::read_dir(parent) else {
            return;
        };
        let me = rustix::process::geteuid().as_raw();
        for entry in entries.take(SWEEP_LIMIT).filter_map(Result::ok) {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(owner_pid) else {
                continue;
            };
            let ours = entry.metadata().is_ok_and(|m| m.is_dir() && m.uid() == me);
            if ours && pid != std::process::id() && process_gone(pid) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// True when no process has id `pid`. Asked of the kernel (`kill(pid, 0)`), not of `/proc`,
/// which a system may not mount: a missing `/proc` must not make every owner look gone. A
/// process of another user (`EPERM`) is alive.
fn process_gone(pid: u32) -> bool {
    // Pid 0 (and anything past i32) names no single process: kill(0, 0) would ask about
    // our own process group.
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return true;
    };
    rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
}

/// The process id in a profile folder's name (`kigi-browser-<pid>-<n>-<hex>`).
fn owner_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let mut parts = rest.split('-');
    let pid = parts.next()?.parse().ok()?;
    (parts.count() == 2).then_some(pid)
}

impl Drop for ProfileDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_profile_is_a_new_private_folder_removed_when_dropped() {
        use std::os::unix::fs::PermissionsExt;
        let parent = std::env::temp_dir();
        let a = ProfileDir::create_in(&parent).unwrap();
        let b = ProfileDir::create_in(&parent).unwrap();
        assert_ne!(a.path(), b.path());
        let mode = std::fs::metadata(a.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        std::fs::write(a.path().join("Local State"), "{}").unwrap();
        let path = a.path().to_path_buf();
        drop(a);
        assert!(!path.exists());
    }

    #[test]
    fn a_process_is_gone_only_once_it_has_exited_and_been_reaped() {
        use std::io::Write;
        let mut live = std::process::Command::new("cat")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = live.id();
        assert!(!process_gone(pid));
        assert!(!process_gone(std::process::id()));
        // Pid 1 runs as another user (or is us in a container): alive either way.
        assert!(!process_gone(1));
        let mut stdin = live.stdin.take().unwrap();
        stdin.write_all(b"bye").unwrap();
        drop(stdin);
        live.wait().unwrap();
        assert!(process_gone(pid));
        assert!(process_gone(0));
    }

    #[test]
    fn a_sweep_removes_only_profiles_of_processes_that_are_gone() {
        let parent = tempfile::tempdir().unwrap();
        // Pid 0 is never a process's; this process is alive.
        let gone = parent.path().join("kigi-browser-0-3-ab");
        let alive = parent
            .path()
            .join(format!("kigi-browser-{}-0-cd", std::process::id()));
        let other = parent.path().join("kigi-browser-notes");
        for dir in [&gone, &alive, &other] {
            std::fs::create_dir(dir).unwrap();
        }
        std::fs::write(gone.join("Local State"), "{}").unwrap();
        ProfileDir::sweep_stale(parent.path());
        assert!(!gone.exists());
        assert!(alive.exists() && other.exists());
        assert_eq!(owner_pid("kigi-browser-42-0-1f"), Some(42));
        assert_eq!(owner_pid("kigi-browser-42"), None);
    }
}
