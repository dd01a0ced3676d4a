//! What the config loader noticed without refusing the file: keys nothing reads, and
//! environment overrides whose value does not parse. Each names the file and line, or the
//! variable, so the user can find it.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

/// One thing the loader ignored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConfigWarning {
    /// A key no part of kigi reads (a typo such as `[subagent]`); it was ignored.
    UnknownKey {
        file: PathBuf,
        /// 1-based line of the key (or of its closest enclosing table).
        line: Option<usize>,
        /// The dotted key, e.g. `subagents.timout_ms`.
        key: String,
    },
    /// An environment override that does not parse; the file's value (or the default) stands.
    BadEnv {
        variable: &'static str,
        value: String,
        /// What the variable accepts.
        expected: &'static str,
    },
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownKey { file, line, key } => {
                write!(f, "{}", file.display())?;
                if let Some(line) = line {
                    write!(f, ":{line}")?;
                }
                write!(f, ": unknown key `{key}`, ignored")
            }
            Self::BadEnv {
                variable,
                value,
                expected,
            } => write!(
                f,
                "env {variable}: `{value}` is not {expected}; the variable is ignored"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_name_the_file_and_line_or_the_variable() {
        let key = ConfigWarning::UnknownKey {
            file: PathBuf::from("/h/config.toml"),
            line: Some(3),
            key: "subagent".into(),
        };
        assert_eq!(
            key.to_string(),
            "/h/config.toml:3: unknown key `subagent`, ignored"
        );
        let env = ConfigWarning::BadEnv {
            variable: "KIGI_SUBAGENTS",
            value: "maybe".into(),
            expected: "a switch",
        };
        assert_eq!(
            env.to_string(),
            "env KIGI_SUBAGENTS: `maybe` is not a switch; the variable is ignored"
        );
    }
}
