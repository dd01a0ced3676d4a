//! `kigi agents new`: a commented starter definition, written without ever overwriting.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::agent_name::strict_name_problem;
use crate::error::AgentBuildError;

/// The text of a starter definition named `name`.
pub fn starter_definition(name: &str) -> String {
    format!(
        "---\n\
         name: {name}\n\
         description: One line on when to use this agent (shown to the model that picks agents).\n\
         # tools: [read_file, grep, list_dir]   # omit for all tools; [] for none\n\
         # disallowedTools: [run_terminal_cmd]  # always wins over tools\n\
         # model: inherit                        # or a model alias from config.toml\n\
         # permissionMode: default               # default | acceptEdits | plan | dontAsk | bypassPermissions\n\
         # promptMode: extend                    # extend: base prompt + this body; full: body only\n\
         ---\n\
         You are {name}. Describe the role, the steps to follow, and what to report back.\n"
    )
}

/// Writes `<dir>/<name>.md`. Fails if the name is invalid or the file exists.
pub fn create_agent_file(dir: &Path, name: &str) -> Result<PathBuf, AgentBuildError> {
    if let Some(reason) = strict_name_problem(name) {
        return Err(AgentBuildError::InvalidName {
            file: None,
            name: name.to_owned(),
            reason: reason.to_owned(),
        });
    }
    let path = dir.join(format!("{name}.md"));
    let io_err = |source| AgentBuildError::IoError {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io_err)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(io_err)?;
    file.write_all(starter_definition(name).as_bytes())
        .map_err(io_err)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definition::AgentDefinition;

    #[test]
    fn starter_parses_without_warnings() {
        let def = AgentDefinition::parse(&starter_definition("helper"), None).unwrap();
        assert_eq!(def.name, "helper");
        assert!(def.warnings.is_empty(), "{:?}", def.warnings);
    }

    #[test]
    fn never_overwrites_and_rejects_bad_names() {
        let tmp = tempfile::tempdir().unwrap();
        let path = create_agent_file(tmp.path(), "helper").unwrap();
        std::fs::write(&path, "mine").unwrap();
        let err = create_agent_file(tmp.path(), "helper").unwrap_err();
        assert!(matches!(err, AgentBuildError::IoError { .. }));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
        assert!(create_agent_file(tmp.path(), "../evil").is_err());
    }
}
