//! `kigi agents new` and the agents modal's "new": a commented starter definition (or persona),
//! written without ever overwriting.

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
    write_new(dir, name, "md", &starter_definition(name))
}

/// Writes `text` as `<dir>/<name>.<extension>`, never over an existing file.
fn write_new(
    dir: &Path,
    name: &str,
    extension: &str,
    text: &str,
) -> Result<PathBuf, AgentBuildError> {
    if let Some(reason) = strict_name_problem(name) {
        return Err(AgentBuildError::InvalidName {
            file: None,
            name: name.to_owned(),
            reason: reason.to_owned(),
        });
    }
    let path = dir.join(format!("{name}.{extension}"));
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
    file.write_all(text.as_bytes()).map_err(io_err)?;
    Ok(path)
}

/// The text of a starter persona named `name`: every field it may set, the optional ones
/// commented out.
pub fn starter_persona(name: &str) -> String {
    format!(
        "# The persona `{name}`: how a subagent given it behaves (tone, focus, what it reports).\n\
         # A spawn names it with persona: \"{name}\"; it is added to the child's conversation.\n\
         description = \"One line on when to give a subagent this persona.\"\n\
         instructions = \"\"\"\n\
         Describe how to work and what to report back, and in what form.\n\
         \"\"\"\n\
         # instructions_file = \"personas/{name}.md\"  # read at spawn, added after instructions\n\
         # model = \"fast\"                           # a model alias from config.toml\n\
         # reasoning_effort = \"low\"\n\
         # default_isolation = \"worktree\"\n"
    )
}

/// Writes `<dir>/<name>.toml`, a starter persona. Fails if the name is invalid or the file
/// exists.
pub fn create_persona_file(dir: &Path, name: &str) -> Result<PathBuf, AgentBuildError> {
    write_new(dir, name, "toml", &starter_persona(name))
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

    #[test]
    fn the_starter_persona_loads_as_a_persona_with_instructions() {
        let tmp = tempfile::tempdir().unwrap();
        let path = create_persona_file(&tmp.path().join("personas"), "terse").unwrap();
        assert!(path.ends_with("personas/terse.toml"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, starter_persona("terse"));
        let persona: crate::Persona = toml::from_str(&text).unwrap();
        assert!(
            persona
                .instructions
                .unwrap()
                .starts_with("Describe how to work")
        );
        assert_eq!(persona.model, None);
        std::fs::write(&path, "mine").unwrap();
        assert!(create_persona_file(&tmp.path().join("personas"), "terse").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
        assert!(create_persona_file(tmp.path(), "a/b").is_err());
    }
}
