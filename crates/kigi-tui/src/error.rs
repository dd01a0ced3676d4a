//! What can go wrong in the interactive terminal.

use std::path::PathBuf;

/// Errors of the interactive terminal.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// Reading from or writing to the terminal failed (raw mode, a write, its size).
    #[error("terminal I/O failed: {0}")]
    Terminal(#[from] std::io::Error),
    /// The session host refused to open or reopen a session (boxed: the host's error is
    /// large, and every other variant would pay for it).
    #[error(transparent)]
    Host(Box<kigi_core::host::HostError>),
    /// A definition or configuration file could not be read, written or deleted.
    #[error("cannot change {path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `config.toml` spells a switch table (`[subagents.toggle]`, `[subagents.persona_toggle]`)
    /// in a form the agents modal does not edit (or does not parse); it is left as it is.
    #[error(
        "cannot switch `{name}` in {path}: edit [subagents.{table}] there by hand (it is not valid TOML, or the table is inline or dotted keys)"
    )]
    ToggleEdit {
        /// The config file.
        path: PathBuf,
        /// The table under `[subagents]`: `toggle` or `persona_toggle`.
        table: &'static str,
        /// The type or persona being switched.
        name: String,
    },
    /// A new agent's or persona's file could not be created (an invalid name, a file already
    /// there).
    #[error(transparent)]
    Agent(#[from] kigi_agent::AgentBuildError),
    /// The input history file could not be written.
    #[error("cannot write the input history {path}: {source}")]
    History {
        /// The history file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl From<kigi_core::host::HostError> for TuiError {
    fn from(error: kigi_core::host::HostError) -> Self {
        Self::Host(Box::new(error))
    }
}
