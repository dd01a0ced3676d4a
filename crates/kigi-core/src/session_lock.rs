//! One writer per session. The process that writes a session's transcript holds an advisory
//! lock on `writer.lock` in its folder (with its pid written inside, for the error message);
//! a second `--resume` or `--continue` of that session fails instead of interleaving
//! records. The lock goes with the process, a crash included.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;

use crate::session_store::StoreError;

/// The lock file in a session's folder.
const LOCK_FILE: &str = "writer.lock";

/// Held while this process writes the session.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
}

impl SessionLock {
    /// Takes session `id`'s lock in `dir`, or says which process holds it.
    pub fn acquire(dir: &Path, id: &str) -> Result<Self, StoreError> {
        let path = dir.join(LOCK_FILE);
        let io = |source| StoreError::Io {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {
                file.set_len(0).map_err(io)?;
                file.rewind().map_err(io)?;
                write!(file, "{}", std::process::id()).map_err(io)?;
                Ok(Self { _file: file })
            }
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                Err(StoreError::InUse {
                    id: id.to_owned(),
                    holder: holder.trim().to_owned(),
                })
            }
            Err(TryLockError::Error(source)) => Err(io(source)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_with_the_holders_pid_until_the_first_lets_go() {
        let tmp = tempfile::tempdir().unwrap();
        let first = SessionLock::acquire(tmp.path(), "s1").unwrap();
        let refused = SessionLock::acquire(tmp.path(), "s1").unwrap_err();
        let message = refused.to_string();
        assert!(
            message.contains("s1") && message.contains(&std::process::id().to_string()),
            "{message}"
        );
        drop(first);
        assert!(SessionLock::acquire(tmp.path(), "s1").is_ok());
    }
}
