//! Diagnostics: what kigi noticed about an agent file without refusing it (or, for skipped
//! files, why it refused). Every diagnostic names the file, and the line and field when known.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file loaded, but kigi guessed, ignored or dropped something.
    Warning,
    /// The file was skipped.
    Error,
}

/// One finding about one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The file at fault; `None` for an in-memory definition.
    pub file: Option<PathBuf>,
    /// 1-based line in the file, when known.
    pub line: Option<usize>,
    /// The frontmatter field (dotted for nested ones: `bash.timeoutSecs`).
    pub field: Option<String>,
    pub message: String,
}

impl Diagnostic {
    /// A warning about a field.
    pub fn warning(file: Option<&Path>, field: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            file: file.map(Path::to_path_buf),
            line: None,
            field: field.map(str::to_owned),
            message: message.into(),
        }
    }

    /// An error about a file that was skipped.
    pub fn error(file: Option<PathBuf>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            file,
            line: None,
            field: None,
            message: message.into(),
        }
    }

    /// The same diagnostic, pointing at a line.
    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }
}

/// `path` or `<inline definition>`, then `:line` when known.
pub(crate) fn location(file: Option<&Path>, line: Option<usize>) -> String {
    let mut out = match file {
        Some(path) => path.display().to_string(),
        None => "<inline definition>".to_owned(),
    };
    if let Some(line) = line {
        out.push_str(&format!(":{line}"));
    }
    out
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(
            f,
            "{severity}: {}: ",
            location(self.file.as_deref(), self.line)
        )?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.message)
    }
}
