//! The agents modal's actions that touch files or hand the terminal to an editor: a new agent
//! or persona written and opened in `$EDITOR`, a definition edited or deleted; each followed
//! by the list read again, with a notice of what happened.
//!
//! The rule: this is I/O the modal asked for through an [`Action`], and nothing else; a file
//! error is a notice in the modal (the session goes on), only the terminal failing is an
//! error. Switches are not here: they go to the host first
//! ([`crate::subagent_toggles::switch_subagent`], [`crate::persona_toggles::switch_persona`]).

use std::io::Write;
use std::path::Path;

use crossterm::event::EventStream;
use kigi_core::host::SessionHost;

use crate::agent_catalog::AgentCatalog;
use crate::agents_modal::{AgentsModal, AgentsTab};
use crate::app::{Action, App};
use crate::error::TuiError;
use crate::inline_terminal::InlineTerminal;

/// Where the modal's files are: the host's paths (config, `$KIGI_HOME`) and the folder.
pub(crate) struct AgentFiles<'a> {
    pub host: &'a SessionHost,
    pub cwd: &'a Path,
}

impl AgentFiles<'_> {
    /// Carries out one of the modal's file actions (others are ignored here).
    pub(crate) async fn carry_out<W: Write>(
        &self,
        action: Action,
        app: &mut App,
        terminal: &mut InlineTerminal<W>,
        keys: &mut Option<EventStream>,
    ) -> Result<(), TuiError> {
        let paths = &self.host.discovery().paths;
        match action {
            Action::CreateAgent(name) => {
                let created = crate::agent_files::create_agent(self.cwd, &name);
                let notice = self.created(created, terminal, keys).await?;
                self.reload(app, notice, Some(&name));
            }
            Action::CreatePersona(name) => {
                let created = crate::agent_files::create_persona(paths, &name);
                let notice = self.created(created, terminal, keys).await?;
                self.reload(app, notice, Some(&name));
            }
            Action::EditDefinition(path) => {
                let edited = edit_file(terminal, keys, &path).await?;
                let notice = format!("edited {}{edited}", path.display());
                self.reload(app, notice, None);
            }
            Action::DeleteDefinition(path) => {
                let notice = match crate::agent_files::delete_definition(&path) {
                    Ok(()) => format!("deleted {}", path.display()),
                    Err(error) => error.to_string(),
                };
                self.reload(app, notice, None);
            }
            _ => {}
        }
        Ok(())
    }

    /// A new file written (it opens in the editor), or why not: the notice.
    async fn created<W: Write>(
        &self,
        created: Result<std::path::PathBuf, TuiError>,
        terminal: &mut InlineTerminal<W>,
        keys: &mut Option<EventStream>,
    ) -> Result<String, TuiError> {
        Ok(match created {
            Ok(path) => {
                let edited = edit_file(terminal, keys, &path).await?;
                format!("created {}{edited}", path.display())
            }
            Err(error) => error.to_string(),
        })
    }

    /// Reads the agents and personas again after a file changed and shows `notice` in the
    /// modal (opening it on the Agents tab when it was closed), with `select` selected when
    /// given.
    fn reload(&self, app: &mut App, notice: String, select: Option<&str>) {
        let catalog = app.with_toggles(crate::agent_catalog::load_catalog(
            self.host.discovery(),
            self.cwd,
        ));
        let modal = app
            .agents
            .get_or_insert_with(|| AgentsModal::new(AgentCatalog::default(), AgentsTab::Agents));
        modal.reload(catalog);
        if let Some(name) = select {
            modal.select(name);
        }
        modal.notice = Some(notice);
    }
}

/// Opens `path` in the person's editor with the terminal handed over: kigi stops reading
/// keys, leaves raw mode and its key and paste modes, waits for the editor (a person's edit
/// has no time limit), then takes the terminal back and prints the conversation again.
/// Returns what to add to the modal's notice when the editor failed.
async fn edit_file<W: Write>(
    terminal: &mut InlineTerminal<W>,
    keys: &mut Option<EventStream>,
    path: &Path,
) -> Result<String, TuiError> {
    *keys = None;
    terminal.finish()?;
    crate::event_loop::give_terminal();
    let editor = crate::agent_files::editor_from_env();
    let status = crate::agent_files::editor_command(path, editor)
        .status()
        .await;
    crate::event_loop::take_terminal()?;
    terminal.reprint();
    *keys = Some(EventStream::new());
    Ok(match status {
        Ok(status) if status.success() => String::new(),
        Ok(status) => format!(" (the editor ended with {status})"),
        Err(error) => format!(" (the editor did not start: {error}; set $EDITOR)"),
    })
}
