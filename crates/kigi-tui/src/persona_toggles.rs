//! Personas switched on or off from the agents modal's Personas tab: the switch goes to the
//! host (`SetPersonaEnabled`, so the open session's next spawn follows it) and is written to
//! `config.toml`'s `[subagents.persona_toggle]` (so the next kigi started does too); only
//! once the host took it do the app's record and the modal's row follow it. The same path
//! as a type's switch ([`crate::subagent_toggles`]).

pub use crate::subagent_toggles::switch_persona;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::agent_catalog::{AgentCatalog, CatalogEntry};
    use crate::agents_modal::AgentsTab;
    use crate::app::App;
    use crate::input_history::InputHistory;
    use crate::theme::{Theme, ThemeName};
    use kigi_agent::PermissionMode;
    use kigi_protocol::HostCommand;

    fn app_with_personas() -> App {
        let mut app = App::new(
            Theme::new(ThemeName::Night, true),
            InputHistory::default(),
            PermissionMode::Default,
            "/repo".into(),
        );
        let concise = CatalogEntry {
            name: "concise".into(),
            scope: "bundled".into(),
            source: "bundled with kigi".into(),
            description: "Short, plain answers.".into(),
            note: String::new(),
            detail: String::new(),
            enabled: Some(true),
            file: None,
        };
        let catalog = AgentCatalog {
            personas: vec![concise],
            ..AgentCatalog::default()
        };
        app.open_agents(catalog, AgentsTab::Personas);
        app
    }

    fn row(app: &App) -> Option<bool> {
        app.agents.as_ref().unwrap().catalog.personas[0].enabled
    }

    #[test]
    fn a_persona_switch_goes_to_the_host_then_is_written_shown_and_kept_when_the_modal_opens_again()
    {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        let mut app = app_with_personas();
        let mut sent = Vec::new();
        switch_persona(&mut app, &config, "concise", false, |command| {
            sent.push(command);
            Ok::<(), String>(())
        });
        assert_eq!(
            sent,
            [HostCommand::SetPersonaEnabled {
                persona: "concise".into(),
                enabled: false
            }]
        );
        assert_eq!(row(&app), Some(false));
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            "[subagents.persona_toggle]\nconcise = false\n"
        );
        assert_eq!(
            app.agents.as_ref().unwrap().notice,
            Some(format!(
                "persona concise off from the next spawn (saved in {})",
                config.display()
            ))
        );
        // The host's configuration still says on; the modal opened again shows the switch.
        let catalog = app.agents.take().unwrap().catalog;
        let mut stale = catalog.clone();
        stale.personas[0].enabled = Some(true);
        app.open_agents(stale, AgentsTab::Personas);
        assert_eq!(row(&app), Some(false));
    }

    #[test]
    fn a_persona_switch_the_host_refuses_changes_nothing_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        let mut app = app_with_personas();
        switch_persona(&mut app, &config, "concise", false, |_| {
            Err("persona `concise` not found")
        });
        assert_eq!(row(&app), Some(true));
        assert!(app.persona_toggles.is_empty());
        assert!(!config.exists());
        let notice = app.agents.as_ref().unwrap().notice.clone().unwrap();
        assert_eq!(
            notice,
            "persona concise was not switched off: persona `concise` not found"
        );
    }

    #[test]
    fn a_persona_switch_the_file_cannot_hold_counts_for_the_session_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        let inline = "[subagents]\npersona_toggle = { reviewer = false }\n";
        std::fs::write(&config, inline).unwrap();
        let mut app = app_with_personas();
        switch_persona(
            &mut app,
            &config,
            "concise",
            false,
            |_| Ok::<(), String>(()),
        );
        assert_eq!(row(&app), Some(false));
        assert_eq!(app.persona_toggles.get("concise"), Some(&false));
        assert_eq!(std::fs::read_to_string(&config).unwrap(), inline);
        let notice = app.agents.as_ref().unwrap().notice.clone().unwrap();
        assert!(
            notice.starts_with("persona concise off for this session; cannot switch `concise`"),
            "{notice}"
        );
    }
}
