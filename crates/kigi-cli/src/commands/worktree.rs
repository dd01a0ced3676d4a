//! `kigi worktree list|apply|discard`: the branches worktree subagents left behind.

use std::process::ExitCode;

use anyhow::Context;
use kigi_core::worktree::{self, ApplyOutcome};

fn cwd() -> anyhow::Result<std::path::PathBuf> {
    std::env::current_dir().context("cannot read the working directory")
}

pub fn list() -> anyhow::Result<ExitCode> {
    let entries = worktree::list(&cwd()?).map_err(anyhow::Error::msg)?;
    if entries.is_empty() {
        println!("no subagent worktrees");
    }
    for entry in entries {
        let path = entry
            .path
            .map_or_else(|| "(no worktree)".to_owned(), |p| p.display().to_string());
        println!(
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
            println!(
                "applied {} file(s) (not staged): {}",
                files.len(),
                files.join(", ")
            );
            Ok(ExitCode::SUCCESS)
        }
        ApplyOutcome::Conflicts { files } => {
            eprintln!(
                "kigi: conflicts in {}; resolve the markers there. {branch} is kept.",
                files.join(", ")
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

pub fn discard(branch: &str) -> anyhow::Result<ExitCode> {
    worktree::discard(&cwd()?, branch).map_err(anyhow::Error::msg)?;
    println!("discarded {branch}");
    Ok(ExitCode::SUCCESS)
}
