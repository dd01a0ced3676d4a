//! The live area at the bottom of the terminal: calls running, the answer streaming in,
//! children at work, queued messages, then the prompt (or an approval, or the `/resume`
//! picker), the command popup and the status line.
//!
//! The rule: a pure function of [`App`]: same state, same cells. The area is never taller
//! than the height it is given; what does not fit is cut from the top of the live part (the
//! newest lines of a streaming answer stay visible), never from the prompt or the status.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::agents_modal::agents_modal_lines;
use crate::app::App;
use crate::approval::approval_lines;
use crate::children::compact_count;
use crate::framed_view::framed_lines;
use crate::lifecycle_view::lifecycle_lines;
use crate::markdown::render_markdown;
use crate::palette::palette_lines;
use crate::slash;
use crate::tasks_pane::tasks_pane_lines;
use crate::todos::todo_pane_lines;
use crate::tool_view::SPINNER;
use crate::wrap::{truncate, wrap_line};

/// Rows of the `/resume` picker.
const PICKER_ROWS: usize = 8;

/// The live area's lines at `width`, at most `max_height` of them, and the cursor (column,
/// row) when the prompt has it.
pub fn live_lines(
    app: &App,
    width: usize,
    max_height: usize,
) -> (Vec<Line<'static>>, Option<(u16, u16)>) {
    let theme = &app.theme;
    let width = width.max(1);
    let spinner = SPINNER[app.frame % SPINNER.len()];
    let t = &app.transcript;
    let mut top: Vec<Line<'static>> = Vec::new();
    for block in &t.running {
        top.extend(block.lines(width, theme, app.frame));
    }
    if t.streaming.is_empty() && !t.thinking.trim().is_empty() {
        let lines: Vec<&str> = t.thinking.trim().lines().collect();
        for line in lines.iter().skip(lines.len().saturating_sub(2)) {
            top.extend(wrap_line(
                &Line::styled(format!("∴ {line}"), theme.dim),
                width,
                2,
            ));
        }
    }
    if !t.streaming.is_empty() {
        top.extend(render_markdown(&t.streaming, width, theme));
    }
    if app.busy && t.streaming.is_empty() && t.running.is_empty() {
        let activity = t.activity.as_deref().unwrap_or("Working");
        top.push(Line::from(vec![
            Span::styled(format!("{spinner} "), theme.accent),
            Span::styled(
                truncate(
                    &format!("{activity}… (Esc to interrupt)"),
                    width.saturating_sub(2),
                ),
                theme.dim,
            ),
        ]));
    }
    top.extend(lifecycle_lines(t, spinner, width, theme));
    for queued in &app.queued {
        let first = queued.lines().next().unwrap_or_default();
        top.push(Line::styled(
            truncate(&format!("  ↳ queued: {first}"), width),
            theme.dim,
        ));
    }

    let mut bottom: Vec<Line<'static>> = Vec::new();
    bottom.push(Line::styled("─".repeat(width), theme.dim));
    if app.todos_open {
        bottom.extend(todo_pane_lines(&t.todos, width, theme));
    }
    if let Some(pane) = &app.tasks {
        bottom.extend(tasks_pane_lines(app, pane, width));
    }
    let mut cursor = None;
    if let Some(modal) = &app.agents {
        bottom.extend(agents_modal_lines(modal, width, theme));
    } else if let Some(palette) = &app.palette {
        bottom.extend(palette_lines(palette, width, theme));
    } else if let Some(picker) = &app.picker {
        bottom.push(Line::styled(
            "Resume a session (Enter opens, Esc closes)",
            theme.accent,
        ));
        let start = picker.selected.saturating_sub(PICKER_ROWS - 1);
        for (i, item) in picker
            .items
            .iter()
            .enumerate()
            .skip(start)
            .take(PICKER_ROWS)
        {
            let style = if i == picker.selected {
                theme.selected
            } else {
                theme.text
            };
            let when: String = item.last_used.chars().take(16).collect();
            let text = format!(
                "{when}  {}  ({} turns)  {}",
                item.first_prompt.lines().next().unwrap_or(""),
                item.turns,
                item.id
            );
            bottom.push(Line::styled(truncate(&text, width), style));
        }
    } else if let Some(search) = &app.history_search {
        let found = search
            .found
            .as_ref()
            .map_or("(no match)", |(_, text)| text.lines().next().unwrap_or(""));
        bottom.push(Line::from(vec![
            Span::styled("history search ", theme.accent),
            Span::styled(format!("`{}`: ", search.query), theme.text),
            Span::styled(
                truncate(found, width.saturating_sub(20 + search.query.len())),
                theme.dim,
            ),
        ]));
        bottom.push(Line::styled(
            "Ctrl+R older · Enter takes it · Esc cancels",
            theme.dim,
        ));
    } else if let Some(ask) = app.approvals.front() {
        bottom.extend(approval_lines(
            ask,
            app.approvals.len(),
            app.approval_choice,
            app.deny_reason.as_deref(),
            width,
            theme,
        ));
    } else {
        let placeholder = if app.busy {
            "Type to queue a message for the agent"
        } else {
            "Ask kigi, or / for commands"
        };
        let (rows, (col, row)) = app.composer.view(width, theme, placeholder);
        cursor = Some((col, (bottom.len() + row as usize) as u16));
        bottom.extend(rows);
        for (i, path) in app.mention_matches().iter().enumerate() {
            let style = if i == app.mention_selected {
                theme.selected
            } else {
                theme.text
            };
            bottom.push(Line::styled(truncate(&format!("  @{path}"), width), style));
        }
        let completions = slash::completions(app.composer.text());
        for (i, (name, help)) in completions.iter().enumerate() {
            let style = if i == app.slash_selected {
                theme.selected
            } else {
                theme.text
            };
            bottom.push(Line::from(vec![
                Span::styled(format!("  {name:<13} "), style),
                Span::styled(truncate(help, width.saturating_sub(16)), theme.dim),
            ]));
        }
    }
    bottom.push(status_line(app, width));
    if let Some(framed) = &app.framed {
        // The frame takes the parent's live part; an ask still shows below it.
        let mut lines = Vec::new();
        if let Some(ask) = app.approvals.front() {
            lines = approval_lines(
                ask,
                app.approvals.len(),
                app.approval_choice,
                app.deny_reason.as_deref(),
                width,
                theme,
            );
        }
        lines.push(status_line(app, width));
        let room = max_height.max(1).saturating_sub(lines.len());
        let mut out = framed_lines(app, framed, width, room);
        out.truncate(room);
        out.extend(lines);
        return (out, None);
    }

    // What does not fit is cut from the top of the live part, then from the prompt's top.
    let room = max_height.max(1);
    if bottom.len() > room {
        let cut = bottom.len() - room;
        bottom.drain(..cut);
        cursor = cursor.and_then(|(c, r)| (r as usize).checked_sub(cut).map(|r| (c, r as u16)));
        top.clear();
    }
    let keep_top = room - bottom.len();
    if top.len() > keep_top {
        top.drain(..top.len() - keep_top);
    }
    let offset = top.len() as u16;
    top.extend(bottom);
    (
        top,
        cursor.map(|(c, r)| (c.min(width.saturating_sub(1) as u16), r + offset)),
    )
}

/// The status line: model, permission mode, tokens, children, background commands, queued
/// messages.
pub fn status_line(app: &App, width: usize) -> Line<'static> {
    let t = &app.transcript;
    if app.quit_armed {
        return Line::styled(
            truncate("Press Ctrl+C again to quit", width),
            app.theme.warning,
        );
    }
    let mut parts = vec![
        t.model.clone().unwrap_or_else(|| "…".into()),
        app.mode.spelling().to_owned(),
        format!("{} tokens", compact_count(t.tokens.input + t.tokens.output)),
    ];
    if let Some(window) = app.context_window.filter(|w| *w > 0) {
        let share = (t.context_tokens as f64 / window as f64 * 100.0).round();
        parts.push(format!("{share}% of {} context", compact_count(window)));
    }
    let running = t.running_children();
    if running > 0 {
        parts.push(format!("{running} running"));
    }
    let commands = t.running_commands();
    if commands > 0 {
        let s = if commands == 1 { "" } else { "s" };
        parts.push(format!("{commands} background command{s}"));
    }
    if !app.queued.is_empty() {
        parts.push(format!("{} queued", app.queued.len()));
    }
    if app.approvals.len() > 1 {
        parts.push(format!("{} asks waiting", app.approvals.len()));
    }
    Line::styled(truncate(&parts.join(" · "), width), app.theme.status)
}

/// Draws the live area into `buf` at `area`; returns the cursor relative to `area`.
pub fn render_live(app: &App, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
    let (lines, cursor) = live_lines(app, area.width as usize, area.height as usize);
    for (i, line) in lines.iter().enumerate() {
        buf.set_line(area.x, area.y + i as u16, line, area.width);
    }
    cursor
}
