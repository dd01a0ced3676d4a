//! The `/resume` picker: this folder's sessions, the one used last first, and the keys that
//! move through it and open one.
//!
//! The rule: opening a session is an [`Action::Reopen`]; the picker never touches the store.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::{Action, App, Reopen};
use crate::history_cell::HistoryCell;

/// One row of the `/resume` picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionChoice {
    pub id: String,
    pub last_used: String,
    pub first_prompt: String,
    pub turns: usize,
}

/// The `/resume` picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picker {
    pub items: Vec<SessionChoice>,
    pub selected: usize,
}

impl App {
    /// Opens the `/resume` picker (nothing to pick is said instead).
    pub fn open_picker(&mut self, items: Vec<SessionChoice>) {
        if items.is_empty() {
            self.transcript
                .cells
                .push(HistoryCell::Info("No other session in this folder".into()));
        } else {
            self.picker = Some(Picker { items, selected: 0 });
        }
    }

    pub(crate) fn picker_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(picker) = &mut self.picker else {
            return Vec::new();
        };
        let n = picker.items.len().max(1);
        match key.code {
            KeyCode::Up => picker.selected = (picker.selected + n - 1) % n,
            KeyCode::Down | KeyCode::Tab => picker.selected = (picker.selected + 1) % n,
            KeyCode::Enter => {
                let id = picker.items.get(picker.selected).map(|c| c.id.clone());
                self.picker = None;
                return id
                    .map(|id| vec![Action::Reopen(Reopen::Resume(id))])
                    .unwrap_or_default();
            }
            KeyCode::Esc => self.picker = None,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.picker = None;
            }
            _ => {}
        }
        Vec::new()
    }
}
