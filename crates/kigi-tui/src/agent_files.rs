//! What the agents modal does to files: a type's or persona's switch persisted in
//! `config.toml` (`[subagents.toggle]`, `[subagents.persona_toggle]`; comments kept), a new
//! agent's or persona's starter written, a definition deleted, and the command that opens a
//! file in the person's editor.
//!
//! The rule: only the event loop calls these (the modal itself stays pure), and none of them
//! overwrites what a person wrote: the toggle edit is refused rather than guessed when the
//! file spells the toggle in a form it does not edit, and a new file never replaces one.

use std::path::{Path, PathBuf};

use kigi_agent::{
    KigiPaths, ProjectLayout, create_agent_file, create_persona_file, with_persona_toggle,
    with_subagent_toggle,
};

use crate::error::TuiError;

/// What a switch in `config.toml` switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switched {
    /// A subagent type: `[subagents.toggle]`.
    Type,
    /// A persona: `[subagents.persona_toggle]`.
    Persona,
}

impl Switched {
    /// The table under `[subagents]`.
    fn table(self) -> &'static str {
        match self {
            Self::Type => "toggle",
            Self::Persona => "persona_toggle",
        }
    }
}

/// Switches `agent_type` to `enabled` in the config file at `config` (created when missing).
pub fn persist_toggle(config: &Path, agent_type: &str, enabled: bool) -> Result<(), TuiError> {
    persist_switch(config, Switched::Type, agent_type, enabled)
}

/// Switches the type or persona `name` to `enabled` in the config file at `config` (created
/// when missing).
pub fn persist_switch(
    config: &Path,
    what: Switched,
    name: &str,
    enabled: bool,
) -> Result<(), TuiError> {
    let io = |source| TuiError::File {
        path: config.to_path_buf(),
        source,
    };
    let text = match std::fs::read_to_string(config) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(io(error)),
    };
    let edited = match what {
        Switched::Type => with_subagent_toggle(&text, name, enabled),
        Switched::Persona => with_persona_toggle(&text, name, enabled),
    }
    .ok_or_else(|| TuiError::ToggleEdit {
        path: config.to_path_buf(),
        table: what.table(),
        name: name.to_owned(),
    })?;
    if edited != text {
        if let Some(dir) = config.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        std::fs::write(config, edited).map_err(io)?;
    }
    Ok(())
}

/// Writes the starter of agent `name` in the project's `.kigi/agents/` (as `kigi agents new`
/// does); fails when the name is not valid or the file exists.
pub fn create_agent(cwd: &Path, name: &str) -> Result<PathBuf, TuiError> {
    let dir = ProjectLayout::locate(cwd).agents_dir();
    Ok(create_agent_file(&dir, name)?)
}

/// The user's personas folder, `$KIGI_HOME/personas/`: a persona made there serves every
/// project (one in a project's `.kigi/personas/` is written by hand and shadows it).
pub fn user_personas_dir(paths: &KigiPaths) -> PathBuf {
    paths.personas_dir()
}

/// Writes the starter persona `name` in the user's personas folder; fails when the name is
/// not valid or the file exists.
pub fn create_persona(paths: &KigiPaths, name: &str) -> Result<PathBuf, TuiError> {
    Ok(create_persona_file(&user_personas_dir(paths), name)?)
}

/// Deletes the definition file at `path`.
pub fn delete_definition(path: &Path) -> Result<(), TuiError> {
    std::fs::remove_file(path).map_err(|source| TuiError::File {
        path: path.to_path_buf(),
        source,
    })
}

/// The command that opens `path` in the person's editor: `$VISUAL`, else `$EDITOR`, else
/// `vi`, run by `sh` so an editor given with arguments (`code --wait`) works as in git.
pub fn editor_command(path: &Path, editor: Option<String>) -> tokio::process::Command {
    let editor = editor
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "vi".to_owned());
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("kigi-editor")
        .arg(path)
        .kill_on_drop(true);
    command
}

/// `$VISUAL` or `$EDITOR`.
pub fn editor_from_env() -> Option<String> {
    std::env::var("VISUAL")
        .ok()
        .filter(|e| !e.trim().is_empty())
        .or_else(|| std::env::var("EDITOR").ok())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_toggle_is_written_into_the_config_and_a_form_it_cannot_edit_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("home/config.toml");
        persist_toggle(&config, "explore", false).unwrap();
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            "[subagents.toggle]\nexplore = false\n"
        );
        let inline = "[subagents]\ntoggle = { plan = false }\n";
        std::fs::write(&config, inline).unwrap();
        let error = persist_toggle(&config, "explore", false).unwrap_err();
        assert!(error.to_string().contains("config.toml"), "{error}");
        assert_eq!(std::fs::read_to_string(&config).unwrap(), inline);
    }

    #[test]
    fn a_new_agent_is_never_written_over_an_existing_file_and_can_be_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let path = create_agent(dir.path(), "checker").unwrap();
        assert!(path.ends_with(".kigi/agents/checker.md"));
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .contains("name: checker")
        );
        assert!(create_agent(dir.path(), "checker").is_err());
        assert!(create_agent(dir.path(), "no/slashes").is_err());
        delete_definition(&path).unwrap();
        assert!(!path.exists());
        assert!(delete_definition(&path).is_err());
    }

    #[test]
    fn a_persona_switch_goes_in_its_own_table_and_a_form_it_cannot_edit_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("home/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(&config, "[subagents.toggle]\nplan = false\n").unwrap();
        persist_switch(&config, Switched::Persona, "concise", false).unwrap();
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            "[subagents.toggle]\nplan = false\n\n[subagents.persona_toggle]\nconcise = false\n"
        );
        let inline = "[subagents]\npersona_toggle = { concise = false }\n";
        std::fs::write(&config, inline).unwrap();
        let error = persist_switch(&config, Switched::Persona, "reviewer", false).unwrap_err();
        assert!(
            error.to_string().contains("[subagents.persona_toggle]"),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&config).unwrap(), inline);
    }

    #[test]
    fn a_new_persona_is_written_in_the_users_personas_folder_and_can_be_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let paths = KigiPaths::new(dir.path().join("home"), None);
        let path = create_persona(&paths, "terse").unwrap();
        assert_eq!(path, dir.path().join("home/personas/terse.toml"));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            kigi_agent::starter_persona("terse")
        );
        // Discovery finds it as the user's persona, with the starter's instructions.
        let set = kigi_agent::PersonaSet::discover(
            &kigi_agent::SubagentsConfig::default(),
            &paths,
            dir.path(),
        );
        assert_eq!(
            set.source("terse"),
            Some(&kigi_agent::OverlaySource::User { path: path.clone() })
        );
        assert!(set.instructions("terse").is_ok());
        std::fs::write(&path, "instructions = \"mine\"\n").unwrap();
        assert!(
            create_persona(&paths, "terse").is_err(),
            "never over a file"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "instructions = \"mine\"\n"
        );
        assert!(create_persona(&paths, "../out").is_err());
        delete_definition(&path).unwrap();
        assert!(!path.exists());
    }

    #[tokio::test]
    async fn the_editor_gets_the_file_as_its_last_argument() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a b.md");
        std::fs::write(&file, "x\n").unwrap();
        let status = editor_command(&file, Some("printf 'edited\\n' >>".into()))
            .status()
            .await
            .unwrap();
        assert!(status.success());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "x\nedited\n");
    }
}
