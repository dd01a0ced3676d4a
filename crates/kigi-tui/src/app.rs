//! The terminal's state and what keys and host events do to it: a pure state machine that
//! returns [`Action`]s (commands for the host, a reopen, quit) for the event loop to carry out.
//!
//! The rule: nothing here does I/O or holds session logic; every effect on the session is a
//! [`kigi_protocol::HostCommand`] the loop submits, so what the terminal does, an editor or
//! a script could do too.

use std::collections::VecDeque;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use kigi_agent::PermissionMode;
use kigi_protocol::{HostCommand, HostEvent, HostEventBody, HostNotice, SessionEvent};

use crate::agent_catalog::AgentCatalog;
use crate::agents_modal::{AgentsModal, AgentsTab};
use crate::approval::PendingApproval;
use crate::composer::Composer;
use crate::framed_view::Framed;
use crate::history_search::HistorySearch;
use crate::input_history::InputHistory;
use crate::palette::Palette;
use crate::session_picker::Picker;
use crate::slash;
use crate::tasks_pane::TasksPane;
use crate::theme::Theme;
use crate::transcript::{HistoryCell, Transcript};

/// Shift+Tab cycles these.
const MODE_CYCLE: [PermissionMode; 3] = [
    PermissionMode::Default,
    PermissionMode::AcceptEdits,
    PermissionMode::Plan,
];

/// What the event loop does for the state machine.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Submit this to the session.
    Command(HostCommand),
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
    Quit,
}

/// Which session to open instead of this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reopen {
    New,
    Resume(String),
    /// This session again, on another model.
    Model(String),
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
        }
    }

    /// Opens the agents modal on `tab` with what was discovered.
    pub fn open_agents(&mut self, catalog: AgentCatalog, tab: AgentsTab) {
        self.palette = None;
        self.agents = Some(AgentsModal::new(catalog, tab));
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
        match &mut self.deny_reason {
            Some(reason) => reason.push_str(&text.replace(['\r', '\n'], " ")),
            None => self.composer.paste(text),
        }
    }

    /// Takes a key press.
    pub fn on_key(&mut self, key: KeyEvent) -> Vec<Action> {
        if key.kind != KeyEventKind::Press {
            return Vec::new();
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if !(ctrl && key.code == KeyCode::Char('c')) {
            self.quit_armed = false;
        }
        if self.picker.is_some() {
            return self.picker_key(key);
        }
        if !(self.approvals.is_empty() || ctrl && key.code == KeyCode::Char('c')) {
            return self.approval_key(key);
        }
        if self.agents.is_some() {
            return self.agents_key(key);
        }
        if self.palette.is_some() {
            return self.palette_key(key);
        }
        if self.history_search.is_some() {
            self.search_key(key);
            return Vec::new();
        }
        let ctrl_c = ctrl && key.code == KeyCode::Char('c');
        if self.framed.is_some() && !ctrl_c {
            return self.framed_key(key);
        }
        if self.tasks.is_some() && !ctrl_c {
            return self.tasks_key(key);
        }
        match key.code {
            KeyCode::Char('b') if ctrl => {
                self.toggle_tasks();
                Vec::new()
            }
            KeyCode::Char('t') if ctrl => {
                self.todos_open = !self.todos_open;
                Vec::new()
            }
            KeyCode::Char('p') if ctrl => {
                self.palette = Some(Palette::default());
                Vec::new()
            }
            KeyCode::Char('f') if ctrl => {
                if !self.open_newest_child(false) {
                    self.transcript
                        .cells
                        .push(HistoryCell::Info("No subagent to open yet".into()));
                }
                Vec::new()
            }
            KeyCode::Enter if self.composer.is_empty() && self.open_newest_child(true) => {
                Vec::new()
            }
            KeyCode::Char('r') if ctrl => {
                self.history_search = Some(HistorySearch::default());
                Vec::new()
            }
            KeyCode::Char('c') if ctrl => self.ctrl_c(),
            KeyCode::Char('d') if ctrl => {
                if self.composer.is_empty() {
                    vec![Action::Quit]
                } else {
                    self.composer.delete();
                    Vec::new()
                }
            }
            KeyCode::Char('j') if ctrl => {
                self.composer.insert_char('\n');
                Vec::new()
            }
            KeyCode::Char('a') if ctrl => {
                self.composer.home();
                Vec::new()
            }
            KeyCode::Char('e') if ctrl => {
                self.composer.end();
                Vec::new()
            }
            KeyCode::Char('u') if ctrl => {
                self.composer.delete_to_line_start();
                Vec::new()
            }
            KeyCode::Char('w') if ctrl => {
                self.composer.delete_word();
                Vec::new()
            }
            KeyCode::Char(ch) if !ctrl => {
                self.composer.insert_char(ch);
                self.slash_selected = 0;
                self.mention_selected = 0;
                if self.files.is_none() && self.composer.mention().is_some() {
                    self.files = Some(Vec::new());
                    return vec![Action::ListFiles];
                }
                Vec::new()
            }
            KeyCode::Enter
                if key
                    .modifiers
                    .intersects(KeyModifiers::SHIFT | KeyModifiers::ALT) =>
            {
                self.composer.insert_char('\n');
                Vec::new()
            }
            KeyCode::Enter | KeyCode::Tab if !self.mention_matches().is_empty() => {
                self.complete_mention();
                Vec::new()
            }
            KeyCode::Enter => self.enter(),
            KeyCode::Tab => {
                self.complete_slash();
                Vec::new()
            }
            KeyCode::BackTab => self.cycle_mode(),
            KeyCode::Esc => {
                if self.busy {
                    vec![Action::Command(HostCommand::Interrupt)]
                } else {
                    Vec::new()
                }
            }
            KeyCode::Backspace => {
                self.composer.backspace();
                Vec::new()
            }
            KeyCode::Delete => {
                self.composer.delete();
                Vec::new()
            }
            KeyCode::Left => {
                self.composer.left();
                Vec::new()
            }
            KeyCode::Right => {
                self.composer.right();
                Vec::new()
            }
            KeyCode::Home => {
                self.composer.home();
                Vec::new()
            }
            KeyCode::End => {
                self.composer.end();
                Vec::new()
            }
            KeyCode::Up => {
                self.up_down(true);
                Vec::new()
            }
            KeyCode::Down => {
                self.up_down(false);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn ctrl_c(&mut self) -> Vec<Action> {
        if self.busy {
            return vec![Action::Command(HostCommand::Interrupt)];
        }
        if !self.composer.is_empty() {
            self.composer.take();
            return Vec::new();
        }
        if self.quit_armed {
            return vec![Action::Quit];
        }
        self.quit_armed = true;
        Vec::new()
    }

    /// The files the `@` mention at the cursor may mean.
    pub fn mention_matches(&self) -> Vec<&str> {
        match (self.composer.mention(), &self.files) {
            (Some((_, query)), Some(files)) => crate::file_mention::matches(files, query),
            _ => Vec::new(),
        }
    }

    fn complete_mention(&mut self) {
        let matches = self.mention_matches();
        let Some(path) = matches
            .get(self.mention_selected.min(matches.len().saturating_sub(1)))
            .map(|p| (*p).to_owned())
        else {
            return;
        };
        if let Some((start, _)) = self.composer.mention() {
            self.composer.complete_mention(start, &path);
        }
        self.mention_selected = 0;
    }

    fn up_down(&mut self, up: bool) {
        let mentions = self.mention_matches().len();
        if mentions > 0 {
            self.mention_selected = if up {
                (self.mention_selected + mentions - 1) % mentions
            } else {
                (self.mention_selected + 1) % mentions
            };
            return;
        }
        let completions = slash::completions(self.composer.text());
        if !completions.is_empty() {
            let n = completions.len();
            self.slash_selected = if up {
                (self.slash_selected + n - 1) % n
            } else {
                (self.slash_selected + 1) % n
            };
            return;
        }
        if up && !self.composer.on_first_line() {
            self.composer.vertical(true);
        } else if !up && !self.composer.on_last_line() {
            self.composer.vertical(false);
        } else if up {
            if let Some(entry) = self.history.older(self.composer.text()) {
                self.composer.set_text(&entry);
            }
        } else if let Some(entry) = self.history.newer() {
            self.composer.set_text(&entry);
        }
    }

    fn complete_slash(&mut self) -> bool {
        let completions = slash::completions(self.composer.text());
        match completions.get(self.slash_selected.min(completions.len().saturating_sub(1))) {
            Some((name, _)) if *name != self.composer.text() => {
                self.composer.set_text(name);
                true
            }
            _ => false,
        }
    }

    fn cycle_mode(&mut self) -> Vec<Action> {
        let at = MODE_CYCLE.iter().position(|m| *m == self.mode);
        let next = MODE_CYCLE[at.map_or(0, |i| (i + 1) % MODE_CYCLE.len())];
        self.set_mode(next)
    }

    pub(crate) fn set_mode(&mut self, mode: PermissionMode) -> Vec<Action> {
        self.mode = mode;
        vec![Action::Command(HostCommand::SetPermissionMode {
            mode: mode.spelling().to_owned(),
        })]
    }

    fn enter(&mut self) -> Vec<Action> {
        // Enter on a partly typed command runs the highlighted one.
        self.complete_slash();
        let text = self.composer.take();
        if text.trim().is_empty() {
            return Vec::new();
        }
        if let Some(command) = slash::parse(&text) {
            let _ = self.history.push(&text);
            return match command {
                Ok(command) => self.slash(command),
                Err(unknown) => {
                    self.transcript.cells.push(HistoryCell::Warning(format!(
                        "{unknown} is not a command; /help lists them"
                    )));
                    Vec::new()
                }
            };
        }
        if let Err(error) = self.history.push(&text) {
            self.transcript
                .cells
                .push(HistoryCell::Warning(error.to_string()));
        }
        if self.busy {
            self.queued.push(text.clone());
            vec![Action::Command(HostCommand::Steer { text })]
        } else {
            self.busy = true;
            vec![Action::Command(HostCommand::UserTurn { text })]
        }
    }
}
