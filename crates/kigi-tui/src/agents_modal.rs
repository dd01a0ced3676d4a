//! The agents modal (`/config-agents`, alias `/agents`; `/personas` opens its Personas tab):
//! two tabs listing the discovered agent definitions and the personas, each row with its name,
//! scope, description, source file and what it shadows or why it is ignored; Enter shows one's
//! definition.
//!
//! The rule: the modal only reads. Toggling, creating, editing and deleting are not offered
//! here until they exist (no row offers an action that does nothing).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use crate::agent_catalog::{AgentCatalog, CatalogEntry};
use crate::app::{Action, App};
use crate::theme::Theme;
use crate::wrap::{truncate, wrap_line};

/// Entries shown at once (two rows each).
const ENTRIES: usize = 6;
/// Rows of a definition shown at once.
const DETAIL_ROWS: usize = 16;

/// The modal's two tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentsTab {
    Agents,
    Personas,
}

/// The open modal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentsModal {
    pub tab: AgentsTab,
    pub selected: usize,
    /// The selected entry's definition is shown, scrolled down this many rows.
    pub detail: Option<usize>,
    pub catalog: AgentCatalog,
}

impl AgentsModal {
    pub fn new(catalog: AgentCatalog, tab: AgentsTab) -> Self {
        Self {
            tab,
            selected: 0,
            detail: None,
            catalog,
        }
    }

    fn entries(&self) -> &[CatalogEntry] {
        match self.tab {
            AgentsTab::Agents => &self.catalog.agents,
            AgentsTab::Personas => &self.catalog.personas,
        }
    }
}

/// The modal's lines at `width`.
pub fn agents_modal_lines(modal: &AgentsModal, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let tab = |name: &str, on: bool| {
        if on {
            Span::styled(format!("[{name}]"), theme.selected)
        } else {
            Span::styled(format!(" {name} "), theme.dim)
        }
    };
    let mut out = vec![Line::from(vec![
        Span::styled("Manage Agents  ", theme.accent),
        tab("Agents", modal.tab == AgentsTab::Agents),
        Span::raw(" "),
        tab("Personas", modal.tab == AgentsTab::Personas),
    ])];
    let entries = modal.entries();
    let selected = modal.selected.min(entries.len().saturating_sub(1));
    if let (Some(scroll), Some(entry)) = (modal.detail, entries.get(selected)) {
        let lines: Vec<Line<'static>> = entry
            .detail
            .lines()
            .flat_map(|l| wrap_line(&Line::styled(l.to_owned(), theme.text), width, 2))
            .collect();
        let start = scroll.min(lines.len().saturating_sub(1));
        out.extend(lines.iter().skip(start).take(DETAIL_ROWS).cloned());
        let more = lines.len().saturating_sub(start + DETAIL_ROWS);
        let tail = if more > 0 {
            format!("… {more} more rows · ↑↓ scroll · Esc back to the list")
        } else {
            "↑↓ scroll · Esc back to the list".to_owned()
        };
        out.push(Line::styled(truncate(&tail, width), theme.dim));
        return out;
    }
    if entries.is_empty() {
        out.push(Line::styled("  none found", theme.dim));
    }
    let start = selected.saturating_sub(ENTRIES - 1);
    for (i, entry) in entries.iter().enumerate().skip(start).take(ENTRIES) {
        let style = if i == selected {
            theme.selected
        } else {
            theme.text
        };
        let pointer = if i == selected { "›" } else { " " };
        out.push(Line::from(vec![
            Span::styled(format!("{pointer} "), theme.accent),
            Span::styled(format!("{:<16} ", truncate(&entry.name, 16)), style),
            Span::styled(format!("{:<9} ", entry.scope), theme.dim),
            Span::styled(
                truncate(&entry.description, width.saturating_sub(29)),
                theme.text,
            ),
        ]));
        let mut second = format!("    {}", entry.source);
        if !entry.note.is_empty() {
            second.push_str(&format!("  ({})", entry.note));
        }
        out.push(Line::styled(truncate(&second, width), theme.dim));
    }
    if !modal.catalog.diagnostics.is_empty() {
        out.push(Line::styled(
            truncate(
                &format!(
                    "{} problems: {}",
                    modal.catalog.diagnostics.len(),
                    modal.catalog.diagnostics[0]
                ),
                width,
            ),
            theme.warning,
        ));
    }
    out.push(Line::styled(
        truncate(
            "↑↓ select · Enter shows the definition · Tab switches tabs · Esc closes",
            width,
        ),
        theme.dim,
    ));
    out
}

impl App {
    /// A key while the agents modal is open.
    pub(crate) fn agents_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(modal) = &mut self.agents else {
            return Vec::new();
        };
        let count = modal.entries().len();
        if let Some(scroll) = &mut modal.detail {
            match key.code {
                KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => modal.detail = None,
                KeyCode::Up => *scroll = scroll.saturating_sub(1),
                KeyCode::Down => *scroll += 1,
                KeyCode::PageUp => *scroll = scroll.saturating_sub(DETAIL_ROWS),
                KeyCode::PageDown => *scroll += DETAIL_ROWS,
                _ => {}
            }
            return Vec::new();
        }
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => self.agents = None,
            KeyCode::Tab | KeyCode::BackTab | KeyCode::Left | KeyCode::Right => {
                modal.tab = match modal.tab {
                    AgentsTab::Agents => AgentsTab::Personas,
                    AgentsTab::Personas => AgentsTab::Agents,
                };
                modal.selected = 0;
            }
            KeyCode::Up => modal.selected = modal.selected.saturating_sub(1),
            KeyCode::Down => modal.selected = (modal.selected + 1).min(count.saturating_sub(1)),
            KeyCode::Enter if count > 0 => modal.detail = Some(0),
            _ => {}
        }
        Vec::new()
    }
}
