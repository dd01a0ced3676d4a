//! A definition file discovery could not load, kept under the name it meant to have, so that
//! asking for that name (`--agent NAME`, `kigi agents show NAME`) points at the file and its
//! error instead of saying there is no such agent.
//!
//! The rule: the error is read again when asked for, never cached: the file may be fixed by
//! then, and a failed file never stands in for a definition that loaded.

use std::path::PathBuf;

use serde::Serialize;

use crate::definition::{AgentDefinition, NamePolicy, ParseOptions};
use crate::discovery::Scope;
use crate::error::AgentBuildError;

/// A definition file that could not be loaded, under the name it meant to have (its `name`
/// as far as it can be read, else its file stem): so `--agent NAME` can point at it.
#[derive(Debug, Clone, Serialize)]
pub struct FailedAgent {
    pub name: String,
    pub file: PathBuf,
    pub scope: Scope,
    #[serde(skip)]
    name_policy: NamePolicy,
}

impl FailedAgent {
    pub(crate) fn new(name: String, file: PathBuf, scope: Scope, name_policy: NamePolicy) -> Self {
        Self {
            name,
            file,
            scope,
            name_policy,
        }
    }

    /// Why the file does not load, read again now (`None` if it loads by now).
    pub fn error(&self) -> Option<AgentBuildError> {
        let options = ParseOptions {
            name_policy: self.name_policy,
            ..ParseOptions::default()
        };
        AgentDefinition::from_file_with(&self.file, options).err()
    }
}
