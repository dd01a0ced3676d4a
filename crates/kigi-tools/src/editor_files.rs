//! The editor's view of files: when kigi runs inside an editor (ACP's `fs/read_text_file`
//! and `fs/write_text_file`), file tools read and write through it, so unsaved buffers are
//! read and edits land in the open buffers.
//!
//! The rule: the seam only moves bytes. A tool resolves a path and judges it (secrets, write
//! root, and the runtime's permission checks before that) exactly as it does without an
//! editor, and only then asks the editor.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;

/// A boxed future, so [`EditorFiles`] stays object-safe.
pub type EditorFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, EditorFileError>> + Send + 'a>>;

/// Reads and writes text files through an editor. Paths are absolute and already resolved.
pub trait EditorFiles: Send + Sync + std::fmt::Debug {
    /// The whole text of `path` as the editor has it (an unsaved buffer included).
    fn read_text<'a>(&'a self, path: &'a Path) -> EditorFuture<'a, String>;
    /// Replaces the text of `path` (creating it) in the editor.
    fn write_text<'a>(&'a self, path: &'a Path, content: String) -> EditorFuture<'a, ()>;
}

/// Why the editor did not read or write a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the editor answered: {message}")]
pub struct EditorFileError {
    /// The editor's own words (its JSON-RPC error message), or why it could not be asked.
    pub message: String,
}

impl EditorFileError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}
