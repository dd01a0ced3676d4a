//! One module per subcommand family.

pub mod agents;
pub mod demo;
pub mod models;
pub mod overlays;
pub mod print;
pub mod progress;
pub mod sessions;
pub mod swarm;
pub mod trust;
pub mod worktree;

use anyhow::Context;
use kigi_agent::{Discovery, KigiPaths};

/// The working directory and discovery settings every command starts from.
pub fn context() -> anyhow::Result<(std::path::PathBuf, Discovery)> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let discovery = Discovery::load(KigiPaths::from_env())?;
    Ok((cwd, discovery))
}

/// Cancels `token` on Ctrl-C (a turn, a swarm, and every child under them). Needs a runtime.
pub fn cancel_on_ctrl_c(token: &kigi_model::CancellationToken) {
    let token = token.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            token.cancel();
        }
    });
}
