//! `fs/read_text_file` and `fs/write_text_file` from an ACP agent kigi runs as an executor:
//! answered only inside the child's working directory.
//!
//! The rule: a path is judged after it is resolved (symbolic links followed, `..` refused in
//! the part that does not exist yet), so no spelling of a path outside the directory gets
//! in; reads are capped.

use std::path::{Component, Path, PathBuf};

/// Largest file an agent may read through kigi.
pub(crate) const READ_CAP: u64 = 4 * 1024 * 1024;

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FileRefusal {
    /// The path resolves outside the directory.
    #[error("`{path}` is outside the working directory `{cwd}`")]
    Outside { path: String, cwd: String },
    /// A part that does not exist yet climbs with `..`.
    #[error("`{0}` climbs with `..` through a folder that does not exist")]
    Climbs(String),
    /// Too large to read.
    #[error("`{path}` is {size} bytes; the limit is {READ_CAP}")]
    TooLarge { path: String, size: u64 },
    /// The file system's own error.
    #[error("`{path}`: {reason}")]
    Io { path: String, reason: String },
}

/// `path` (absolute, or relative to `cwd`) resolved, if it lies inside `cwd`.
pub(crate) fn inside(cwd: &Path, path: &Path) -> Result<PathBuf, FileRefusal> {
    let io = |p: &Path, e: std::io::Error| FileRefusal::Io {
        path: p.display().to_string(),
        reason: e.to_string(),
    };
    let root = cwd.canonicalize().map_err(|e| io(cwd, e))?;
    let wanted = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    // The longest existing ancestor, resolved; the rest appended as written.
    let mut existing = wanted.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    let resolved = loop {
        match existing.canonicalize() {
            Ok(resolved) => break resolved,
            Err(_) => {
                let Some(parent) = existing.parent() else {
                    return Err(io(&wanted, std::io::ErrorKind::NotFound.into()));
                };
                match existing.components().next_back() {
                    Some(Component::Normal(name)) => rest.push(name),
                    _ => return Err(FileRefusal::Climbs(wanted.display().to_string())),
                }
                existing = parent;
            }
        }
    };
    let full = rest.iter().rev().fold(resolved, |acc, name| acc.join(name));
    if full.starts_with(&root) {
        Ok(full)
    } else {
        Err(FileRefusal::Outside {
            path: wanted.display().to_string(),
            cwd: root.display().to_string(),
        })
    }
}

/// The file's text from 1-based `line`, at most `limit` lines.
pub(crate) async fn read_text(
    cwd: &Path,
    path: &Path,
    line: Option<u32>,
    limit: Option<u32>,
) -> Result<String, FileRefusal> {
    let full = inside(cwd, path)?;
    let io = |e: std::io::Error| FileRefusal::Io {
        path: full.display().to_string(),
        reason: e.to_string(),
    };
    let size = tokio::fs::metadata(&full).await.map_err(io)?.len();
    if size > READ_CAP {
        return Err(FileRefusal::TooLarge {
            path: full.display().to_string(),
            size,
        });
    }
    let text = tokio::fs::read_to_string(&full).await.map_err(io)?;
    if line.is_none() && limit.is_none() {
        return Ok(text);
    }
    let skip = line.map_or(0, |l| l.saturating_sub(1) as usize);
    let take = limit.map_or(usize::MAX, |l| l as usize);
    Ok(text.split_inclusive('\n').skip(skip).take(take).collect())
}

/// Writes `content`, making missing folders (they are inside `cwd` by then).
pub(crate) async fn write_text(cwd: &Path, path: &Path, content: &str) -> Result<(), FileRefusal> {
    let full = inside(cwd, path)?;
    let io = |e: std::io::Error| FileRefusal::Io {
        path: full.display().to_string(),
        reason: e.to_string(),
    };
    if let Some(parent) = full.parent() {
        tokio::fs::create_dir_all(parent).await.map_err(io)?;
    }
    tokio::fs::write(&full, content).await.map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_judged_after_resolving_links_and_dots() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("work");
        std::fs::create_dir_all(cwd.join("src")).unwrap();
        let outside = dir.path().join("secret");
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, cwd.join("link")).unwrap();
        let root = cwd.canonicalize().unwrap();

        assert_eq!(
            inside(&cwd, Path::new("src/new/a.txt")).unwrap(),
            root.join("src/new/a.txt")
        );
        assert_eq!(
            inside(&cwd, &cwd.join("src/../b.txt")).unwrap(),
            root.join("b.txt")
        );
        assert!(matches!(
            inside(&cwd, &cwd.join("../secret/x")),
            Err(FileRefusal::Outside { .. })
        ));
        assert!(matches!(
            inside(&cwd, &cwd.join("link/x")),
            Err(FileRefusal::Outside { .. })
        ));
        assert!(matches!(
            inside(&cwd, Path::new("/etc/passwd")),
            Err(FileRefusal::Outside { .. })
        ));
        assert!(matches!(
            inside(&cwd, &cwd.join("nope/../../secret/x")),
            Err(FileRefusal::Climbs(_))
        ));
    }

    #[tokio::test]
    async fn reads_honour_line_and_limit_and_writes_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        write_text(cwd, &cwd.join("d/a.txt"), "1\n2\n3\n")
            .await
            .unwrap();
        assert_eq!(
            read_text(cwd, Path::new("d/a.txt"), Some(2), Some(1))
                .await
                .unwrap(),
            "2\n"
        );
        assert_eq!(
            read_text(cwd, Path::new("d/a.txt"), None, None)
                .await
                .unwrap(),
            "1\n2\n3\n"
        );
        let refused = write_text(cwd, Path::new("/tmp/kigi-outside.txt"), "x").await;
        assert!(
            matches!(refused, Err(FileRefusal::Outside { .. })),
            "{refused:?}"
        );
    }
}
