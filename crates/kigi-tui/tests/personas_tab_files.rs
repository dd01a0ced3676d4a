//! The agents modal's Personas tab over real files: the catalog read by discovery from a
//! temporary `$KIGI_HOME` and project, the modal's actions carried out by the same functions
//! the event loop calls, and the result read back by discovery (which is what a spawn reads).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent};
use kigi_agent::{Discovery, KigiPaths, LoadedConfig, PermissionMode, PersonaSet};
use kigi_tui::agent_catalog::{AgentCatalog, load_catalog};
use kigi_tui::agents_modal::AgentsTab;
use kigi_tui::app::{Action, App};
use kigi_tui::input_history::InputHistory;
use kigi_tui::theme::{Theme, ThemeName};

struct Home {
    _tmp: tempfile::TempDir,
    paths: KigiPaths,
    repo: PathBuf,
}

impl Home {
    fn new(config: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let paths = KigiPaths::new(tmp.path().join("home"), None);
        std::fs::create_dir_all(&paths.kigi_home).unwrap();
        std::fs::write(paths.config_file(), config).unwrap();
        Self {
            _tmp: tmp,
            paths,
            repo,
        }
    }

    /// Discovery as a kigi started now sees it (the configuration read again).
    fn discovery(&self) -> Discovery {
        let loaded = LoadedConfig::load(&self.paths.config_file(), &|_| None).unwrap();
        Discovery::with_config(self.paths.clone(), &loaded.config).unwrap()
    }

    fn catalog(&self) -> AgentCatalog {
        load_catalog(&self.discovery(), &self.repo)
    }

    fn personas(&self) -> PersonaSet {
        let discovery = self.discovery();
        PersonaSet::discover(&discovery.subagents, &discovery.paths, &self.repo)
    }
}

fn app() -> App {
    App::new(
        Theme::new(ThemeName::Night, true),
        InputHistory::default(),
        PermissionMode::Default,
        "/repo".into(),
    )
}

fn key(app: &mut App, code: KeyCode) -> Vec<Action> {
    app.on_key(KeyEvent::from(code))
}

/// Moves the modal's selection to the persona `name`.
fn select(app: &mut App, name: &str) {
    app.agents.as_mut().unwrap().select(name);
    let modal = app.agents.as_ref().unwrap();
    assert_eq!(modal.catalog.personas[modal.selected].name, name);
}

fn notice(app: &App) -> String {
    app.agents
        .as_ref()
        .unwrap()
        .notice
        .clone()
        .unwrap_or_default()
}

#[test]
fn bundled_personas_are_listed_read_only_and_refuse_edit_and_delete() {
    let home = Home::new("");
    let catalog = home.catalog();
    let names: Vec<&str> = catalog.personas.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["concise", "researcher", "reviewer"]);
    let concise = &catalog.personas[0];
    assert_eq!(
        (concise.scope.as_str(), concise.source.as_str()),
        ("bundled", "bundled with kigi")
    );
    assert_eq!((concise.file.as_ref(), concise.enabled), (None, Some(true)));
    assert!(concise.detail.contains("Be concise."), "{}", concise.detail);
    let mut app = app();
    app.open_agents(catalog, AgentsTab::Personas);
    select(&mut app, "reviewer");
    assert!(key(&mut app, KeyCode::Char('e')).is_empty());
    assert_eq!(
        notice(&app),
        "reviewer is bundled with kigi: read-only (a persona of yours named reviewer shadows it)"
    );
    assert!(key(&mut app, KeyCode::Char('d')).is_empty());
    assert_eq!(app.agents.as_ref().unwrap().confirm_delete, None);
    assert!(
        key(&mut app, KeyCode::Char('y')).is_empty(),
        "nothing to confirm"
    );
}

#[test]
fn a_persona_created_lands_in_the_users_folder_is_listed_and_is_deleted_after_a_yes() {
    let home = Home::new("");
    let mut app = app();
    app.open_agents(home.catalog(), AgentsTab::Personas);
    key(&mut app, KeyCode::Char('n'));
    for ch in "terse".chars() {
        key(&mut app, KeyCode::Char(ch));
    }
    let actions = key(&mut app, KeyCode::Enter);
    assert_eq!(actions, [Action::CreatePersona("terse".into())]);
    // What the loop does for it (before it opens the editor).
    let path = kigi_tui::agent_files::create_persona(&home.paths, "terse").unwrap();
    assert_eq!(path, home.paths.kigi_home.join("personas/terse.toml"));
    let catalog = home.catalog();
    let terse = catalog.personas.iter().find(|p| p.name == "terse").unwrap();
    assert_eq!(terse.scope, "user");
    assert_eq!(terse.file.as_deref(), Some(path.as_path()));
    assert!(home.personas().instructions("terse").is_ok());
    // Opened again, `e` edits that file, `d` asks, and a yes deletes it.
    app.open_agents(catalog, AgentsTab::Personas);
    select(&mut app, "terse");
    assert_eq!(
        key(&mut app, KeyCode::Char('e')),
        [Action::EditDefinition(path.clone())]
    );
    assert!(key(&mut app, KeyCode::Char('d')).is_empty());
    let Some(Action::DeleteDefinition(doomed)) = key(&mut app, KeyCode::Char('y')).pop() else {
        panic!("no delete after the yes");
    };
    kigi_tui::agent_files::delete_definition(&doomed).unwrap();
    assert!(!path.exists());
    assert!(home.catalog().personas.iter().all(|p| p.name != "terse"));
}

#[test]
fn a_persona_switched_off_is_written_to_the_config_and_a_spawn_read_from_it_refuses_it() {
    let home = Home::new("# mine\n");
    let mut app = app();
    app.open_agents(home.catalog(), AgentsTab::Personas);
    select(&mut app, "concise");
    let actions = key(&mut app, KeyCode::Char(' '));
    let [
        Action::TogglePersona {
            persona,
            enabled: false,
        },
    ] = actions.as_slice()
    else {
        panic!("not a switch off: {actions:?}");
    };
    let mut sent = Vec::new();
    kigi_tui::persona_toggles::switch_persona(
        &mut app,
        &home.paths.config_file(),
        persona,
        false,
        |command| {
            sent.push(command);
            Ok::<(), String>(())
        },
    );
    assert_eq!(
        sent,
        [kigi_protocol::HostCommand::SetPersonaEnabled {
            persona: "concise".into(),
            enabled: false
        }]
    );
    assert_eq!(
        std::fs::read_to_string(home.paths.config_file()).unwrap(),
        "# mine\n\n[subagents.persona_toggle]\nconcise = false\n"
    );
    assert!(
        notice(&app).starts_with("persona concise off from the next spawn (saved in "),
        "{}",
        notice(&app)
    );
    // What a kigi started now reads: listed off, and refused for a spawn.
    let listed = home.catalog();
    assert_eq!(listed.personas[0].enabled, Some(false));
    assert_eq!(
        home.personas().instructions("concise").unwrap_err(),
        "persona `concise` is switched off ([subagents.persona_toggle] in config.toml)"
    );
    // And on again.
    select(&mut app, "concise");
    assert_eq!(
        key(&mut app, KeyCode::Char(' ')),
        [Action::TogglePersona {
            persona: "concise".into(),
            enabled: true,
        }]
    );
    kigi_tui::persona_toggles::switch_persona(
        &mut app,
        &home.paths.config_file(),
        "concise",
        true,
        |_| Ok::<(), String>(()),
    );
    assert!(home.personas().instructions("concise").is_ok());
    assert_eq!(home.catalog().personas[0].enabled, Some(true));
    assert_path_unchanged(&home.repo);
}

/// The project folder was not written to (a persona switch is the user's configuration).
fn assert_path_unchanged(repo: &Path) {
    let entries: Vec<String> = std::fs::read_dir(repo)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries, [".git"]);
}
