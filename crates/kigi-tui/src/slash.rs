//! The slash commands: their names and one-line help, completion by prefix, parsing a sent
//! line into one, and what each does to the [`App`] (the [`Action`]s it returns).
//!
//! The rule: every command listed here does something when sent; none is parsed and ignored.

use kigi_agent::PermissionMode;
use kigi_protocol::HostCommand;

use crate::agents_modal::AgentsTab;
use crate::app::{Action, App, Reopen};
use crate::history_cell::HistoryCell;

/// A slash command and its argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlashCommand {
    Help,
    /// `/model NAME`: the main agent's next request goes to another model (the host answers
    /// with `model_changed`); without a name, show the model.
    Model(Option<String>),
    /// `/permissions MODE`: switch the permission mode; without one, list them.
    Permissions(Option<String>),
    /// `/resume`: a picker of this folder's sessions; `/resume ID` reopens that one.
    Resume(Option<String>),
    New,
    Status,
    Compact,
    /// `/init`: the model surveys the repository and writes AGENTS.md (the write asks).
    Init,
    /// `/agents` (alias `/config-agents`) and `/personas`: the agents modal on that tab.
    Agents(AgentsTab),
    Quit,
}

/// What `/init` asks (shared with `kigi acp`'s `/init`).
pub use kigi_core::INIT_PROMPT;

/// Every command, with its one-line help, in the order the popup lists them.
pub const COMMANDS: [(&str, &str); 11] = [
    ("/help", "the keys and commands"),
    ("/model", "switch the model for the next turn (/model NAME)"),
    (
        "/permissions",
        "switch the permission mode (/permissions MODE)",
    ),
    ("/resume", "reopen a session of this folder"),
    ("/new", "start a new session"),
    ("/status", "session, model, mode, tokens"),
    (
        "/compact",
        "summarize the conversation before the next turn",
    ),
    ("/init", "survey this repository and write its AGENTS.md"),
    ("/agents", "agent types and personas (alias /config-agents)"),
    ("/personas", "the personas subagents can take"),
    ("/quit", "end the session and leave"),
];

/// The commands whose names start with what is typed (`/` lists them all); empty once a
/// space follows the name.
pub fn completions(typed: &str) -> Vec<(&'static str, &'static str)> {
    if !typed.starts_with('/') || typed.contains(char::is_whitespace) {
        return Vec::new();
    }
    COMMANDS
        .iter()
        .filter(|(name, _)| name.starts_with(typed))
        .copied()
        .collect()
}

/// The command a sent line is, if it is one; `Err` names an unknown command.
pub fn parse(line: &str) -> Option<Result<SlashCommand, String>> {
    let line = line.trim();
    if !line.starts_with('/') || line.contains('\n') {
        return None;
    }
    let (name, arg) = match line.split_once(char::is_whitespace) {
        Some((name, arg)) => (name, Some(arg.trim().to_owned()).filter(|a| !a.is_empty())),
        None => (line, None),
    };
    Some(match name {
        "/help" => Ok(SlashCommand::Help),
        "/model" => Ok(SlashCommand::Model(arg)),
        "/permissions" => Ok(SlashCommand::Permissions(arg)),
        "/resume" => Ok(SlashCommand::Resume(arg)),
        "/new" => Ok(SlashCommand::New),
        "/status" => Ok(SlashCommand::Status),
        "/compact" => Ok(SlashCommand::Compact),
        "/init" => Ok(SlashCommand::Init),
        "/agents" | "/config-agents" => Ok(SlashCommand::Agents(AgentsTab::Agents)),
        "/personas" => Ok(SlashCommand::Agents(AgentsTab::Personas)),
        "/quit" | "/exit" => Ok(SlashCommand::Quit),
        other => Err(other.to_owned()),
    })
}

/// The text `/help` prints.
pub fn help_text() -> String {
    let mut text = String::from(
        "Keys: Enter sends · Shift+Enter, Alt+Enter or Ctrl+J adds a line · Up/Down history · Ctrl+R searches it\n\
         Esc interrupts · Ctrl+C interrupts, twice on an empty prompt quits · Ctrl+D quits\n\
         Shift+Tab cycles the permission mode · typing while the agent works queues a message · @ completes a file\n\
         Ctrl+B tasks pane (subagents: Enter inspects, k kills) · Ctrl+T todo pane · Ctrl+P command palette\n\
         Ctrl+F, or Enter on an empty prompt, opens the running subagent's view (Esc returns)\n\
         Commands:",
    );
    for (name, help) in COMMANDS {
        text.push_str(&format!("\n  {name:<13} {help}"));
    }
    text
}

impl App {
    /// What a slash command does.
    pub fn slash(&mut self, command: SlashCommand) -> Vec<Action> {
        let info =
            |app: &mut Self, text: String| app.transcript.cells.push(HistoryCell::Info(text));
        match command {
            SlashCommand::Help => {
                info(self, help_text());
                Vec::new()
            }
            SlashCommand::Status => {
                let text = self.status_text();
                info(self, text);
                Vec::new()
            }
            SlashCommand::Compact => {
                info(
                    self,
                    "The conversation is compacted before the next turn.".into(),
                );
                vec![Action::Command(HostCommand::Compact)]
            }
            SlashCommand::Init if self.busy => {
                self.transcript.cells.push(HistoryCell::Warning(
                    "/init starts a turn of its own: send it when the agent is idle".into(),
                ));
                Vec::new()
            }
            SlashCommand::Init => {
                self.busy = true;
                vec![Action::Command(HostCommand::user_turn(INIT_PROMPT))]
            }
            SlashCommand::Quit => vec![Action::Quit],
            SlashCommand::Agents(tab) => vec![Action::OpenAgents(tab)],
            SlashCommand::Permissions(None) => {
                let modes: Vec<&str> = PermissionMode::SPELLINGS.iter().map(|(s, _)| *s).collect();
                info(
                    self,
                    format!(
                        "Permission mode: {} (Shift+Tab cycles; /permissions MODE with one of {})",
                        self.mode.spelling(),
                        modes.join(", ")
                    ),
                );
                Vec::new()
            }
            SlashCommand::Permissions(Some(mode)) => match PermissionMode::parse(&mode) {
                Some(mode) => {
                    info(self, format!("Permission mode: {}", mode.spelling()));
                    self.set_mode(mode)
                }
                None => {
                    self.transcript.cells.push(HistoryCell::Warning(format!(
                        "unknown permission mode `{mode}`"
                    )));
                    Vec::new()
                }
            },
            SlashCommand::Model(None) => {
                let model = self.transcript.model.clone().unwrap_or_else(|| "?".into());
                info(
                    self,
                    format!("Model: {model} (/model NAME switches for the next turn)"),
                );
                Vec::new()
            }
            SlashCommand::Model(Some(model)) => {
                vec![Action::Command(HostCommand::SetModel { model })]
            }
            SlashCommand::New | SlashCommand::Resume(Some(_)) if self.busy => {
                self.transcript.cells.push(HistoryCell::Warning(
                    "The agent is working: Esc interrupts it first".into(),
                ));
                Vec::new()
            }
            SlashCommand::New => vec![Action::Reopen(Reopen::New)],
            SlashCommand::Resume(Some(id)) => vec![Action::Reopen(Reopen::Resume(id))],
            SlashCommand::Resume(None) => vec![Action::ListSessions],
        }
    }

    /// `/status`'s text.
    pub fn status_text(&self) -> String {
        let t = &self.transcript;
        format!(
            "Session {}\nFolder  {}\nModel   {}\nMode    {}\nTokens  {} in · {} out\nChildren running: {}",
            self.session_id,
            self.cwd,
            t.model.as_deref().unwrap_or("?"),
            self.mode.spelling(),
            t.tokens.input,
            t.tokens.output,
            t.running_children()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_by_prefix_and_parses_arguments() {
        let names: Vec<&str> = completions("/re").iter().map(|c| c.0).collect();
        assert_eq!(names, ["/resume"]);
        assert_eq!(completions("/").len(), COMMANDS.len());
        assert!(completions("/model gpt").is_empty());
        assert_eq!(
            parse("/permissions plan"),
            Some(Ok(SlashCommand::Permissions(Some("plan".into()))))
        );
        assert_eq!(parse("/nope"), Some(Err("/nope".into())));
        assert_eq!(parse("not a command"), None);
    }

    #[test]
    fn init_starts_the_survey_turn_and_waits_for_an_idle_agent() {
        assert_eq!(parse("/init"), Some(Ok(SlashCommand::Init)));
        let tmp = tempfile::tempdir().unwrap();
        let history = crate::input_history::InputHistory::load(&tmp.path().join("h.jsonl"));
        let theme = crate::theme::Theme::from_config(Some("kigiday"), true).0;
        let mut app = App::new(theme, history, PermissionMode::Default, "/repo".into());
        let actions = app.slash(SlashCommand::Init);
        assert!(
            matches!(&actions[..], [Action::Command(HostCommand::UserTurn { text, .. })] if text.contains("AGENTS.md")),
            "{actions:?}"
        );
        // Busy now: a second one is refused, not queued as a steer.
        assert!(app.slash(SlashCommand::Init).is_empty());
    }
}
