//! Reading the files kigi reads for itself (agent files, `AGENTS.md`, skills, personas, roles,
//! `config.toml`, `trusted_folders.toml`): only regular files (after following symlinks), and
//! never more than a cap. A symlink to `/dev/zero`, a FIFO or a socket is refused before it is
//! opened, so nothing blocks on it or reads without end.
//!
//! The rule: every such read in this crate goes through [`read_bounded`] or [`read_prefix`];
//! `std::fs::read_to_string` on a path a repository controls is a hang waiting to happen.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The cap for an agent, persona, role, skill or instructions file, and for config files.
pub const FILE_CAP_BYTES: u64 = 1024 * 1024;

/// Why a file kigi reads for itself was not read.
#[derive(Debug, thiserror::Error)]
pub enum BoundedReadError {
    /// The file could not be inspected, opened or read (missing, no permission, …).
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The path (after following symlinks) is a FIFO, device, socket or directory.
    #[error(
        "{}: not a regular file ({kind}); kigi reads only regular files here",
        path.display()
    )]
    NotRegular { path: PathBuf, kind: &'static str },
    /// The file is larger than the cap for its kind.
    #[error("{}: larger than the {cap}-byte limit for this file", path.display())]
    TooLarge { path: PathBuf, cap: u64 },
    /// The file is not UTF-8 text.
    #[error("{}: not valid UTF-8 text", path.display())]
    NotUtf8 { path: PathBuf },
}

impl BoundedReadError {
    /// The file at fault.
    pub fn path(&self) -> &Path {
        match self {
            Self::Io { path, .. }
            | Self::NotRegular { path, .. }
            | Self::TooLarge { path, .. }
            | Self::NotUtf8 { path } => path,
        }
    }

    /// True when the file does not exist (callers that treat a missing file as empty).
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }

    /// The message without the leading path (for diagnostics that carry the path apart).
    pub fn detail(&self) -> String {
        match self {
            Self::Io { source, .. } => source.to_string(),
            Self::NotRegular { kind, .. } => {
                format!("not a regular file ({kind}); kigi reads only regular files here")
            }
            Self::TooLarge { cap, .. } => format!("larger than the {cap}-byte limit for this file"),
            Self::NotUtf8 { .. } => "not valid UTF-8 text".to_owned(),
        }
    }
}

fn describe(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        return "a directory";
    }
    "not a plain file"
}

/// Opens `path` if it is a regular file, with its length. The type is checked before opening
/// (opening a FIFO for reading blocks until a writer appears) and again on the open handle.
fn open_regular(path: &Path) -> Result<(File, u64), BoundedReadError> {
    let io = |source| BoundedReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let not_regular = |kind| BoundedReadError::NotRegular {
        path: path.to_path_buf(),
        kind: describe(kind),
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    Ok((file, meta.len()))
}

/// Reads at most `limit` bytes of `file`, whatever its metadata claimed.
fn read_at_most(file: File, limit: u64, path: &Path) -> Result<Vec<u8>, BoundedReadError> {
    let mut bytes = Vec::new();
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|source| BoundedReadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(bytes)
}

/// Reads `path` whole if it is a regular file of at most `cap` bytes; a larger file is an
/// error, not a truncation.
pub fn read_bounded(path: &Path, cap: u64) -> Result<String, BoundedReadError> {
    let (file, len) = open_regular(path)?;
    let too_large = || BoundedReadError::TooLarge {
        path: path.to_path_buf(),
        cap,
    };
    if len > cap {
        return Err(too_large());
    }
    // One byte past the cap tells a file that grew since `metadata` from one that did not.
    let bytes = read_at_most(file, cap.saturating_add(1), path)?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| BoundedReadError::NotUtf8 {
        path: path.to_path_buf(),
    })
}

/// A prefix of a file, for readers with a budget that truncate on purpose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix {
    /// At most the asked-for bytes, cut back to a character boundary.
    pub text: String,
    /// The file's whole length in bytes.
    pub total_len: u64,
}

/// Reads at most `max` bytes of a regular file, cut at a character boundary. Invalid UTF-8
/// inside the prefix is an error; a character split by the limit is left out.
pub fn read_prefix(path: &Path, max: u64) -> Result<Prefix, BoundedReadError> {
    let (file, len) = open_regular(path)?;
    let mut bytes = read_at_most(file, max, path)?;
    let valid = match std::str::from_utf8(&bytes) {
        Ok(_) => bytes.len(),
        // `error_len() == None`: the bytes end inside a character the limit cut.
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => {
            return Err(BoundedReadError::NotUtf8 {
                path: path.to_path_buf(),
            });
        }
    };
    bytes.truncate(valid);
    let text = String::from_utf8(bytes).map_err(|_| BoundedReadError::NotUtf8 {
        path: path.to_path_buf(),
    })?;
    Ok(Prefix {
        text,
        total_len: len.max(valid as u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Runs `read` on another thread; a read that blocks fails the test instead of hanging it.
    fn within_ceiling<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(read());
        });
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the read blocked instead of refusing the file")
    }

    #[test]
    fn reads_a_regular_file_under_the_cap() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a.md");
        std::fs::write(&path, "hello").unwrap();
        assert_eq!(read_bounded(&path, 5).unwrap(), "hello");
    }

    #[test]
    fn a_file_over_the_cap_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("big.md");
        std::fs::write(&path, "x".repeat(11)).unwrap();
        let err = read_bounded(&path, 10).unwrap_err();
        assert!(matches!(err, BoundedReadError::TooLarge { cap: 10, .. }));
        assert!(err.to_string().contains("big.md"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_to_dev_zero_is_refused_at_once() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("zero.md");
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let err = within_ceiling(move || read_bounded(&path, FILE_CAP_BYTES)).unwrap_err();
        assert!(
            matches!(
                err,
                BoundedReadError::NotRegular {
                    kind: "a character device",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("zero.md"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("pipe.md");
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        let err = within_ceiling(move || read_prefix(&path, 100)).unwrap_err();
        assert!(
            matches!(err, BoundedReadError::NotRegular { kind: "a FIFO", .. }),
            "{err}"
        );
        assert!(err.to_string().contains("pipe.md"), "{err}");
    }

    #[test]
    fn a_prefix_stops_at_a_character_boundary() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("AGENTS.md");
        std::fs::write(&path, "aé").unwrap();
        let prefix = read_prefix(&path, 2).unwrap();
        assert_eq!(
            prefix,
            Prefix {
                text: "a".into(),
                total_len: 3
            }
        );
    }

    #[test]
    fn a_missing_file_says_so() {
        let err = read_bounded(Path::new("/nonexistent/kigi/x.toml"), 10).unwrap_err();
        assert!(err.is_not_found());
    }
}
