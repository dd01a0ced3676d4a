//! The terminal's state and what host events and pastes do to it: a pure state machine that
//! returns [`Action`]s (commands for the host, a reopen, quit) for the event loop to carry out
//! (what keys do is `prompt_keys`', and each modal's own file's).
//!
//! The rule: nothing here does I/O or holds session logic; every effect on the session is a
//! [`kigi_protocol::HostCommand`] the loop submits, so what the terminal does, an editor or
//! a script could do too.

use std::collections::VecDeque;
use std::time::Instant;

use kigi_agent::PermissionMode;
use kigi_protocol::{HostCommand, HostEvent, HostEventBody, HostNotice, SessionEvent};

use crate::agent_catalog::AgentCatalog;
use crate::agents_modal::{AgentsModal, AgentsTab};
use crate::approval::PendingApproval;
use crate::composer::Composer;
use crate::framed_view::Framed;
use crate::history_cell::HistoryCell;
use crate::history_search::HistorySearch;
use crate::input_history::InputHistory;
use crate::palette::Palette;
use crate::session_picker::Picker;
use crate::tasks_pane::TasksPane;
use crate::theme::Theme;
use crate::transcript::Transcript;

/// What the event loop does for the state machine.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Submit this to the session.
    Command(HostCommand),
    /// Send a user turn with the files its `@` mentions name attached (the loop asks the
    /// file system which mentions are files: [`crate::attachments::attached_files`]).
    Turn {
        text: String,
        mentions: Vec<String>,
    },
    /// Close this session and open another.
    Reopen(Reopen),
    /// List this folder's sessions for the `/resume` picker.
    ListSessions,
    /// List this folder's files for `@` mentions ([`App::files`]).
    ListFiles,
    /// Read the agent definitions and personas and open the agents modal on this tab.
    OpenAgents(AgentsTab),
    /// Cancel this child (the tasks pane's `k`, confirmed).
    KillSubagent(String),
    /// Switch a subagent type on or off: sent to the host (`SetSubagentEnabled`) so the next
    /// request's spawn tools follow it, and once the host took it, recorded and persisted in
    /// `[subagents.toggle]` ([`crate::subagent_toggles::switch_subagent`]).
    ToggleSubagent {
        agent_type: String,
        enabled: bool,
    },
    /// Switch a persona on or off: sent to the host (`SetPersonaEnabled`) so the next spawn
    /// follows it, and once the host took it, recorded and persisted in
    /// `[subagents.persona_toggle]` ([`crate::persona_toggles::switch_persona`]).
    TogglePersona {
        persona: String,
        enabled: bool,
    },
    /// Write the starter definition `.kigi/agents/<name>.md` and open it in `$EDITOR`.
    CreateAgent(String),
    /// Write the starter persona `$KIGI_HOME/personas/<name>.toml` and open it in `$EDITOR`.
    CreatePersona(String),
    /// Open this definition file in `$EDITOR` (the terminal suspended meanwhile).
    EditDefinition(std::path::PathBuf),
    /// Delete this definition file (confirmed).
    DeleteDefinition(std::path::PathBuf),
    Quit,
}

/// Which session to open instead of this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reopen {
    New,
    Resume(String),
}

/// Everything the terminal shows.
#[derive(Debug)]
pub struct App {
    pub transcript: Transcript,
    pub composer: Composer,
    pub history: InputHistory,
    pub approvals: VecDeque<PendingApproval>,
    pub approval_choice: usize,
    /// The deny reason being typed, when the person chose deny.
    pub deny_reason: Option<String>,
    /// Messages sent while the agent worked, shown until the model reads them.
    pub queued: Vec<String>,
    pub mode: PermissionMode,
    pub theme: Theme,
    /// A main turn is running (or queued).
    pub busy: bool,
    /// Ctrl+C was pressed once on an empty prompt.
    pub quit_armed: bool,
    /// The spinner's frame.
    pub frame: usize,
    pub slash_selected: usize,
    pub picker: Option<Picker>,
    pub session_id: String,
    pub cwd: String,
    /// The main model's context window, once known.
    pub context_window: Option<u64>,
    /// This folder's files, for `@` mentions, once listed.
    pub files: Option<Vec<String>>,
    pub mention_selected: usize,
    /// Ctrl+R: the query and the entry it found.
    pub history_search: Option<HistorySearch>,
    /// The clock the views measure elapsed times against (the loop sets it each wake).
    pub now: Instant,
    /// Ctrl+B: the tasks pane, open and focused.
    pub tasks: Option<TasksPane>,
    /// Ctrl+T: the todo pane is shown.
    pub todos_open: bool,
    /// A child's framed view is open.
    pub framed: Option<Framed>,
    /// `/agents`: the agents modal.
    pub agents: Option<AgentsModal>,
    /// Ctrl+P: the command palette.
    pub palette: Option<Palette>,
    /// Subagent types switched on or off in this terminal and taken by the host (the agents
    /// modal shows these over the configuration; each session opened is sent them again).
    pub type_toggles: std::collections::BTreeMap<String, bool>,
    /// Personas switched on or off in this terminal and written to `config.toml` (the modal
    /// shows these over the configuration the host read when it started).
    pub persona_toggles: std::collections::BTreeMap<String, bool>,
}

impl App {
    pub fn new(theme: Theme, history: InputHistory, mode: PermissionMode, cwd: String) -> Self {
        Self {
            transcript: Transcript::default(),
            composer: Composer::default(),
            history,
            approvals: VecDeque::new(),
            approval_choice: 0,
            deny_reason: None,
            queued: Vec::new(),
            mode,
            theme,
            busy: false,
            quit_armed: false,
            frame: 0,
            slash_selected: 0,
            picker: None,
            session_id: String::new(),
            cwd,
            context_window: None,
            files: None,
            mention_selected: 0,
            history_search: None,
            now: Instant::now(),
            tasks: None,
            todos_open: false,
            framed: None,
            agents: None,
            palette: None,
            type_toggles: std::collections::BTreeMap::new(),
            persona_toggles: std::collections::BTreeMap::new(),
        }
    }

    /// Opens the agents modal on `tab` with what was discovered.
    pub fn open_agents(&mut self, catalog: AgentCatalog, tab: AgentsTab) {
        self.palette = None;
        self.agents = Some(AgentsModal::new(self.with_toggles(catalog), tab));
    }

    /// Takes a host event.
    pub fn on_host_event(&mut self, event: &HostEvent) {
        self.on_host_event_at(event, Instant::now());
    }

    /// Takes a host event that arrived at `now`.
    pub fn on_host_event_at(&mut self, event: &HostEvent, now: Instant) {
        match &event.body {
            HostEventBody::Notice(HostNotice::ApprovalRequested {
                request_id,
                name,
                summary,
                ..
            }) => self.approvals.push_back(PendingApproval {
                request_id: request_id.clone(),
                agent_id: event.agent_id.clone(),
                name: name.clone(),
                summary: summary.clone(),
            }),
            HostEventBody::Notice(HostNotice::ApprovalResolved {
                request_id,
                decision,
            }) => {
                if let Some(at) = self
                    .approvals
                    .iter()
                    .position(|a| &a.request_id == request_id)
                {
                    let ask = self.approvals.remove(at);
                    if at == 0 {
                        self.reset_prompt();
                    }
                    if let Some(ask) = ask {
                        self.transcript.cells.push(HistoryCell::Info(format!(
                            "Approval for {} {decision:?} ({})",
                            ask.name, ask.agent_id
                        )));
                    }
                }
            }
            HostEventBody::Notice(HostNotice::ModelChanged {
                model,
                context_window,
            }) if event.is_main() => {
                // Unknown here means the loop looks the window up for the new model.
                self.context_window = *context_window;
                self.transcript.cells.push(HistoryCell::Info(format!(
                    "Model: {model} from the next turn"
                )));
            }
            HostEventBody::Session(SessionEvent::UserMessage { text }) if event.is_main() => {
                if let Some(at) = self.queued.iter().position(|q| q == text) {
                    self.queued.remove(at);
                }
            }
            HostEventBody::Session(SessionEvent::TurnEnd { .. }) if event.is_main() => {
                self.busy = false;
                self.approvals
                    .retain(|a| a.agent_id != kigi_protocol::MAIN_AGENT_ID);
            }
            _ => {}
        }
        self.transcript.apply_at(event, now);
    }

    pub(crate) fn reset_prompt(&mut self) {
        self.approval_choice = 0;
        self.deny_reason = None;
    }

    /// Takes a bracketed paste.
    pub fn on_paste(&mut self, text: &str) {
        let message = self.framed.as_mut().and_then(|f| f.message.as_mut());
        match (&mut self.deny_reason, message) {
            (Some(reason), _) => reason.push_str(&text.replace(['\r', '\n'], " ")),
            (None, Some(message)) => message.push_str(&text.replace(['\r', '\n'], " ")),
            (None, None) => self.composer.paste(text),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::theme::ThemeName;

    fn app() -> App {
        App::new(
            Theme::new(ThemeName::Night, true),
            InputHistory::default(),
            PermissionMode::Default,
            "/repo".into(),
        )
    }

    #[test]
    fn model_switches_through_the_host_even_while_busy_and_the_status_follows_it() {
        let mut app = app();
        app.busy = true;
        app.transcript.model = Some("first".into());
        app.context_window = Some(128_000);
        assert_eq!(
            app.slash(crate::slash::SlashCommand::Model(Some("second".into()))),
            [Action::Command(HostCommand::SetModel {
                model: "second".into()
            })]
        );
        app.on_host_event(&HostEvent::main(HostEventBody::Notice(
            HostNotice::ModelChanged {
                model: "second".into(),
                context_window: Some(32_000),
            },
        )));
        assert_eq!(app.transcript.model.as_deref(), Some("second"));
        assert_eq!(app.context_window, Some(32_000));
        assert_eq!(
            app.transcript.cells.last(),
            Some(&HistoryCell::Info(
                "Model: second from the next turn".into()
            ))
        );
        // A window the host does not know is looked up again by the loop.
        app.on_host_event(&HostEvent::main(HostEventBody::Notice(
            HostNotice::ModelChanged {
                model: "third".into(),
                context_window: None,
            },
        )));
        assert_eq!(app.context_window, None);
        assert!(app.busy, "a model switch does not end the turn");
    }
}
