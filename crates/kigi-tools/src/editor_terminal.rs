//! The editor's terminal: when kigi runs inside an editor that offers one (ACP's
//! `terminal/*`), `run_terminal_cmd` may run its command there, so the person watches it
//! live in the editor.
//!
//! The rule: only a command kigi itself would run unconfined goes there. The editor's
//! terminal is outside kigi's sandbox, so a command of a confined context (`read-only`,
//! `workspace-write`) always runs in kigi, whatever seam the context carries; the tool checks
//! this where the command runs.

use std::path::Path;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::editor_files::EditorFuture;
use crate::shell::Ending;

/// One command for the editor's terminal.
#[derive(Debug, Clone, Copy)]
pub struct TerminalCommand<'a> {
    /// The shell line (run with `sh -c`, as kigi runs it).
    pub line: &'a str,
    /// The absolute working directory.
    pub cwd: &'a Path,
    /// Bytes of output kept (the editor keeps the end).
    pub output_limit: usize,
    /// Killed when it runs this long.
    pub timeout: Duration,
    /// Killed when this fires.
    pub cancel: &'a CancellationToken,
    /// The tool call it runs for, so the editor can show the terminal in that call.
    pub call_id: Option<&'a str>,
}

/// What a command in the editor's terminal printed, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalRun {
    pub output: String,
    pub ending: Ending,
}

/// Runs shell commands in an editor's terminal.
pub trait EditorTerminal: Send + Sync + std::fmt::Debug {
    /// Runs `command` until it exits, times out or is cancelled (then it is killed), and
    /// releases the terminal; an error when the editor could not run it at all.
    fn run<'a>(&'a self, command: TerminalCommand<'a>) -> EditorFuture<'a, TerminalRun>;
}
