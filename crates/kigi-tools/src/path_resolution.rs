//! Where a path argument really leads, decided before anything is judged: every `..` and
//! every symlink on the way is followed as the kernel would follow it, also through parts that
//! do not exist yet (a tool may create them) and through dangling symlinks (a write would
//! create their target). A check on the resolved path cannot be walked around.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed before giving up (the kernel's own limit is 40).
const MAX_LINKS: usize = 40;

/// `raw` (relative to `cwd` unless absolute), resolved: absolute, without `.` or `..`, and
/// with every existing symlink replaced by where it points. A chain of more than 40 links
/// resolves to the link itself, which then fails to open as the kernel would fail.
pub fn resolve_path(cwd: &Path, raw: &Path) -> PathBuf {
    let joined = if raw.is_absolute() {
        raw.to_path_buf()
    } else {
        cwd.join(raw)
    };
    // Components still to walk, last first.
    let mut pending: Vec<OsString> = Vec::new();
    push_components(&joined, &mut pending);
    let mut out = PathBuf::from("/");
    let mut links = 0;
    while let Some(part) = pending.pop() {
        if part == ".." {
            out.pop();
            continue;
        }
        if part == "." || part.is_empty() {
            continue;
        }
        out.push(&part);
        let Ok(meta) = std::fs::symlink_metadata(&out) else {
            continue; // Not there yet: nothing to follow.
        };
        if !meta.file_type().is_symlink() || links >= MAX_LINKS {
            continue;
        }
        links += 1;
        let Ok(target) = std::fs::read_link(&out) else {
            continue;
        };
        out.pop();
        if target.is_absolute() {
            out = PathBuf::from("/");
        }
        push_components(&target, &mut pending);
    }
    out
}

/// Pushes `path`'s components onto `pending` so that the first is popped first.
fn push_components(path: &Path, pending: &mut Vec<OsString>) {
    let parts: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    pending.extend(parts.into_iter().rev());
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    fn canonical(path: &Path) -> PathBuf {
        path.canonicalize().unwrap()
    }

    #[test]
    fn dot_dot_through_a_folder_that_does_not_exist_yet_is_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = canonical(tmp.path());
        let resolved = resolve_path(&root, Path::new("nx/../../../../tmp/x"));
        assert_eq!(resolved, PathBuf::from("/tmp/x"));
        assert_eq!(
            resolve_path(&root, Path::new("a/./b/../c")),
            root.join("a/c")
        );
    }

    #[test]
    fn symlinks_are_followed_also_when_dangling_or_in_a_chain() {
        let tmp = tempfile::tempdir().unwrap();
        let root = canonical(tmp.path());
        let outside = tempfile::tempdir().unwrap();
        let outside_root = canonical(outside.path());
        symlink(&outside_root, root.join("out")).unwrap();
        assert_eq!(
            resolve_path(&root, Path::new("out/new.txt")),
            outside_root.join("new.txt")
        );
        // A dangling link: writing it would create its target.
        symlink(outside_root.join("planted"), root.join("dangling")).unwrap();
        assert_eq!(
            resolve_path(&root, Path::new("dangling")),
            outside_root.join("planted")
        );
        // A relative link, through another link.
        symlink("out", root.join("again")).unwrap();
        assert_eq!(
            resolve_path(&root, Path::new("again/x")),
            outside_root.join("x")
        );
        // A loop ends at the link itself instead of spinning.
        symlink("loop", root.join("loop")).unwrap();
        assert_eq!(resolve_path(&root, Path::new("loop")), root.join("loop"));
    }
}
