//! The agents modal (`/config-agents`, alias `/agents`; `/personas` opens its Personas tab):
//! two tabs listing the discovered agent definitions and the personas, each row with its name,
//! scope, whether it is on, description, source file and what it shadows or why it is
//! ignored. Enter shows one's definition; on both tabs Space switches the type or persona on
//! or off, `n` creates one (the starter of `kigi agents new`, or a starter persona in
//! `$KIGI_HOME/personas/`), `e` edits its file in `$EDITOR`, `d` deletes it after a yes.
//!
//! The rule: the modal is pure state; what touches files or the session is an [`Action`] the
//! event loop carries out (a type's switch is sent to the host as `SetSubagentEnabled` and,
//! once taken, shown and persisted in `[subagents.toggle]`: [`crate::subagent_toggles`]; a
//! persona's is written to `[subagents.persona_toggle]`: [`crate::persona_toggles`]).
//! Built-in agents and bundled (or `config.toml`) personas are read-only: no key offers to
//! change their text, and the notice says why.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
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
    /// The name of the agent being created (`n`), until Enter.
    pub naming: Option<String>,
    /// The file a delete waits for a yes on.
    pub confirm_delete: Option<PathBuf>,
    /// What the last action did (or why it could not).
    pub notice: Option<String>,
}

impl AgentsModal {
    pub fn new(catalog: AgentCatalog, tab: AgentsTab) -> Self {
        Self {
            tab,
            selected: 0,
            detail: None,
            catalog,
            naming: None,
            confirm_delete: None,
            notice: None,
        }
    }

    /// The catalog read again (after a file changed), the selection kept where it can be.
    pub fn reload(&mut self, catalog: AgentCatalog) {
        self.catalog = catalog;
        self.selected = self.selected.min(self.entries().len().saturating_sub(1));
        self.detail = None;
    }

    /// Selects the entry named `name` on this tab, if there is one.
    pub fn select(&mut self, name: &str) {
        if let Some(at) = self.entries().iter().position(|e| e.name == name) {
            self.selected = at;
        }
    }

    fn entries(&self) -> &[CatalogEntry] {
        match self.tab {
            AgentsTab::Agents => &self.catalog.agents,
            AgentsTab::Personas => &self.catalog.personas,
        }
    }

    /// A key for the open modal; `None` closes it.
    fn key(&mut self, key: KeyEvent) -> Option<Vec<Action>> {
        let count = self.entries().len();
        if let Some(name) = &mut self.naming {
            match key.code {
                KeyCode::Esc => self.naming = None,
                KeyCode::Backspace => {
                    name.pop();
                }
                KeyCode::Char(ch) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    name.push(ch);
                }
                KeyCode::Enter => {
                    let name = name.trim().to_owned();
                    self.naming = None;
                    if !name.is_empty() {
                        return Some(vec![match self.tab {
                            AgentsTab::Agents => Action::CreateAgent(name),
                            AgentsTab::Personas => Action::CreatePersona(name),
                        }]);
                    }
                }
                _ => {}
            }
            return Some(Vec::new());
        }
        if let Some(path) = self.confirm_delete.take() {
            if matches!(key.code, KeyCode::Char('y' | 'Y')) {
                return Some(vec![Action::DeleteDefinition(path)]);
            }
            return Some(Vec::new());
        }
        if let Some(scroll) = &mut self.detail {
            match key.code {
                KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => self.detail = None,
                KeyCode::Up => *scroll = scroll.saturating_sub(1),
                KeyCode::Down => *scroll += 1,
                KeyCode::PageUp => *scroll = scroll.saturating_sub(DETAIL_ROWS),
                KeyCode::PageDown => *scroll += DETAIL_ROWS,
                _ => {}
            }
            return Some(Vec::new());
        }
        // A notice answers the key before; the next one replaces it.
        self.notice = None;
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return None,
            KeyCode::Tab | KeyCode::BackTab | KeyCode::Left | KeyCode::Right => {
                self.tab = match self.tab {
                    AgentsTab::Agents => AgentsTab::Personas,
                    AgentsTab::Personas => AgentsTab::Agents,
                };
                self.selected = 0;
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(count.saturating_sub(1)),
            KeyCode::Enter if count > 0 => self.detail = Some(0),
            KeyCode::Char(' ') => {
                let selected = self.selected.min(count.saturating_sub(1));
                if let Some(entry) = self.entries().get(selected) {
                    let name = entry.name.clone();
                    // The row changes once the switch took (the host, or the file).
                    match (entry.enabled, self.tab) {
                        (Some(enabled), AgentsTab::Agents) => {
                            return Some(vec![Action::ToggleSubagent {
                                agent_type: name,
                                enabled: !enabled,
                            }]);
                        }
                        (Some(enabled), AgentsTab::Personas) => {
                            return Some(vec![Action::TogglePersona {
                                persona: name,
                                enabled: !enabled,
                            }]);
                        }
                        (None, AgentsTab::Agents) => {
                            self.notice = Some(format!(
                                "{name} is not a subagent type that can be switched off"
                            ));
                        }
                        (None, AgentsTab::Personas) => {
                            self.notice =
                                Some(format!("{name} is not a persona that can be switched off"));
                        }
                    }
                }
            }
            KeyCode::Char('n') => {
                self.notice = None;
                self.naming = Some(String::new());
            }
            KeyCode::Char(c @ ('e' | 'd')) => {
                let selected = self.selected.min(count.saturating_sub(1));
                let Some(entry) = self.entries().get(selected) else {
                    return Some(Vec::new());
                };
                match (entry.file.clone(), c) {
                    (Some(path), 'e') => return Some(vec![Action::EditDefinition(path)]),
                    (Some(path), _) => self.confirm_delete = Some(path),
                    (None, _) => self.notice = Some(read_only(entry)),
                }
            }
            _ => {}
        }
        Some(Vec::new())
    }
}

/// Why `entry` (which has no file to change) is read-only, and what to do instead.
fn read_only(entry: &CatalogEntry) -> String {
    let name = &entry.name;
    match entry.scope.as_str() {
        "bundled" => format!(
            "{name} is bundled with kigi: read-only (a persona of yours named {name} shadows it)"
        ),
        "config" => {
            format!("{name} is set in config.toml ([subagents.personas.{name}]): change it there")
        }
        scope => format!("{name} is {scope}: read-only"),
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
        let state = match entry.enabled {
            Some(true) => Span::styled("on   ", theme.ok),
            Some(false) => Span::styled("off  ", theme.warning),
            None => Span::raw("     "),
        };
        out.push(Line::from(vec![
            Span::styled(format!("{pointer} "), theme.accent),
            Span::styled(format!("{:<16} ", truncate(&entry.name, 16)), style),
            Span::styled(format!("{:<9} ", entry.scope), theme.dim),
            state,
            Span::styled(
                truncate(&entry.description, width.saturating_sub(34)),
                theme.text,
            ),
        ]));
        let mut second = format!("    {}", entry.source);
        if entry.file.is_none() {
            second.push_str("  (read-only)");
        }
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
    if let Some(notice) = &modal.notice {
        out.push(Line::styled(truncate(notice, width), theme.accent));
    }
    let footer = if let Some(name) = &modal.naming {
        let (what, place) = match modal.tab {
            AgentsTab::Agents => ("agent", ".kigi/agents/"),
            AgentsTab::Personas => ("persona", "$KIGI_HOME/personas/"),
        };
        Line::from(vec![
            Span::styled(format!("New {what}'s name: "), theme.accent),
            Span::styled(format!("{name}▏"), theme.text),
            Span::styled(
                format!("  Enter creates it in {place} · Esc cancels"),
                theme.dim,
            ),
        ])
    } else if let Some(path) = &modal.confirm_delete {
        Line::styled(
            format!(
                "Delete {}? y deletes it · n or Esc keeps it",
                path.display()
            ),
            theme.warning,
        )
    } else {
        Line::styled(
            "↑↓ · Enter shows · Space on/off · n new · e edit · d delete · Tab · Esc",
            theme.dim,
        )
    };
    let footer_width = footer.width();
    if footer_width > width {
        out.push(Line::styled(
            truncate(&footer.to_string(), width),
            footer.spans.first().map(|s| s.style).unwrap_or(theme.dim),
        ));
    } else {
        out.push(footer);
    }
    out
}

impl App {
    /// A key while the agents modal is open.
    pub(crate) fn agents_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(mut modal) = self.agents.take() else {
            return Vec::new();
        };
        match modal.key(key) {
            Some(actions) => {
                self.agents = Some(modal);
                actions
            }
            None => Vec::new(),
        }
    }
}
