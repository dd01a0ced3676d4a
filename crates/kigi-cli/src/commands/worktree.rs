//! `kigi worktree list|apply|discard`: the branches worktree subagents left behind.

use std::process::ExitCode;

use anyhow::Context;
use kigi_core::worktree::{self, ApplyOutcome};
use serde_json::json;

fn cwd() -> anyhow::Result<std::path::PathBuf> {
    std::env::current_dir().context("cannot read the working directory")
}

pub fn list(as_json: bool) -> anyhow::Result<ExitCode> {
    let entries = worktree::list(&cwd()?).map_err(anyhow::Error::msg)?;
    if as_json {
        let rows: Vec<_> = entries
            .iter()
            .map(|e| json!({"branch": e.branch, "files": e.files, "path": e.path}))
            .collect();
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    if entries.is_empty() {
        outln!("no subagent worktrees");
    }
    for entry in entries {
        let path = entry
            .path
            .map_or_else(|| "(no worktree)".to_owned(), |p| p.display().to_string());
        outln!(
            "{}  {} file(s): {}  {path}",
            entry.branch,
            entry.files.len(),
            entry.files.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn apply(branch: &str) -> anyhow::Result<ExitCode> {
    match worktree::apply(&cwd()?, branch).map_err(anyhow::Error::msg)? {
        ApplyOutcome::Applied { files } => {
            outln!(
                "applied {} file(s) (not staged): {}",
                files.len(),
                files.join(", ")
            );
            Ok(ExitCode::SUCCESS)
        }
        ApplyOutcome::Conflicts { files } => {
            errln!(
                "kigi: conflicts in {}; resolve the markers there. {branch} is kept.",
                files.join(", ")
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

pub fn discard(branch: &str) -> anyhow::Result<ExitCode> {
    worktree::discard(&cwd()?, branch).map_err(anyhow::Error::msg)?;
    outln!("discarded {branch}");
    Ok(ExitCode::SUCCESS)
}
