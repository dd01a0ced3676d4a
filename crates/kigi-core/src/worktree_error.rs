//! What can go wrong with a child's worktree.

use std::path::PathBuf;

/// A worktree operation that did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    /// `cwd` is not inside a git repository, so there is nothing to branch from.
    #[error("isolation `worktree` needs a git repository, and {} is not in one", cwd.display())]
    NotARepository {
        /// The directory that was asked about.
        cwd: PathBuf,
    },
    /// The repository has no commit, so there is no HEAD to branch from.
    #[error("isolation `worktree` needs at least one commit in the repository")]
    NoCommits,
    /// `branch` is not one of kigi's worktree branches.
    #[error("`{branch}` is not a kigi worktree branch (they start with {prefix})")]
    NotKigiBranch {
        /// The branch named.
        branch: String,
        /// The prefix kigi's branches start with.
        prefix: &'static str,
    },
    /// A git command ran and failed.
    #[error("git {} failed: {stderr}", args.join(" "))]
    Git {
        /// The git arguments (after `-C dir`).
        args: Vec<String>,
        /// What git wrote to stderr, trimmed.
        stderr: String,
    },
    /// A git command ran past its ceiling and was killed with everything it started.
    #[error("git {} took longer than {}s and was stopped", args.join(" "), after.as_secs())]
    TimedOut {
        /// The git arguments (after `-C dir`).
        args: Vec<String>,
        after: std::time::Duration,
    },
    /// git could not be started at all.
    #[error("cannot run git: {0}")]
    CannotRun(#[source] std::io::Error),
    /// A file or directory next to the worktree could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path at fault.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// git refused to apply `branch` before touching anything.
    #[error("cannot apply {branch} ({reason}); nothing was changed. Files involved: {}", files.join(", "))]
    ApplyRefused {
        /// The branch that was applied.
        branch: String,
        /// Why git refused.
        reason: Box<WorktreeError>,
        /// The files the branch changes.
        files: Vec<String>,
    },
}

impl WorktreeError {
    /// Whether the fault is in the request (no repository, no commit, not a kigi branch)
    /// rather than in git or the file system failing.
    pub fn is_bad_request(&self) -> bool {
        matches!(
            self,
            Self::NotARepository { .. } | Self::NoCommits | Self::NotKigiBranch { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_repository_is_a_bad_request_and_a_git_failure_is_not() {
        assert!(WorktreeError::NotARepository { cwd: "/tmp".into() }.is_bad_request());
        assert!(WorktreeError::NoCommits.is_bad_request());
        let git = WorktreeError::Git {
            args: vec!["worktree".into(), "add".into()],
            stderr: "fatal: boom".into(),
        };
        assert!(!git.is_bad_request());
        assert_eq!(git.to_string(), "git worktree add failed: fatal: boom");
        assert!(!WorktreeError::CannotRun(std::io::Error::other("no git")).is_bad_request());
    }
}
