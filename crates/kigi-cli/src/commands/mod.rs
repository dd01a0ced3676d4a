//! One module per subcommand family.

pub mod acp;
pub mod agents;
pub mod config;
pub mod demo;
pub mod hooks;
pub mod init;
pub mod mcp;
mod mcp_config_edit;
pub mod models;
pub mod overlays;
pub mod permissions;
pub mod print;
pub mod progress;
pub mod prompt_input;
pub mod session_flags;
pub mod sessions;
pub mod signals;
pub mod swarm;
mod swarm_watch;
pub mod text_progress;
pub mod trust;
pub mod tui;
pub mod worktree;

use anyhow::Context;
use kigi_agent::{Discovery, KigiPaths, LoadedConfig};

/// The working directory and discovery settings every command starts from.
pub fn context() -> anyhow::Result<(std::path::PathBuf, Discovery)> {
    let (cwd, discovery, _) = context_with_config()?;
    Ok((cwd, discovery))
}

/// [`context`], with the loaded `config.toml` (and its warnings) it was built from.
pub fn context_with_config() -> anyhow::Result<(std::path::PathBuf, Discovery, LoadedConfig)> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let paths = KigiPaths::from_env();
    let loaded = LoadedConfig::load(&paths.config_file(), &|name| std::env::var(name).ok())?;
    let discovery = Discovery::with_config(paths, &loaded.config)?;
    Ok((cwd, discovery, loaded))
}

/// The session host, from `config.toml` read once, with the ACP client for executors; its
/// warnings (unknown keys with their lines, bad environment values) go to stderr before
/// anything runs.
/// The runtime a command's work runs on: one thread, timers and I/O.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// How long a front end's exit waits for blocking work still running (a tool stuck in a
/// system call) before leaving it.
pub const RUNTIME_SHUTDOWN: std::time::Duration = std::time::Duration::from_millis(500);

pub fn session_host() -> anyhow::Result<kigi_core::host::SessionHost> {
    let paths = KigiPaths::from_env();
    crate::logging::init(paths.kigi_home.join("logs"));
    let mut host = kigi_core::host::SessionHost::load(paths, print::process_env())?;
    // `kind = "acp"` executors speak ACP through kigi-acp's client; kigi-core cannot depend
    // on it, so every front end's host is handed it here.
    host.set_acp_driver(std::sync::Arc::new(kigi_acp::AcpClient));
    for warning in host.config_warnings() {
        errln!("kigi: warning: {warning}");
    }
    Ok(host)
}

/// Cancels `token` on Ctrl-C, SIGTERM or SIGHUP (a swarm, and every member under it); a
/// second one exits at once.
pub fn cancel_on_signal(token: &kigi_model::CancellationToken) {
    let token = token.clone();
    signals::on_ending_signal(move || token.cancel());
}
