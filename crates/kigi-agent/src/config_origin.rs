//! Where an effective configuration value came from: the file (with its line), an
//! environment variable, a command-line flag, or kigi's default.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

/// The source of one value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum ConfigOrigin {
    /// Nothing set it.
    Default,
    /// `config.toml`, at this 1-based line.
    File { path: PathBuf, line: usize },
    /// An environment variable.
    Env { variable: String },
    /// A command-line flag (`--model`).
    Flag { flag: String },
}

impl fmt::Display for ConfigOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::File { path, line } => write!(f, "file {}:{line}", path.display()),
            Self::Env { variable } => write!(f, "env {variable}"),
            Self::Flag { flag } => write!(f, "flag {flag}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_read_as_the_command_prints_them() {
        let shown = [
            ConfigOrigin::Default,
            ConfigOrigin::File {
                path: PathBuf::from("/h/config.toml"),
                line: 4,
            },
            ConfigOrigin::Env {
                variable: "KIGI_SUBAGENTS".into(),
            },
            ConfigOrigin::Flag {
                flag: "--model".into(),
            },
        ]
        .map(|o| o.to_string());
        assert_eq!(
            shown,
            [
                "default",
                "file /h/config.toml:4",
                "env KIGI_SUBAGENTS",
                "flag --model"
            ]
        );
        let json = serde_json::to_value(ConfigOrigin::Env {
            variable: "KIGI_X".into(),
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"source": "env", "variable": "KIGI_X"})
        );
    }
}
