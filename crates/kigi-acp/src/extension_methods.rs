//! kigi's ACP extension methods: `_kigi/session/update` notifications (subagents' events)
//! and the `kigi/git/worktree/list|apply|discard` requests on the branches worktree
//! subagents leave behind.
//!
//! The rule: kigi writes only the `_kigi/` names, and reads the spellings older clients
//! send too (`kigi/…` without the underscore, and the legacy `x.ai/…` and `_x.ai/…`).

use std::path::Path;

use agent_client_protocol::{Error, ErrorCode};
use kigi_core::worktree::{self, ApplyOutcome};
use serde_json::{Value, json};

/// Subagents' events, one notification each.
pub const SUBAGENT_UPDATE_METHOD: &str = "_kigi/session/update";
/// Every kigi worktree branch and what it changed.
pub const WORKTREE_LIST_METHOD: &str = "_kigi/git/worktree/list";
/// A branch's changes applied to the working tree.
pub const WORKTREE_APPLY_METHOD: &str = "_kigi/git/worktree/apply";
/// A branch and its worktree removed.
pub const WORKTREE_DISCARD_METHOD: &str = "_kigi/git/worktree/discard";

/// A worktree request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WorktreeMethod {
    List,
    Apply,
    Discard,
}

impl WorktreeMethod {
    /// The request `method` names, in any accepted spelling.
    pub(crate) fn parse(method: &str) -> Option<Self> {
        let bare = method.strip_prefix('_').unwrap_or(method);
        let rest = bare
            .strip_prefix("kigi/")
            .or_else(|| bare.strip_prefix("x.ai/"))?;
        match rest {
            "git/worktree/list" => Some(Self::List),
            "git/worktree/apply" => Some(Self::Apply),
            "git/worktree/discard" => Some(Self::Discard),
            _ => None,
        }
    }

    /// Runs the request in the repository around `cwd`. Blocks (git): run it off the async
    /// threads.
    pub(crate) fn run(self, params: &Value, cwd: &Path) -> Result<Value, Error> {
        let failed = |e: kigi_core::worktree::WorktreeError| {
            Error::new(ErrorCode::INTERNAL_ERROR, e.to_string())
        };
        let branch = || {
            params.get("branch").and_then(Value::as_str).ok_or_else(|| {
                Error::invalid_params().data(json!({"reason": "`branch` (a string) is required"}))
            })
        };
        match self {
            Self::List => {
                let entries = worktree::list(cwd).map_err(failed)?;
                let rows: Vec<Value> = entries
                    .iter()
                    .map(|e| json!({"branch": e.branch, "path": e.path, "files": e.files}))
                    .collect();
                Ok(json!({"worktrees": rows}))
            }
            Self::Apply => Ok(match worktree::apply(cwd, branch()?).map_err(failed)? {
                ApplyOutcome::Applied { files } => json!({"outcome": "applied", "files": files}),
                ApplyOutcome::Conflicts { files } => {
                    json!({"outcome": "conflicts", "files": files})
                }
            }),
            Self::Discard => {
                worktree::discard(cwd, branch()?).map_err(failed)?;
                Ok(json!({}))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn every_spelling_of_a_worktree_method_is_read() {
        for method in [
            WORKTREE_LIST_METHOD,
            "kigi/git/worktree/list",
            "_x.ai/git/worktree/list",
            "x.ai/git/worktree/list",
        ] {
            assert_eq!(
                WorktreeMethod::parse(method),
                Some(WorktreeMethod::List),
                "{method}"
            );
        }
        assert_eq!(
            WorktreeMethod::parse(WORKTREE_DISCARD_METHOD),
            Some(WorktreeMethod::Discard)
        );
        assert_eq!(WorktreeMethod::parse("_kigi/git/worktree/merge"), None);
        assert_eq!(WorktreeMethod::parse("session/prompt"), None);
    }

    #[test]
    fn apply_without_a_branch_is_invalid_params() {
        let error = WorktreeMethod::Apply
            .run(&json!({}), Path::new("/"))
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    }
}
