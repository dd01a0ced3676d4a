//! Subagent types and personas switched on or off from the agents modal: the host is asked
//! first (`SetSubagentEnabled`, `SetPersonaEnabled`), and only when it took the switch do the
//! app's record, the modal's row and `config.toml` (`[subagents.toggle]`,
//! `[subagents.persona_toggle]`) follow it. A session the terminal (re)opens is sent every
//! switch again, since the host starts each session's coordinator from the configuration it
//! read when it started.
//!
//! The rule: nothing is recorded, shown as done or written for a switch the host refused.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::Path;

use kigi_protocol::HostCommand;

use crate::agent_catalog::AgentCatalog;
use crate::agent_files::{Switched, persist_switch};
use crate::app::App;
use crate::history_cell::HistoryCell;

impl App {
    /// `catalog` with this terminal's switches (of types and personas) over the configured
    /// ones.
    pub fn with_toggles(&self, mut catalog: AgentCatalog) -> AgentCatalog {
        for (entries, toggles) in [
            (&mut catalog.agents, &self.type_toggles),
            (&mut catalog.personas, &self.persona_toggles),
        ] {
            for entry in entries.iter_mut() {
                if let (Some(enabled), Some(toggled)) =
                    (&mut entry.enabled, toggles.get(&entry.name))
                {
                    *enabled = *toggled;
                }
            }
        }
        catalog
    }

    /// The host took the switch of `agent_type`: it is recorded, and the modal's rows of that
    /// type show it.
    pub fn subagent_switched(&mut self, agent_type: &str, enabled: bool) {
        self.switched(Switched::Type, agent_type, enabled);
    }

    /// The host took the switch of persona `persona`: it is recorded, and the modal's row
    /// shows it.
    pub fn persona_switched(&mut self, persona: &str, enabled: bool) {
        self.switched(Switched::Persona, persona, enabled);
    }

    fn switched(&mut self, what: Switched, name: &str, enabled: bool) {
        self.toggles_of(what).insert(name.to_owned(), enabled);
        if let Some(modal) = &mut self.agents {
            let rows = match what {
                Switched::Type => &mut modal.catalog.agents,
                Switched::Persona => &mut modal.catalog.personas,
            };
            for entry in rows {
                if entry.name == name && entry.enabled.is_some() {
                    entry.enabled = Some(enabled);
                }
            }
        }
    }

    fn toggles_of(&mut self, what: Switched) -> &mut BTreeMap<String, bool> {
        match what {
            Switched::Type => &mut self.type_toggles,
            Switched::Persona => &mut self.persona_toggles,
        }
    }

    /// Sends every switch made in this terminal (types, then personas) to the session just
    /// opened through `submit`; a switch the session refuses (its type or persona is gone) is
    /// forgotten, with a warning.
    pub fn resend_subagent_switches<E: Display>(
        &mut self,
        mut submit: impl FnMut(HostCommand) -> Result<(), E>,
    ) {
        for what in [Switched::Type, Switched::Persona] {
            let switches: Vec<(String, bool)> = self
                .toggles_of(what)
                .iter()
                .map(|(name, enabled)| (name.clone(), *enabled))
                .collect();
            for (name, enabled) in switches {
                if let Err(error) = submit(command(what, &name, enabled)) {
                    self.toggles_of(what).remove(&name);
                    self.transcript.cells.push(HistoryCell::Warning(format!(
                        "{} could not be switched {} in this session: {error}",
                        label(what, &name),
                        on_off(enabled)
                    )));
                }
            }
        }
    }
}

/// Carries out the modal's switch of `agent_type`: `submit`s `SetSubagentEnabled` to the
/// host and, only when the host took it, records it, updates the modal's row and persists it
/// in `config`. The modal's notice (the transcript when the modal is closed) says what
/// happened.
pub fn switch_subagent<E: Display>(
    app: &mut App,
    config: &Path,
    agent_type: &str,
    enabled: bool,
    submit: impl FnOnce(HostCommand) -> Result<(), E>,
) {
    switch(app, config, Switched::Type, agent_type, enabled, submit);
}

/// Carries out the modal's switch of persona `persona`, as [`switch_subagent`] does a type's
/// (`SetPersonaEnabled`, `[subagents.persona_toggle]`).
pub fn switch_persona<E: Display>(
    app: &mut App,
    config: &Path,
    persona: &str,
    enabled: bool,
    submit: impl FnOnce(HostCommand) -> Result<(), E>,
) {
    switch(app, config, Switched::Persona, persona, enabled, submit);
}

fn switch<E: Display>(
    app: &mut App,
    config: &Path,
    what: Switched,
    name: &str,
    enabled: bool,
    submit: impl FnOnce(HostCommand) -> Result<(), E>,
) {
    let state = on_off(enabled);
    let label = label(what, name);
    let notice = match submit(command(what, name, enabled)) {
        Ok(()) => {
            app.switched(what, name, enabled);
            let from = match what {
                Switched::Type => "the next turn",
                Switched::Persona => "the next spawn",
            };
            match persist_switch(config, what, name, enabled) {
                Ok(()) => format!(
                    "{label} {state} from {from} (saved in {})",
                    config.display()
                ),
                Err(error) => format!("{label} {state} for this session; {error}"),
            }
        }
        Err(error) => format!("{label} was not switched {state}: {error}"),
    };
    match &mut app.agents {
        Some(modal) => modal.notice = Some(notice),
        None => app.transcript.cells.push(HistoryCell::Info(notice)),
    }
}

/// The host command for a switch.
fn command(what: Switched, name: &str, enabled: bool) -> HostCommand {
    match what {
        Switched::Type => HostCommand::SetSubagentEnabled {
            agent_type: name.to_owned(),
            enabled,
        },
        Switched::Persona => HostCommand::SetPersonaEnabled {
            persona: name.to_owned(),
            enabled,
        },
    }
}

/// How a notice names what was switched: `explore`, `persona concise`.
fn label(what: Switched, name: &str) -> String {
    match what {
        Switched::Type => name.to_owned(),
        Switched::Persona => format!("persona {name}"),
    }
}

fn on_off(enabled: bool) -> &'static str {
    if enabled { "on" } else { "off" }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::agent_catalog::CatalogEntry;
    use crate::agents_modal::AgentsTab;
    use crate::input_history::InputHistory;
    use crate::theme::{Theme, ThemeName};
    use kigi_agent::PermissionMode;

    fn app_with_modal() -> App {
        let mut app = App::new(
            Theme::new(ThemeName::Night, true),
            InputHistory::default(),
            PermissionMode::Default,
            "/repo".into(),
        );
        let explore = CatalogEntry {
            name: "explore".into(),
            scope: "built-in".into(),
            source: "built-in".into(),
            description: "explore: reads code".into(),
            note: String::new(),
            detail: String::new(),
            enabled: Some(true),
            file: None,
        };
        let catalog = AgentCatalog {
            agents: vec![explore],
            ..AgentCatalog::default()
        };
        app.open_agents(catalog, AgentsTab::Agents);
        app
    }

    fn row(app: &App) -> Option<bool> {
        app.agents.as_ref().unwrap().catalog.agents[0].enabled
    }

    #[test]
    fn a_switch_the_host_refuses_changes_nothing_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        let mut app = app_with_modal();
        let mut sent = Vec::new();
        switch_subagent(&mut app, &config, "explore", false, |command| {
            sent.push(command);
            Err("the session is closed")
        });
        assert_eq!(
            sent,
            [HostCommand::SetSubagentEnabled {
                agent_type: "explore".into(),
                enabled: false,
            }]
        );
        assert_eq!(row(&app), Some(true));
        assert!(app.type_toggles.is_empty());
        assert!(!config.exists());
        assert_eq!(
            app.agents.as_ref().unwrap().notice.as_deref(),
            Some("explore was not switched off: the session is closed")
        );
    }

    #[test]
    fn a_switch_the_host_took_is_recorded_shown_and_saved() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        let mut app = app_with_modal();
        switch_subagent(&mut app, &config, "explore", false, |_| {
            Ok::<(), std::convert::Infallible>(())
        });
        assert_eq!(row(&app), Some(false));
        assert_eq!(
            app.type_toggles,
            [("explore".to_owned(), false)].into_iter().collect()
        );
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            "[subagents.toggle]\nexplore = false\n"
        );
        assert_eq!(
            app.agents.as_ref().unwrap().notice,
            Some(format!(
                "explore off from the next turn (saved in {})",
                config.display()
            ))
        );
    }

    #[test]
    fn a_session_opened_again_is_sent_every_switch_and_forgets_one_it_refuses() {
        let mut app = app_with_modal();
        app.subagent_switched("explore", false);
        app.subagent_switched("plan", true);
        let mut sent = Vec::new();
        app.resend_subagent_switches(|command| {
            let refused = matches!(
                &command,
                HostCommand::SetSubagentEnabled { agent_type, .. } if agent_type == "plan"
            );
            sent.push(command);
            if refused {
                Err("unknown type plan")
            } else {
                Ok(())
            }
        });
        assert_eq!(
            sent,
            [
                HostCommand::SetSubagentEnabled {
                    agent_type: "explore".into(),
                    enabled: false,
                },
                HostCommand::SetSubagentEnabled {
                    agent_type: "plan".into(),
                    enabled: true,
                },
            ]
        );
        assert_eq!(
            app.type_toggles,
            [("explore".to_owned(), false)].into_iter().collect()
        );
        assert_eq!(
            app.transcript.cells,
            [HistoryCell::Warning(
                "plan could not be switched on in this session: unknown type plan".into()
            )]
        );
    }
}
