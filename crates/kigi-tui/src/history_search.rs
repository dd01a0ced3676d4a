//! Ctrl+R: searching the prompt history by substring, newest first; Ctrl+R again goes
//! further back, Enter takes the entry into the editor, Esc leaves it as it was.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::App;

/// A Ctrl+R search through the prompt history.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistorySearch {
    pub query: String,
    /// The index of the entry found, and its text.
    pub found: Option<(usize, String)>,
}

impl App {
    pub(crate) fn search_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let Some(search) = &mut self.history_search else {
            return;
        };
        let older_than = match key.code {
            KeyCode::Char('r') if ctrl => search.found.as_ref().map(|(i, _)| *i),
            KeyCode::Char('c' | 'g') if ctrl => {
                self.history_search = None;
                return;
            }
            KeyCode::Esc => {
                self.history_search = None;
                return;
            }
            KeyCode::Enter | KeyCode::Tab => {
                if let Some((_, text)) = &search.found {
                    self.composer.set_text(text);
                }
                self.history_search = None;
                return;
            }
            KeyCode::Backspace => {
                search.query.pop();
                None
            }
            KeyCode::Char(ch) if !ctrl => {
                search.query.push(ch);
                None
            }
            _ => return,
        };
        let found = self
            .history
            .find(&search.query, older_than)
            .map(|(i, text)| (i, text.to_owned()));
        if found.is_some() || older_than.is_none() {
            search.found = found;
        }
    }
}
