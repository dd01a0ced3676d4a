//! `AgentBuildError`: why a definition could not be parsed or an agent could not be built.
//! Every message names the file (or `<inline definition>`) and, where one is at fault, the field.

use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, Severity, location};

/// An agent definition or agent that could not be built.
#[derive(Debug, thiserror::Error)]
pub enum AgentBuildError {
    /// Bad YAML, a missing `---` fence, or a field of the wrong type.
    #[error("{}: {}{message}", location(file.as_deref(), *line), field_prefix(field.as_deref()))]
    ParseError {
        file: Option<PathBuf>,
        line: Option<usize>,
        field: Option<String>,
        message: String,
    },
    /// A required field (`name`, `description`, `completionRequirement.tool`, …) is absent.
    #[error("{}: required field `{field}` is missing", location(file.as_deref(), None))]
    MissingField {
        file: Option<PathBuf>,
        field: String,
    },
    /// `toolNameOverrides` or `paramNameOverrides` names a tool kigi does not have.
    #[error(
        "{}: field `{field}`: `{tool}` is not a kigi tool (known: {known})",
        location(file.as_deref(), None)
    )]
    UnknownToolOverride {
        file: Option<PathBuf>,
        field: String,
        tool: String,
        known: String,
    },
    /// A file could not be read (the definition, an `AGENTS.md`, a skill).
    #[error("{}: {source}", path.display())]
    IoError {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The prompt template failed to render.
    #[error("{}: template: {message}", location(file.as_deref(), None))]
    MiniJinjaError {
        file: Option<PathBuf>,
        message: String,
    },
    /// `name` is not a valid agent name (lowercase letters, digits and hyphens), or a by-name
    /// lookup was asked for something that is not one plain path component.
    #[error("{}: field `name`: `{name}` is not a valid agent name: {reason}", location(file.as_deref(), None))]
    InvalidName {
        file: Option<PathBuf>,
        name: String,
        reason: String,
    },
}

fn field_prefix(field: Option<&str>) -> String {
    field.map(|f| format!("field `{f}`: ")).unwrap_or_default()
}

impl AgentBuildError {
    /// The file at fault, if any.
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            Self::ParseError { file, .. }
            | Self::MissingField { file, .. }
            | Self::UnknownToolOverride { file, .. }
            | Self::MiniJinjaError { file, .. }
            | Self::InvalidName { file, .. } => file.as_deref(),
            Self::IoError { path, .. } => Some(path),
        }
    }

    /// This error as an error-severity diagnostic (how discovery reports a skipped file).
    pub fn to_diagnostic(&self) -> Diagnostic {
        let (line, field) = match self {
            Self::ParseError { line, field, .. } => (*line, field.clone()),
            Self::MissingField { field, .. } | Self::UnknownToolOverride { field, .. } => {
                (None, Some(field.clone()))
            }
            Self::InvalidName { .. } => (None, Some("name".to_owned())),
            Self::IoError { .. } | Self::MiniJinjaError { .. } => (None, None),
        };
        // The diagnostic carries file, line and field itself; keep only the message proper.
        let full = self.to_string();
        let mut message = full
            .strip_prefix(&format!("{}: ", location(self.file(), line)))
            .unwrap_or(&full);
        if let Some(field) = &field {
            message = message
                .strip_prefix(&format!("field `{field}`: "))
                .unwrap_or(message);
        }
        Diagnostic {
            severity: Severity::Error,
            file: self.file().map(std::path::Path::to_path_buf),
            line,
            field,
            message: message.to_owned(),
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
