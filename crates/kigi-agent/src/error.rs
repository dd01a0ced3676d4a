//! `AgentBuildError`: why a definition could not be parsed or an agent could not be built.
//! Every message names the file (or `<inline definition>`) and, where one is at fault, the field.

use std::path::PathBuf;

use crate::bounded_read::BoundedReadError;
use crate::diagnostic::{Diagnostic, Severity, location};

/// An agent definition or agent that could not be built.
#[derive(Debug, thiserror::Error)]
pub enum AgentBuildError {
    /// Bad YAML, a missing `---` fence, or a field of the wrong type.
    ParseError {
        file: Option<PathBuf>,
        line: Option<usize>,
        field: Option<String>,
        message: String,
    },
    /// A required field (`name`, `description`, `completionRequirement.tool`, …) is absent.
    MissingField {
        file: Option<PathBuf>,
        field: String,
    },
    /// `toolNameOverrides` or `paramNameOverrides` names a tool kigi does not have.
    UnknownToolOverride {
        file: Option<PathBuf>,
        field: String,
        tool: String,
        known: String,
    },
    /// A file could not be read (the definition, an `AGENTS.md`, a skill).
    IoError {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file kigi reads for itself is not a regular file, is over its size cap, or is not
    /// UTF-8 text.
    Unreadable {
        #[source]
        source: BoundedReadError,
    },
    /// The prompt template failed to render.
    MiniJinjaError {
        file: Option<PathBuf>,
        message: String,
    },
    /// `name` is not a valid agent name (lowercase letters, digits and hyphens), or a by-name
    /// lookup was asked for something that is not one plain path component.
    InvalidName {
        file: Option<PathBuf>,
        name: String,
        reason: String,
    },
    /// A definition with more than one problem, or an error and warnings: every one of them
    /// (errors first), so one run of `kigi agents validate` shows them all.
    Problems {
        file: Option<PathBuf>,
        problems: Vec<Diagnostic>,
    },
}

/// An error taken apart: where it is, and what is wrong there. Both `Display` and
/// [`AgentBuildError::to_diagnostic`] are built from this, so they cannot drift apart.
struct Parts {
    line: Option<usize>,
    field: Option<String>,
    /// Whether `Display` puts "field `x`: " before the detail (false when the detail names
    /// the field itself).
    field_prefix: bool,
    detail: String,
}

impl AgentBuildError {
    fn parts(&self) -> Parts {
        let parts = |line, field: Option<&str>, field_prefix, detail: String| Parts {
            line,
            field: field.map(str::to_owned),
            field_prefix,
            detail,
        };
        match self {
            Self::ParseError {
                line,
                field,
                message,
                ..
            } => parts(*line, field.as_deref(), true, message.clone()),
            Self::MissingField { field, .. } => parts(
                None,
                Some(field),
                false,
                format!("required field `{field}` is missing"),
            ),
            Self::UnknownToolOverride {
                field, tool, known, ..
            } => parts(
                None,
                Some(field),
                true,
                format!("`{tool}` is not a kigi tool (known: {known})"),
            ),
            Self::IoError { source, .. } => parts(None, None, false, source.to_string()),
            Self::Unreadable { source } => parts(None, None, false, source.detail()),
            Self::MiniJinjaError { message, .. } => {
                parts(None, None, false, format!("template: {message}"))
            }
            Self::InvalidName { name, reason, .. } => parts(
                None,
                Some("name"),
                true,
                format!("`{name}` is not a valid agent name: {reason}"),
            ),
            Self::Problems { problems, .. } => parts(None, None, false, summarize(problems)),
        }
    }
}

/// What went wrong in a file, on one line (the file itself is said once, before):
/// ``2 errors: field `a`: …; field `b`: … (and 1 warning; …)``.
fn summarize(problems: &[Diagnostic]) -> String {
    let errors: Vec<String> = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| {
            let line = p.line.map(|l| format!("line {l}: ")).unwrap_or_default();
            let field = p
                .field
                .as_ref()
                .map(|f| format!("field `{f}`: "))
                .unwrap_or_default();
            format!("{line}{field}{}", p.message)
        })
        .collect();
    let warnings = problems.len() - errors.len();
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let mut out = format!("{}: {}", plural(errors.len(), "error"), errors.join("; "));
    if warnings > 0 {
        out.push_str(&format!(
            " (and {}; `kigi agents validate` lists them)",
            plural(warnings, "warning")
        ));
    }
    out
}

impl std::fmt::Display for AgentBuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts = self.parts();
        write!(f, "{}: ", location(self.file(), parts.line))?;
        if let (true, Some(field)) = (parts.field_prefix, &parts.field) {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&parts.detail)
    }
}

impl AgentBuildError {
    /// The file at fault, if any.
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            Self::ParseError { file, .. }
            | Self::MissingField { file, .. }
            | Self::UnknownToolOverride { file, .. }
            | Self::MiniJinjaError { file, .. }
            | Self::InvalidName { file, .. }
            | Self::Problems { file, .. } => file.as_deref(),
            Self::IoError { path, .. } => Some(path),
            Self::Unreadable { source } => Some(source.path()),
        }
    }

    /// Every problem this error stands for, as diagnostics (one, unless it is
    /// [`AgentBuildError::Problems`]).
    pub fn to_diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            Self::Problems { problems, .. } => problems.clone(),
            other => vec![other.to_diagnostic()],
        }
    }

    /// Every problem of a definition that failed, as one error: the error itself when it is
    /// alone, else [`AgentBuildError::Problems`] with the warnings after the errors.
    pub(crate) fn from_problems(
        file: Option<&std::path::Path>,
        mut errors: Vec<AgentBuildError>,
        warnings: Vec<Diagnostic>,
    ) -> Option<Self> {
        if errors.len() == 1 && warnings.is_empty() {
            return errors.pop();
        }
        if errors.is_empty() {
            return None;
        }
        let mut problems: Vec<Diagnostic> = errors.iter().flat_map(Self::to_diagnostics).collect();
        problems.extend(warnings);
        Some(Self::Problems {
            file: file.map(std::path::Path::to_path_buf),
            problems,
        })
    }

    /// This error as an error-severity diagnostic (how discovery reports a skipped file).
    pub fn to_diagnostic(&self) -> Diagnostic {
        let parts = self.parts();
        Diagnostic {
            severity: Severity::Error,
            file: self.file().map(std::path::Path::to_path_buf),
            line: parts.line,
            field: parts.field,
            message: parts.detail,
        }
    }
}

impl From<BoundedReadError> for AgentBuildError {
    fn from(err: BoundedReadError) -> Self {
        match err {
            BoundedReadError::Io { path, source } => Self::IoError { path, source },
            source => Self::Unreadable { source },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_error_names_file_line_and_field() {
        let err = AgentBuildError::ParseError {
            file: Some(PathBuf::from("/p/.kigi/agents/a.md")),
            line: Some(4),
            field: Some("maxTurns".into()),
            message: "expected a whole number, found `many`".into(),
        };
        assert_eq!(
            err.to_string(),
            "/p/.kigi/agents/a.md:4: field `maxTurns`: expected a whole number, found `many`"
        );
    }

    #[test]
    fn missing_field_names_inline_definitions() {
        let err = AgentBuildError::MissingField {
            file: None,
            field: "description".into(),
        };
        assert_eq!(
            err.to_string(),
            "<inline definition>: required field `description` is missing"
        );
    }
}
