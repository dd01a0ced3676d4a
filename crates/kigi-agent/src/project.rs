//! The project around a working directory: its root (the nearest folder holding `.git`) and
//! the folders from the working directory up to that root, which agent, skill and `AGENTS.md`
//! lookups walk.
//!
//! Outside a git repository the project is the working directory alone: walking further up
//! would read a home directory's `.kigi/` as if it were the project's.

use std::path::{Path, PathBuf};

/// A working directory and the project it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectLayout {
    pub cwd: PathBuf,
    /// The git root, or `cwd` outside a repository.
    pub root: PathBuf,
    /// True when `root` holds `.git`.
    pub in_git_repo: bool,
}

impl ProjectLayout {
    /// Finds the project around `cwd` (made absolute against the process's directory).
    pub fn locate(cwd: &Path) -> Self {
        let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        let git_root = cwd.ancestors().find(|dir| dir.join(".git").exists());
        Self {
            root: git_root.unwrap_or(&cwd).to_path_buf(),
            in_git_repo: git_root.is_some(),
            cwd,
        }
    }

    /// The project's own agent files (`.kigi/agents/`), where new ones are written.
    pub fn agents_dir(&self) -> PathBuf {
        self.root.join(".kigi/agents")
    }

    /// The project's `.kigi/mcp.toml`.
    pub fn mcp_toml(&self) -> PathBuf {
        self.root.join(".kigi/mcp.toml")
    }

    /// The folders from `cwd` up to the root, closest first.
    pub fn levels_closest_first(&self) -> Vec<PathBuf> {
        let mut levels = Vec::new();
        for dir in self.cwd.ancestors() {
            levels.push(dir.to_path_buf());
            if dir == self.root {
                break;
            }
        }
        levels
    }

    /// The folders from the root down to `cwd`, root first.
    pub fn levels_root_first(&self) -> Vec<PathBuf> {
        let mut levels = self.levels_closest_first();
        levels.reverse();
        levels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_from_cwd_up_to_the_git_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        let deep = root.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        let layout = ProjectLayout::locate(&deep);
        assert_eq!(layout.root, root);
        assert!(layout.in_git_repo);
        assert_eq!(
            layout.levels_closest_first(),
            vec![deep.clone(), root.join("a"), root.clone()]
        );
        assert_eq!(layout.levels_root_first().first(), Some(&root));
    }

    #[test]
    fn outside_git_the_project_is_the_working_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let layout = ProjectLayout::locate(tmp.path());
        assert_eq!(layout.root, tmp.path());
        assert!(!layout.in_git_repo);
        assert_eq!(
            layout.levels_closest_first(),
            vec![tmp.path().to_path_buf()]
        );
    }
}
