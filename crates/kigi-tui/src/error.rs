//! What can go wrong in the interactive terminal.

use std::path::PathBuf;

/// Errors of the interactive terminal.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// Reading from or writing to the terminal failed (raw mode, a write, its size).
    #[error("terminal I/O failed: {0}")]
    Terminal(#[from] std::io::Error),
    /// The session host refused to open or reopen a session.
    #[error(transparent)]
    Host(#[from] kigi_core::host::HostError),
    /// The input history file could not be written.
    #[error("cannot write the input history {path}: {source}")]
    History {
        /// The history file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
