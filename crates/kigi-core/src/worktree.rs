//! Worktree isolation: a child that asked for it works in its own `git worktree` on a new
//! branch from the parent's HEAD. When it ends, its changes are committed on that branch (or
//! the worktree is removed if there are none); `apply` brings them into the main working
//! tree, `discard` drops them.
//!
//! The rule: nothing is lost. A child's work lives on its branch until applied or discarded;
//! an apply that conflicts leaves the branch in place and names the files; an apply git
//! refuses changes nothing.

use std::path::{Path, PathBuf};

use crate::git_command::{GIT_TIMEOUT, GitRun, run_git};

pub use crate::worktree_error::WorktreeError;

/// Branches of child worktrees start with this.
pub const BRANCH_PREFIX: &str = "kigi/";

/// A child's worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    /// The main working tree's root.
    pub repo: PathBuf,
    pub path: PathBuf,
    pub branch: String,
}

/// What a finished child's worktree holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeSummary {
    pub changed_files: Vec<String>,
    /// `git diff --stat` of the child's commit.
    pub stat: String,
    /// No changes: the worktree and branch were removed.
    pub removed: bool,
}

/// How an apply went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyOutcome {
    /// Every change is in the main working tree (not staged); the worktree and branch are gone.
    Applied { files: Vec<String> },
    /// Applied with conflict markers in `files`; the branch is kept.
    Conflicts { files: Vec<String> },
}

/// One git call, within [`GIT_TIMEOUT`]. Blocks: async callers use `spawn_blocking`.
fn git(dir: &Path, args: &[&str]) -> Result<String, WorktreeError> {
    let arguments = || args.iter().map(|a| (*a).to_owned()).collect();
    match run_git(dir, args, GIT_TIMEOUT).map_err(WorktreeError::CannotRun)? {
        GitRun::Exited {
            success: true,
            stdout,
            ..
        } => Ok(stdout),
        GitRun::Exited { stderr, .. } => Err(WorktreeError::Git {
            args: arguments(),
            stderr: stderr.trim().to_owned(),
        }),
        GitRun::TimedOut => Err(WorktreeError::TimedOut {
            args: arguments(),
            after: GIT_TIMEOUT,
        }),
    }
}

/// The root of the repository around `cwd`, or an error saying worktree isolation needs one.
pub fn repo_root(cwd: &Path) -> Result<PathBuf, WorktreeError> {
    git(cwd, &["rev-parse", "--show-toplevel"])
        .map(|out| PathBuf::from(out.trim()))
        .map_err(|error| match error {
            WorktreeError::CannotRun(_) => error,
            _ => WorktreeError::NotARepository {
                cwd: cwd.to_path_buf(),
            },
        })
}

/// Creates `branch` from HEAD with a worktree at `path`.
pub fn create(cwd: &Path, path: &Path, branch: &str) -> Result<Worktree, WorktreeError> {
    let repo = repo_root(cwd)?;
    git(&repo, &["rev-parse", "--verify", "HEAD"]).map_err(|_| WorktreeError::NoCommits)?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| WorktreeError::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let target = path.to_string_lossy().into_owned();
    git(
        &repo,
        &["worktree", "add", "-q", "-b", branch, &target, "HEAD"],
    )?;
    Ok(Worktree {
        repo,
        path: path.to_path_buf(),
        branch: branch.to_owned(),
    })
}

impl Worktree {
    /// Commits whatever the child changed on its branch; removes a worktree with no changes.
    pub fn finish(&self, message: &str) -> Result<WorktreeSummary, WorktreeError> {
        git(&self.path, &["add", "-A"])?;
        let staged = git(&self.path, &["diff", "--cached", "--name-only"])?;
        let changed_files: Vec<String> = staged.lines().map(str::to_owned).collect();
        if changed_files.is_empty() {
            self.remove()?;
            return Ok(WorktreeSummary {
                changed_files,
                stat: String::new(),
                removed: true,
            });
        }
        git(
            &self.path,
            &[
                "-c",
                "user.name=kigi",
                "-c",
                "user.email=kigi@localhost",
                "commit",
                "-q",
                "--no-verify",
                "-m",
                message,
            ],
        )?;
        let stat = git(&self.path, &["diff", "--stat", "HEAD~1", "HEAD"])?;
        Ok(WorktreeSummary {
            changed_files,
            stat: stat.trim_end().to_owned(),
            removed: false,
        })
    }

    /// Removes the worktree and its branch.
    pub fn remove(&self) -> Result<(), WorktreeError> {
        discard(&self.repo, &self.branch)
    }
}

/// The worktree path of `branch`, if it has one.
fn worktree_of(repo: &Path, branch: &str) -> Result<Option<PathBuf>, WorktreeError> {
    let list = git(repo, &["worktree", "list", "--porcelain"])?;
    let mut path = None;
    for line in list.lines() {
        if let Some(p) = line.strip_prefix("worktree ") {
            path = Some(PathBuf::from(p));
        } else if line.strip_prefix("branch refs/heads/") == Some(branch) {
            return Ok(path);
        }
    }
    Ok(None)
}

fn check_branch(branch: &str) -> Result<(), WorktreeError> {
    if !branch.starts_with(BRANCH_PREFIX) || branch.contains("..") {
        return Err(WorktreeError::NotKigiBranch {
            branch: branch.to_owned(),
            prefix: BRANCH_PREFIX,
        });
    }
    Ok(())
}

/// Brings `branch`'s changes (since it left the main line) into the main working tree.
pub fn apply(cwd: &Path, branch: &str) -> Result<ApplyOutcome, WorktreeError> {
    check_branch(branch)?;
    let repo = repo_root(cwd)?;
    let base = git(&repo, &["merge-base", "HEAD", branch])?;
    let range = format!("{}..{branch}", base.trim());
    let files: Vec<String> = git(&repo, &["diff", "--name-only", &range])?
        .lines()
        .map(str::to_owned)
        .collect();
    if files.is_empty() {
        discard(&repo, branch)?;
        return Ok(ApplyOutcome::Applied { files });
    }
    let patch = git(&repo, &["diff", "--binary", &range])?;
    let patch_file = repo
        .join(".git")
        .join(format!("kigi-apply-{}.patch", std::process::id()));
    std::fs::write(&patch_file, patch).map_err(|source| WorktreeError::Io {
        path: patch_file.clone(),
        source,
    })?;
    let patch_arg = patch_file.to_string_lossy().into_owned();
    let outcome = if git(&repo, &["apply", "--check", &patch_arg]).is_ok() {
        git(&repo, &["apply", &patch_arg]).map(|_| ApplyOutcome::Applied {
            files: files.clone(),
        })
    } else {
        match git(&repo, &["apply", "--3way", &patch_arg]) {
            Ok(_) => Ok(ApplyOutcome::Applied {
                files: files.clone(),
            }),
            Err(error) => {
                let conflicted: Vec<String> =
                    git(&repo, &["diff", "--name-only", "--diff-filter=U"])
                        .unwrap_or_default()
                        .lines()
                        .map(str::to_owned)
                        .collect();
                if conflicted.is_empty() {
                    // git refused before touching anything.
                    Err(WorktreeError::ApplyRefused {
                        branch: branch.to_owned(),
                        reason: Box::new(error),
                        files: files.clone(),
                    })
                } else {
                    Ok(ApplyOutcome::Conflicts { files: conflicted })
                }
            }
        }
    };
    let _ = std::fs::remove_file(&patch_file);
    if matches!(outcome, Ok(ApplyOutcome::Applied { .. })) {
        discard(&repo, branch)?;
    }
    outcome
}

/// Removes `branch`'s worktree (if any) and the branch.
pub fn discard(cwd: &Path, branch: &str) -> Result<(), WorktreeError> {
    check_branch(branch)?;
    let repo = repo_root(cwd)?;
    if let Some(path) = worktree_of(&repo, branch)? {
        git(
            &repo,
            &["worktree", "remove", "--force", &path.to_string_lossy()],
        )?;
    }
    git(&repo, &["branch", "-D", "-q", branch]).map(|_| ())
}

/// A kigi worktree branch and what it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeInfo {
    pub branch: String,
    pub path: Option<PathBuf>,
    pub files: Vec<String>,
}

/// Every kigi worktree branch of the repository around `cwd`.
pub fn list(cwd: &Path) -> Result<Vec<WorktreeInfo>, WorktreeError> {
    let repo = repo_root(cwd)?;
    let branches = git(
        &repo,
        &[
            "for-each-ref",
            "--format=%(refname:short)",
            &format!("refs/heads/{BRANCH_PREFIX}"),
        ],
    )?;
    branches
        .lines()
        .map(|branch| {
            let base = git(&repo, &["merge-base", "HEAD", branch])?;
            let files = git(
                &repo,
                &["diff", "--name-only", &format!("{}..{branch}", base.trim())],
            )?;
            Ok(WorktreeInfo {
                branch: branch.to_owned(),
                path: worktree_of(&repo, branch)?,
                files: files.lines().map(str::to_owned).collect(),
            })
        })
        .collect()
}
