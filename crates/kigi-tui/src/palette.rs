//! The command palette (Ctrl+P): every slash command and every pane, filtered as one types,
//! "Manage Agents" among them; Enter runs the highlighted one.
//!
//! The rule: each entry runs exactly what its slash command or key runs (the palette adds no
//! behaviour of its own), so the two can never disagree.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use crate::app::{Action, App};
use crate::history_cell::HistoryCell;
use crate::slash::{COMMANDS, parse};
use crate::theme::Theme;
use crate::wrap::truncate;

/// Entries shown at once.
const ROWS: usize = 8;

/// What an entry runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaletteRun {
    /// This slash command, as if sent without an argument.
    Slash(&'static str),
    /// Ctrl+B.
    TasksPane,
    /// Ctrl+T.
    TodoPane,
}

/// The entries beyond the slash commands, listed first.
const EXTRA: [(&str, &str, PaletteRun); 4] = [
    (
        "Manage Agents",
        "agent types and personas (/config-agents)",
        PaletteRun::Slash("/config-agents"),
    ),
    (
        "Personas",
        "the Personas tab (/personas)",
        PaletteRun::Slash("/personas"),
    ),
    (
        "Tasks pane",
        "subagents: inspect, kill (Ctrl+B)",
        PaletteRun::TasksPane,
    ),
    (
        "Todo pane",
        "the agent's todo list (Ctrl+T)",
        PaletteRun::TodoPane,
    ),
];

/// The open palette.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Palette {
    pub query: String,
    pub selected: usize,
}

/// Every entry: its name, its help and what it runs.
pub fn palette_entries() -> Vec<(&'static str, &'static str, PaletteRun)> {
    let mut entries: Vec<_> = EXTRA.to_vec();
    entries.extend(
        COMMANDS
            .iter()
            .map(|(name, help)| (*name, *help, PaletteRun::Slash(name))),
    );
    entries
}

/// The entries whose name or help contains `query` (case-insensitive).
pub fn matching(query: &str) -> Vec<(&'static str, &'static str, PaletteRun)> {
    let query = query.to_lowercase();
    palette_entries()
        .into_iter()
        .filter(|(name, help, _)| {
            name.to_lowercase().contains(&query) || help.to_lowercase().contains(&query)
        })
        .collect()
}

/// The palette's lines at `width`.
pub fn palette_lines(palette: &Palette, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![
        Line::styled(
            "Command palette (type to filter · Enter runs · Esc closes)",
            theme.accent,
        ),
        Line::from(vec![
            Span::styled("› ", theme.accent),
            Span::styled(palette.query.clone(), theme.text),
        ]),
    ];
    let entries = matching(&palette.query);
    if entries.is_empty() {
        out.push(Line::styled("  no command matches", theme.dim));
    }
    let selected = palette.selected.min(entries.len().saturating_sub(1));
    let start = selected.saturating_sub(ROWS - 1);
    for (i, (name, help, _)) in entries.iter().enumerate().skip(start).take(ROWS) {
        let style = if i == selected {
            theme.selected
        } else {
            theme.text
        };
        out.push(Line::from(vec![
            Span::styled(format!("  {name:<15} "), style),
            Span::styled(truncate(help, width.saturating_sub(18)), theme.dim),
        ]));
    }
    out
}

impl App {
    /// A key while the palette is open.
    pub(crate) fn palette_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(palette) = &mut self.palette else {
            return Vec::new();
        };
        let count = matching(&palette.query).len();
        match key.code {
            KeyCode::Esc => self.palette = None,
            KeyCode::Up => palette.selected = palette.selected.saturating_sub(1),
            KeyCode::Down => palette.selected = (palette.selected + 1).min(count.saturating_sub(1)),
            KeyCode::Backspace => {
                palette.query.pop();
                palette.selected = 0;
            }
            KeyCode::Char(ch) => {
                palette.query.push(ch);
                palette.selected = 0;
            }
            KeyCode::Enter => {
                let entries = matching(&palette.query);
                let pick = entries.get(palette.selected.min(count.saturating_sub(1)));
                let run = pick.map(|(_, _, run)| *run);
                self.palette = None;
                return match run {
                    Some(PaletteRun::TasksPane) => {
                        self.toggle_tasks();
                        Vec::new()
                    }
                    Some(PaletteRun::TodoPane) => {
                        self.todos_open = !self.todos_open;
                        Vec::new()
                    }
                    Some(PaletteRun::Slash(name)) => match parse(name) {
                        Some(Ok(command)) => self.slash(command),
                        _ => {
                            self.transcript
                                .cells
                                .push(HistoryCell::Warning(format!("{name} cannot run")));
                            Vec::new()
                        }
                    },
                    None => Vec::new(),
                };
            }
            _ => {}
        }
        Vec::new()
    }
}
