//! Keys at the prompt: which part of the terminal a key goes to (a picker, an approval, a
//! modal, a pane or a child's frame when one has focus), then what the prompt's own keys do:
//! editing, `@` and `/` completion, history, the permission mode, and Enter sending a turn
//! (or a steer while the agent works, or a slash command).
//!
//! The rule: a key changes state and returns [`Action`]s, never does I/O; whatever has focus
//! takes it first, but Ctrl+C passes an approval, a child's frame and the tasks pane (it
//! interrupts, clears the prompt or quits).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use kigi_agent::PermissionMode;
use kigi_protocol::HostCommand;

use crate::app::{Action, App};
use crate::history_cell::HistoryCell;
use crate::history_search::HistorySearch;
use crate::palette::Palette;
use crate::slash;

/// Shift+Tab cycles these.
const MODE_CYCLE: [PermissionMode; 3] = [
    PermissionMode::Default,
    PermissionMode::AcceptEdits,
    PermissionMode::Plan,
];

impl App {
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
        // Mentions are looked for in what was typed, not in folded pastes.
        let mentions = crate::attachments::mentions(self.composer.text());
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
            vec![Action::Turn { text, mentions }]
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::input_history::InputHistory;
    use crate::theme::{Theme, ThemeName};

    fn app() -> App {
        App::new(
            Theme::new(ThemeName::Night, true),
            InputHistory::default(),
            PermissionMode::Default,
            "/repo".into(),
        )
    }

    fn type_text(app: &mut App, text: &str) -> Vec<Action> {
        text.chars()
            .flat_map(|ch| app.on_key(KeyEvent::from(KeyCode::Char(ch))))
            .collect()
    }

    #[test]
    fn a_sent_prompt_carries_the_mentions_typed_not_those_pasted() {
        let mut app = app();
        app.files = Some(vec!["src/a.rs".into()]);
        type_text(&mut app, "fix @src/a.rs, see ");
        app.on_paste(&"@pasted/file.rs\n".repeat(5));
        assert_eq!(
            app.on_key(KeyEvent::from(KeyCode::Enter)),
            [Action::Turn {
                text: format!("fix @src/a.rs, see {}", "@pasted/file.rs\n".repeat(5)),
                mentions: vec!["src/a.rs,".into()],
            }]
        );
        // While the agent works a message is a steer, which carries text only.
        type_text(&mut app, "also @src/a.rs now");
        assert_eq!(
            app.on_key(KeyEvent::from(KeyCode::Enter)),
            [Action::Command(HostCommand::Steer {
                text: "also @src/a.rs now".into()
            })]
        );
    }
}
