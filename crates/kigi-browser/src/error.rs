//! Why a browser action failed. Messages are read by the model and by people: they name the
//! executable, the element or the URL at fault and, where it helps, what to do next.

use std::path::PathBuf;
use std::time::Duration;

/// A browser failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrowserError {
    /// The browser could not be started.
    #[error("could not start the browser {executable}: {detail}")]
    Launch { executable: PathBuf, detail: String },
    /// The browser did not print its DevTools address in time.
    #[error("the browser {executable} did not open its DevTools port within {ceiling:?}{tail}")]
    NoDevTools {
        executable: PathBuf,
        ceiling: Duration,
        /// The end of its stderr, prefixed with ": " when there is any.
        tail: String,
    },
    /// The DevTools connection broke the protocol (handshake, framing, JSON).
    #[error("DevTools protocol: {0}")]
    Protocol(String),
    /// The connection is closed (the browser exited or crashed).
    #[error("the browser's DevTools connection closed (the browser exited or crashed)")]
    Closed,
    /// A command got no answer in time.
    #[error("{method} got no answer within {ceiling:?}")]
    Timeout { method: String, ceiling: Duration },
    /// The browser answered a command with an error.
    #[error("{method} failed: {message}")]
    Command { method: String, message: String },
    /// Script in the page threw.
    #[error("script in the page failed: {0}")]
    Script(String),
    /// What the model asked for cannot be done (no such element, bad URL, unknown key).
    #[error("{0}")]
    Refused(String),
}

impl BrowserError {
    /// True when the page's JavaScript context went away under a call (a navigation): the
    /// call may be repeated once the new page has loaded.
    pub fn context_lost(&self) -> bool {
        match self {
            Self::Command { message, .. } | Self::Script(message) => {
                message.contains("Execution context was destroyed")
                    || message.contains("Cannot find context")
                    || message.contains("Inspected target navigated or closed")
            }
            _ => false,
        }
    }
}
