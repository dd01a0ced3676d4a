//! The terminal's event loop: opens the session through the host, reads keys on a thread of
//! their own, reads host events, and redraws when either changed something, at most 60 times
//! a second.
//!
//! The rule: nothing polls. The loop sleeps in one `select!` on keys, host events, the next
//! frame when one is due, and a spinner tick only while something runs, so an idle session
//! uses no CPU. The terminal is restored however the loop ends (a guard restores it on drop),
//! and while an editor has it, kigi does not read it (its key stream is dropped).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, Event, EventStream, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use futures_core::Stream;
use kigi_core::host::{ApprovalMode, HostedSession, OpenRequest, SessionHost, SessionStart};
use kigi_model::ModelFlags;
use kigi_protocol::{HostCommand, MAIN_AGENT_ID, SessionEvent};
use tokio::time::Instant;

use crate::agents_actions::AgentFiles;
use crate::app::{Action, App, Reopen};
use crate::attachments::mentions;
use crate::child_transcript_files::read_stored_children;
use crate::error::TuiError;
use crate::history_cell::HistoryCell;
use crate::inline_terminal::InlineTerminal;
use crate::input_history::InputHistory;
use crate::session_picker::SessionChoice;
use crate::theme::{Theme, no_color_from_env};

/// The shortest time between two frames (60 per second at most).
const FRAME: Duration = Duration::from_millis(16);
/// How often a spinner turns while something runs.
const SPINNER_TICK: Duration = Duration::from_millis(100);

/// What the terminal is started with.
#[derive(Debug)]
pub struct TuiOptions {
    pub host: SessionHost,
    /// The session to open; its approvals are answered here (`ApprovalMode::Ask`).
    pub request: OpenRequest,
    /// A first prompt to send (`kigi "PROMPT"`).
    pub prompt: Option<String>,
    /// `[tui] theme`.
    pub theme: Option<String>,
    /// Where prompt history is kept.
    pub history_path: PathBuf,
    /// The context window of a model whose configuration does not give one
    /// (`[compaction] default_context_window`).
    pub default_context_window: u64,
}

/// Runs the terminal until the person quits; returns the id of the session last open. A
/// session that cannot be opened fails before the terminal is touched.
pub async fn run(options: TuiOptions) -> Result<String, TuiError> {
    let TuiOptions {
        host,
        mut request,
        prompt,
        theme,
        history_path,
        default_context_window,
    } = options;
    request.approvals = ApprovalMode::Ask;
    let resuming = request.start != SessionStart::New;
    let session = host.open(request.clone())?;
    let (theme, theme_warning) = Theme::from_config(theme.as_deref(), no_color_from_env());
    let cwd = request.cwd.display().to_string();
    let mut app = App::new(
        theme,
        InputHistory::load(&history_path),
        session.permission_mode(),
        cwd.clone(),
    );
    if let Some(warning) = theme_warning {
        app.transcript.cells.push(HistoryCell::Warning(warning));
    }
    let mut state = Running::start(session, &host, &mut app, resuming);

    let _restore = RestoreTerminal;
    take_terminal()?;
    let top = crossterm::cursor::position().map_or(0, |(_, row)| row);
    let mut terminal = InlineTerminal::new(std::io::stdout(), top);
    let mut keys = Some(EventStream::new());

    if let Some(prompt) = prompt.filter(|p| !p.trim().is_empty()) {
        app.busy = true;
        let attachments = attached_files(&mentions(&prompt), &request.cwd);
        state.submit(
            &mut app,
            HostCommand::UserTurn {
                text: prompt,
                attachments,
            },
        );
    }
    let mut dirty = true;
    let mut next_frame = Instant::now();
    loop {
        if dirty && Instant::now() >= next_frame {
            terminal.draw(&app, crossterm::terminal::size()?)?;
            dirty = false;
            next_frame = Instant::now() + FRAME;
        }
        let animating = app.busy || app.transcript.animating();
        let mut actions = Vec::new();
        tokio::select! {
            biased;
            key = next_event(&mut keys) => match key {
                Some(Ok(Event::Key(key))) => actions = app.on_key(key),
                Some(Ok(Event::Paste(text))) => app.on_paste(&text),
                Some(Ok(_)) => {}
                Some(Err(_)) | None => actions.push(Action::Quit),
            },
            event = state.events.next() => match event {
                Some(event) => {
                    app.on_host_event(&event);
                    for event in state.events.drain() {
                        app.on_host_event(&event);
                    }
                }
                None => {
                    app.transcript.cells.push(HistoryCell::Error("The session ended".into()));
                    actions.push(Action::Quit);
                }
            },
            () = tokio::time::sleep_until(next_frame), if dirty => {}
            () = tokio::time::sleep(SPINNER_TICK), if animating && !dirty => {
                app.frame = app.frame.wrapping_add(1);
            }
        }
        dirty = true;
        app.now = std::time::Instant::now();
        if app.context_window.is_none()
            && let Some(model) = app.transcript.model.clone()
        {
            app.context_window = Some(
                context_window(&host, &request.model, &model).unwrap_or(default_context_window),
            );
        }
        let mut quit = false;
        for action in actions {
            match action {
                Action::Command(command) => state.submit(&mut app, command),
                Action::Turn { text, mentions } => {
                    let attachments = attached_files(&mentions, &request.cwd);
                    state.submit(&mut app, HostCommand::UserTurn { text, attachments });
                }
                Action::Quit => quit = true,
                Action::ListFiles => {
                    let root = request.cwd.clone();
                    let files =
                        tokio::task::spawn_blocking(move || crate::file_mention::list_files(&root))
                            .await
                            .unwrap_or_default();
                    app.files = Some(files);
                }
                Action::ListSessions => {
                    app.open_picker(sessions_here(&host, &cwd, &app.session_id))
                }
                Action::OpenAgents(tab) => {
                    let catalog =
                        crate::agent_catalog::load_catalog(host.discovery(), &request.cwd);
                    app.open_agents(catalog, tab);
                }
                Action::KillSubagent(id) => {
                    match state
                        .session
                        .control()
                        .submit(HostCommand::KillSubagent { id: id.clone() })
                    {
                        Ok(()) => app
                            .transcript
                            .cells
                            .push(HistoryCell::Info(format!("Cancelling {id}…"))),
                        Err(error) => app
                            .transcript
                            .cells
                            .push(HistoryCell::Error(error.to_string())),
                    }
                }
                Action::ToggleSubagent {
                    agent_type,
                    enabled,
                } => {
                    let config = host.discovery().paths.config_file();
                    crate::subagent_toggles::switch_subagent(
                        &mut app,
                        &config,
                        &agent_type,
                        enabled,
                        |command| state.control.submit(command),
                    );
                }
                Action::TogglePersona { persona, enabled } => {
                    let config = host.discovery().paths.config_file();
                    crate::persona_toggles::switch_persona(
                        &mut app,
                        &config,
                        &persona,
                        enabled,
                        |command| state.control.submit(command),
                    );
                }
                action @ (Action::CreateAgent(_)
                | Action::CreatePersona(_)
                | Action::EditDefinition(_)
                | Action::DeleteDefinition(_)) => {
                    let files = AgentFiles {
                        host: &host,
                        cwd: &request.cwd,
                    };
                    files
                        .carry_out(action, &mut app, &mut terminal, &mut keys)
                        .await?;
                }
                Action::Reopen(reopen) => {
                    state = state.reopen(&host, &request, reopen, &mut app).await?;
                }
            }
        }
        if quit {
            break;
        }
    }
    terminal.draw(&app, crossterm::terminal::size()?)?;
    terminal.finish()?;
    let id = app.session_id.clone();
    let _ = state.session.shutdown().await;
    Ok(id)
}

/// The open session, its controls and its events.
struct Running {
    session: HostedSession,
    control: kigi_core::host::SessionControl,
    events: kigi_core::host::EventStream,
}

impl Running {
    fn start(mut session: HostedSession, host: &SessionHost, app: &mut App, replay: bool) -> Self {
        app.session_id = session.id().to_owned();
        app.mode = session.permission_mode();
        for warning in session.warnings() {
            app.transcript
                .cells
                .push(HistoryCell::Warning(warning.clone()));
        }
        if replay && let Ok(loaded) = host.store().load(session.id()) {
            let parent: Vec<SessionEvent> = loaded
                .events
                .into_iter()
                .filter(|e| e.agent_id == MAIN_AGENT_ID)
                .map(|e| e.event)
                .collect();
            let (stored, left_out) = read_stored_children(host.store(), session.id());
            let earlier = app
                .transcript
                .replay_resumed(&parent, stored, std::time::Instant::now());
            app.transcript.cells.push(HistoryCell::Info(format!(
                "Resumed session {}",
                session.id()
            )));
            let ran = match earlier {
                0 => None,
                1 => Some("1 subagent ran in it before: Ctrl+B lists it".to_owned()),
                n => Some(format!("{n} subagents ran in it before: Ctrl+B lists them")),
            };
            if let Some(ran) = ran {
                app.transcript.cells.push(HistoryCell::Info(format!(
                    "{ran}, Enter opens one's transcript"
                )));
            }
            if left_out > 0 {
                app.transcript.cells.push(HistoryCell::Info(format!(
                    "{left_out} earlier subagents are not loaded here: kigi sessions show {} --agent sub-N",
                    session.id()
                )));
            }
        }
        let control = session.control();
        // The host's coordinator starts every session from the configuration read when the
        // host started: the switches made here since are given to this one again.
        app.resend_subagent_switches(|command| control.submit(command));
        let events = session.take_events();
        Self {
            session,
            control,
            events,
        }
    }

    fn submit(&self, app: &mut App, command: HostCommand) {
        let starts_turn = matches!(command, HostCommand::UserTurn { .. });
        if let Err(error) = self.control.submit(command) {
            if starts_turn {
                app.busy = false;
            }
            app.transcript
                .cells
                .push(HistoryCell::Error(error.to_string()));
        }
    }

    /// Closes this session and opens the one `reopen` names (this one again if that fails).
    async fn reopen(
        self,
        host: &SessionHost,
        base: &OpenRequest,
        reopen: Reopen,
        app: &mut App,
    ) -> Result<Self, TuiError> {
        let current = self.session.id().to_owned();
        let _ = self.session.shutdown().await;
        let replay = matches!(reopen, Reopen::Resume(_));
        let mut request = base.clone();
        request.approvals = ApprovalMode::Ask;
        request.permission_mode = Some(app.mode);
        match &reopen {
            Reopen::New => request.start = SessionStart::New,
            Reopen::Resume(id) => request.start = SessionStart::Resume(id.clone()),
        }
        app.approvals.clear();
        app.queued.clear();
        app.context_window = None;
        app.busy = false;
        match host.open(request) {
            Ok(session) => {
                // Printed cells stay; the children, swarms and counts are the new session's.
                app.transcript.restart();
                let note = match &reopen {
                    Reopen::New => format!("New session {}", session.id()),
                    Reopen::Resume(_) => String::new(),
                };
                let running = Self::start(session, host, app, replay);
                if !note.is_empty() {
                    app.transcript.cells.push(HistoryCell::Info(note));
                }
                Ok(running)
            }
            Err(error) => {
                app.transcript
                    .cells
                    .push(HistoryCell::Error(error.to_string()));
                let mut again = base.clone();
                again.approvals = ApprovalMode::Ask;
                again.start = SessionStart::Resume(current);
                let session = host.open(again)?;
                Ok(Self::start(session, host, app, false))
            }
        }
    }
}

/// The context window of `model` (a provider model id) as configured: the one the flags
/// chose when it is that model, else the model looked up by its id.
fn context_window(host: &SessionHost, flags: &ModelFlags, model: &str) -> Option<u64> {
    let env = host.env_lookup();
    let chosen = host.models().resolve(flags, &*env).ok();
    if let Some(endpoint) = chosen.filter(|e| e.model == model) {
        return endpoint.context_window;
    }
    let by_id = ModelFlags {
        model: Some(model.to_owned()),
        base_url: flags.base_url.clone(),
    };
    host.models().resolve(&by_id, &*env).ok()?.context_window
}

/// The attachments of the files `mentions` name below `cwd` (or absolutely).
fn attached_files(mentions: &[String], cwd: &std::path::Path) -> Vec<kigi_protocol::Attachment> {
    crate::attachments::attached_files(mentions, |path| cwd.join(path).is_file())
}

/// This folder's sessions, the one used last first, without the open one.
fn sessions_here(host: &SessionHost, cwd: &str, open: &str) -> Vec<SessionChoice> {
    let mut list = host.store().list().unwrap_or_default();
    list.retain(|s| s.cwd == cwd && s.id != open);
    list.sort_by(|a, b| b.last_used.cmp(&a.last_used));
    list.into_iter()
        .map(|s| SessionChoice {
            id: s.id,
            last_used: s.last_used,
            first_prompt: s.first_prompt,
            turns: s.turns,
        })
        .collect()
}

/// The next terminal event (crossterm reads it without polling: no CPU while nothing is
/// typed); never, while the stream is away because an editor has the terminal.
async fn next_event(keys: &mut Option<EventStream>) -> Option<std::io::Result<Event>> {
    match keys {
        Some(stream) => {
            std::future::poll_fn(|cx| std::pin::Pin::new(&mut *stream).poll_next(cx)).await
        }
        None => std::future::pending().await,
    }
}

/// Raw mode, bracketed paste and unambiguous escape codes: how kigi reads the terminal.
pub(crate) fn take_terminal() -> std::io::Result<()> {
    crossterm::terminal::enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        EnableBracketedPaste,
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
    )
}

/// The terminal as kigi found it: cooked mode, no bracketed paste, the cursor shown.
pub(crate) fn give_terminal() {
    let mut stdout = std::io::stdout();
    let _ = execute!(
        stdout,
        PopKeyboardEnhancementFlags,
        DisableBracketedPaste,
        crossterm::cursor::Show
    );
    let _ = crossterm::terminal::disable_raw_mode();
    let _ = stdout.flush();
}

/// Restores the terminal on drop, however the loop ended.
struct RestoreTerminal;

impl Drop for RestoreTerminal {
    fn drop(&mut self) {
        give_terminal();
    }
}
