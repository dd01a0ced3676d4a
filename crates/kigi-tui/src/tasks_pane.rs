//! The tasks pane (Ctrl+B): a collapsible "Subagents" group listing every child of the
//! session (spinner or final icon, description, type, model, elapsed time, tokens, activity),
//! swarms as rows that expand to their members, then a collapsible "Background commands"
//! group (once there is one); arrow keys select, Enter inspects (opens the framed view), `k`
//! kills a running child after a confirmation.
//!
//! The rule: the pane holds only what is selected and folded; its rows are recomputed from
//! the transcript on every frame, so a child that starts or ends never leaves a stale row.
//! Killing is an [`Action`] the event loop carries out through the host.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::{Action, App};
use crate::background_commands::{BackgroundCommand, CommandEnd};
use crate::children::{Child, ChildStatus, compact_count, format_elapsed};
use crate::framed_view::Framed;
use crate::theme::Theme;
use crate::tool_view::SPINNER;
use crate::transcript::Transcript;
use crate::wrap::{text_width, truncate};

/// Rows of the pane shown at once (the selection stays in view).
const PANE_ROWS: usize = 10;

/// What the pane remembers between frames.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TasksPane {
    /// Index into [`pane_rows`].
    pub selected: usize,
    /// The "Subagents" group is folded.
    pub collapsed: bool,
    /// The "Background commands" group is folded.
    pub commands_collapsed: bool,
    /// The swarms (by call id) unfolded to their members.
    pub expanded: Vec<String>,
    /// The child a kill waits for a yes on.
    pub confirm_kill: Option<String>,
}

/// One row of the pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneRow {
    /// The "Subagents" group's header.
    Group,
    /// `transcript.children[i]`, not in a swarm.
    Child(usize),
    /// `transcript.swarms[i]`.
    Swarm(usize),
    /// `transcript.children[i]`, a member of an unfolded swarm.
    Member(usize),
    /// The "Background commands" group's header.
    CommandGroup,
    /// `transcript.commands[i]`.
    Command(usize),
}

/// The pane's rows, top to bottom.
pub fn pane_rows(t: &Transcript, pane: &TasksPane) -> Vec<PaneRow> {
    let mut rows = vec![PaneRow::Group];
    if !pane.collapsed {
        subagent_rows(t, pane, &mut rows);
    }
    if !t.commands.is_empty() {
        rows.push(PaneRow::CommandGroup);
        if !pane.commands_collapsed {
            rows.extend((0..t.commands.len()).map(PaneRow::Command));
        }
    }
    rows
}

/// The unfolded "Subagents" group's rows: swarms (and their members when unfolded), then the
/// children outside swarms.
fn subagent_rows(t: &Transcript, pane: &TasksPane, rows: &mut Vec<PaneRow>) {
    for (i, swarm) in t.swarms.iter().enumerate() {
        rows.push(PaneRow::Swarm(i));
        if pane.expanded.contains(&swarm.call_id) {
            for member in &swarm.members {
                if let Some(at) = t.children.iter().position(|c| &c.id == member) {
                    rows.push(PaneRow::Member(at));
                }
            }
        }
    }
    rows.extend(
        t.children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.swarm.is_none())
            .map(|(i, _)| PaneRow::Child(i)),
    );
}

/// A background command's row: icon, command, how it ended (or that it runs), elapsed, id.
fn command_row(
    app: &App,
    command: &BackgroundCommand,
    width: usize,
    style: Style,
) -> Line<'static> {
    let theme = &app.theme;
    let mark = match command.finish {
        None => Span::styled(SPINNER[app.frame % SPINNER.len()], theme.accent),
        Some((end, _)) if end.succeeded() => Span::styled("✓", theme.ok),
        Some((CommandEnd::Killed, _)) => Span::styled("◌", theme.dim),
        Some(_) => Span::styled("✗", theme.error),
    };
    let state = command
        .finish
        .map_or_else(|| "running".to_owned(), |(end, _)| end.describe());
    let mut rest = format!(
        "{state} · {} · {}",
        format_elapsed(command.elapsed(app.now)),
        command.task_id
    );
    if command.agent_id != kigi_protocol::MAIN_AGENT_ID {
        rest.push_str(&format!(" · {}", command.agent_id));
    }
    let command_width = width.saturating_sub(4).clamp(8, 40);
    let rest_width = width.saturating_sub(4 + command_width + 2);
    Line::from(vec![
        Span::raw("  "),
        mark,
        Span::raw(" "),
        Span::styled(column(&command.command, command_width), style),
        Span::raw("  "),
        Span::styled(truncate(&rest, rest_width), theme.dim),
    ])
}

/// A child's icon: a spinner while it runs, then how it ended.
pub fn child_mark(child: &Child, frame: usize, theme: &Theme) -> Span<'static> {
    match child.finish.as_ref().map(|f| f.end) {
        None => Span::styled(SPINNER[frame % SPINNER.len()], theme.accent),
        Some(ChildStatus::Completed) => Span::styled("✓", theme.ok),
        Some(ChildStatus::Failed | ChildStatus::TimedOut) => Span::styled("✗", theme.error),
        Some(ChildStatus::Cancelled) => Span::styled("◌", theme.dim),
    }
}

/// `text` cut or padded to exactly `width` columns.
fn column(text: &str, width: usize) -> String {
    let cut = truncate(text, width);
    let pad = width.saturating_sub(text_width(&cut));
    format!("{cut}{}", " ".repeat(pad))
}

fn child_row(
    app: &App,
    child: &Child,
    indent: &str,
    width: usize,
    style: ratatui::style::Style,
) -> Line<'static> {
    let theme = &app.theme;
    let elapsed = format_elapsed(child.elapsed(app.now));
    let tokens = format!("{} tok", compact_count(child.tokens));
    let desc_width = width.saturating_sub(indent.len() + 2).clamp(8, 32);
    let rest = format!(
        "{} · {} · {elapsed} · {tokens} · {}",
        child.label(),
        child.model,
        child.activity
    );
    let rest_width = width.saturating_sub(indent.len() + 2 + desc_width + 2);
    Line::from(vec![
        Span::raw(indent.to_owned()),
        child_mark(child, app.frame, theme),
        Span::raw(" "),
        Span::styled(column(&child.description, desc_width), style),
        Span::raw("  "),
        Span::styled(truncate(&rest, rest_width), theme.dim),
    ])
}

/// The pane's lines at `width`.
pub fn tasks_pane_lines(app: &App, pane: &TasksPane, width: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let t = &app.transcript;
    let rows = pane_rows(t, pane);
    let selected = pane.selected.min(rows.len().saturating_sub(1));
    let start = selected.saturating_sub(PANE_ROWS - 1);
    let mut out = Vec::new();
    for (i, row) in rows.iter().enumerate().skip(start).take(PANE_ROWS) {
        let style = if i == selected {
            theme.selected
        } else {
            theme.text
        };
        out.push(match *row {
            PaneRow::Group => {
                let fold = if pane.collapsed { "▸" } else { "▾" };
                let running = t.running_children();
                Line::from(vec![
                    Span::styled(format!("{fold} Subagents"), style),
                    Span::styled(
                        format!("  {running} running · {} in all", t.children.len()),
                        theme.dim,
                    ),
                ])
            }
            PaneRow::Child(at) | PaneRow::Member(at) => {
                let indent = if matches!(row, PaneRow::Member(_)) {
                    "      "
                } else {
                    "  "
                };
                match t.children.get(at) {
                    Some(child) => child_row(app, child, indent, width, style),
                    None => Line::default(),
                }
            }
            PaneRow::CommandGroup => {
                let fold = if pane.commands_collapsed {
                    "▸"
                } else {
                    "▾"
                };
                Line::from(vec![
                    Span::styled(format!("{fold} Background commands"), style),
                    Span::styled(
                        format!(
                            "  {} running · {} in all",
                            t.running_commands(),
                            t.commands.len()
                        ),
                        theme.dim,
                    ),
                ])
            }
            PaneRow::Command(at) => match t.commands.get(at) {
                Some(command) => command_row(app, command, width, style),
                None => Line::default(),
            },
            PaneRow::Swarm(at) => match t.swarms.get(at) {
                Some(swarm) => {
                    let fold = if pane.expanded.contains(&swarm.call_id) {
                        "▾"
                    } else {
                        "▸"
                    };
                    let mark = if swarm.running() {
                        Span::styled(SPINNER[app.frame % SPINNER.len()], theme.accent)
                    } else if swarm.had_failures() {
                        Span::styled("✗", theme.error)
                    } else {
                        Span::styled("✓", theme.ok)
                    };
                    Line::from(vec![
                        Span::raw("  "),
                        mark,
                        Span::styled(
                            truncate(
                                &format!(" {fold} {}", swarm.summary()),
                                width.saturating_sub(3),
                            ),
                            style,
                        ),
                    ])
                }
                None => Line::default(),
            },
        });
        if *row == PaneRow::Group && t.children.is_empty() && !pane.collapsed {
            out.push(Line::styled("  No subagents yet", theme.dim));
        }
    }
    match &pane.confirm_kill {
        Some(id) => out.push(Line::styled(
            truncate(
                &format!("Kill {id}? y kills it · n or Esc keeps it running"),
                width,
            ),
            theme.warning,
        )),
        None => out.push(Line::styled(
            truncate(
                "↑↓ select · Enter inspects · k kills · Esc or Ctrl+B closes",
                width,
            ),
            theme.dim,
        )),
    }
    out
}

impl App {
    /// A key while the tasks pane is open.
    pub(crate) fn tasks_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(mut pane) = self.tasks.take() else {
            return Vec::new();
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let rows = pane_rows(&self.transcript, &pane);
        let selected = pane.selected.min(rows.len().saturating_sub(1));
        let mut actions = Vec::new();
        if let Some(id) = pane.confirm_kill.take() {
            if matches!(key.code, KeyCode::Char('y' | 'Y')) {
                actions.push(Action::KillSubagent(id));
            }
            self.tasks = Some(pane);
            return actions;
        }
        match key.code {
            KeyCode::Esc => return actions,
            KeyCode::Char('b') if ctrl => return actions,
            KeyCode::Up => pane.selected = selected.saturating_sub(1),
            KeyCode::Down => pane.selected = (selected + 1).min(rows.len().saturating_sub(1)),
            KeyCode::Enter | KeyCode::Char('f') => match rows.get(selected) {
                Some(PaneRow::Group) => pane.collapsed = !pane.collapsed,
                Some(PaneRow::CommandGroup) => pane.commands_collapsed = !pane.commands_collapsed,
                // A command has nothing more to show than its row.
                Some(PaneRow::Command(_)) => {}
                Some(PaneRow::Swarm(at)) => {
                    if let Some(swarm) = self.transcript.swarms.get(*at) {
                        let id = swarm.call_id.clone();
                        match pane.expanded.iter().position(|e| *e == id) {
                            Some(open) => {
                                pane.expanded.remove(open);
                            }
                            None => pane.expanded.push(id),
                        }
                    }
                }
                Some(PaneRow::Child(at) | PaneRow::Member(at)) => {
                    if let Some(child) = self.transcript.children.get(*at) {
                        self.framed = Some(Framed::new(&child.id));
                    }
                }
                None => {}
            },
            KeyCode::Char('k') => {
                if let Some(PaneRow::Child(at) | PaneRow::Member(at)) = rows.get(selected)
                    && let Some(child) = self.transcript.children.get(*at)
                    && child.running()
                {
                    pane.confirm_kill = Some(child.id.clone());
                }
            }
            _ => {}
        }
        self.tasks = Some(pane);
        actions
    }

    /// Ctrl+B: opens the pane on its first child, or closes it.
    pub(crate) fn toggle_tasks(&mut self) {
        self.tasks = match self.tasks.take() {
            Some(_) => None,
            None => Some(TasksPane {
                selected: usize::from(!self.transcript.children.is_empty()),
                ..TasksPane::default()
            }),
        };
    }
}
