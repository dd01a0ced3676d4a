//! The framed child view: a child's whole conversation (its prompt, thinking, answers, tool
//! calls, live while it runs) in a bordered frame that takes the place of the parent's live
//! area. The title bar: status icon, type, bold description, a `resumed` badge when it
//! continues an earlier child (`from disk` when it ran before the session was resumed, its
//! conversation read from its transcript), model, activity · elapsed, and a close mark; `q` or Esc
//! returns to the parent, ←/→ step to the previous or next child, `m` writes the child a
//! message.
//!
//! The rule: the view observes; the one thing it does to a child is send it a message, and
//! that goes through the host (`send_to_subagent`). It is a pure function of [`App`]; it shows
//! the child's own transcript (built from its tagged events), never the parent's, and
//! approvals still appear below it (an ask must never hide behind a frame).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::app::{Action, App};
use crate::children::{Child, format_elapsed};
use crate::markdown::render_markdown;
use crate::tasks_pane::child_mark;
use crate::theme::Theme;
use crate::wrap::{text_width, truncate, wrap_line};

/// Which child is open, and how far up its conversation is scrolled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Framed {
    pub child_id: String,
    /// Rows up from the newest (0 follows the conversation as it grows).
    pub scroll: usize,
    /// The message being written to the child (`m`), until Enter sends it.
    pub message: Option<String>,
}

impl Framed {
    pub fn new(child_id: &str) -> Self {
        Self {
            child_id: child_id.to_owned(),
            scroll: 0,
            message: None,
        }
    }
}

/// The child's conversation at `width`: finished cells, then what is live.
fn conversation(child: &Child, width: usize, theme: &Theme, frame: usize) -> Vec<Line<'static>> {
    let t = &child.transcript;
    let mut out: Vec<Line<'static>> = Vec::new();
    for cell in &t.cells {
        if !out.is_empty() && !cell.joins_previous() {
            out.push(Line::default());
        }
        out.extend(cell.lines(width, theme));
    }
    if !t.thinking.trim().is_empty() && t.streaming.is_empty() {
        for line in t.thinking.trim().lines().filter(|l| !l.is_empty()) {
            out.extend(wrap_line(
                &Line::styled(format!("∴ {line}"), theme.dim),
                width,
                2,
            ));
        }
    }
    if !t.streaming.is_empty() {
        out.push(Line::default());
        out.extend(render_markdown(&t.streaming, width, theme));
    }
    for block in &t.running {
        out.push(Line::default());
        out.extend(block.lines(width, theme, frame));
    }
    if out.is_empty() {
        out.push(Line::styled("(nothing yet)", theme.dim));
    }
    out
}

/// `line` padded to `width` columns and set between the frame's sides.
fn framed_row(line: Line<'static>, width: usize, theme: &Theme) -> Line<'static> {
    let pad = width.saturating_sub(line.width());
    let mut spans = vec![Span::styled("│ ", theme.dim)];
    spans.extend(line.spans);
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(" │", theme.dim));
    Line::from(spans)
}

/// The frame's title bar: icon, type, bold description, `resumed`, model, activity · elapsed,
/// `[✗]`.
fn title(app: &App, child: &Child, inner: usize) -> Line<'static> {
    let theme = &app.theme;
    let close = " [✗]";
    let head = format!("{} · ", child.label());
    let elapsed = format!(" · {}", format_elapsed(child.elapsed(app.now)));
    // A badge that it continues an earlier child's conversation, or that it ran before the
    // session was resumed and is shown from its transcript on disk.
    let (gap, badge) = match (child.resumed, child.earlier) {
        (true, true) => (" ", " resumed · from disk "),
        (true, false) => (" ", " resumed "),
        (false, true) => (" ", " from disk "),
        (false, false) => ("", ""),
    };
    let room = inner.saturating_sub(
        2 + text_width(&head) + text_width(close) + text_width(gap) + text_width(badge),
    );
    let description = truncate(&child.description, room.saturating_sub(8).max(8));
    // The activity is cut before the elapsed time is.
    let mut tail = truncate(
        &format!(" · {} · {}", child.model, child.activity),
        room.saturating_sub(text_width(&description) + text_width(&elapsed)),
    );
    tail.push_str(&elapsed);
    let tail = truncate(&tail, room.saturating_sub(text_width(&description)));
    let used = 2
        + text_width(&head)
        + text_width(&description)
        + text_width(gap)
        + text_width(badge)
        + text_width(&tail);
    Line::from(vec![
        child_mark(child, app.frame, theme),
        Span::raw(" "),
        Span::styled(head, theme.accent),
        Span::styled(description, theme.text.add_modifier(Modifier::BOLD)),
        Span::raw(gap),
        Span::styled(badge, theme.selected),
        Span::styled(tail, theme.dim),
        Span::raw(" ".repeat(inner.saturating_sub(used + text_width(close)))),
        Span::styled(close, theme.dim),
    ])
}

/// The frame's lines: `height` rows at `width`, for the child `framed` names.
pub fn framed_lines(app: &App, framed: &Framed, width: usize, height: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let width = width.max(12);
    let inner = width - 4;
    let rule = |left: &str, right: &str| {
        Line::styled(format!("{left}{}{right}", "─".repeat(width - 2)), theme.dim)
    };
    let Some(child) = app.transcript.child(&framed.child_id) else {
        return vec![Line::styled(
            format!("{} is not a subagent of this session", framed.child_id),
            theme.warning,
        )];
    };
    let mut out = vec![
        rule("┌", "┐"),
        framed_row(title(app, child, inner), inner, theme),
        rule("├", "┤"),
    ];
    let composing = usize::from(framed.message.is_some());
    let body_rows = height.saturating_sub(4 + composing).max(1);
    let body = conversation(child, inner, theme, app.frame);
    let end = body
        .len()
        .saturating_sub(framed.scroll.min(body.len().saturating_sub(1)));
    let start = end.saturating_sub(body_rows);
    for line in body[start..end].iter().cloned() {
        out.push(framed_row(line, inner, theme));
    }
    for _ in (end - start)..body_rows {
        out.push(framed_row(Line::default(), inner, theme));
    }
    if let Some(message) = &framed.message {
        let lead = format!("message to {} › ", child.id);
        // The newest characters stay in view; `▏` stands for the cursor.
        let room = inner.saturating_sub(text_width(&lead) + 1);
        let shown: String = {
            let mut tail: Vec<char> = Vec::new();
            let mut used = 0;
            for ch in message.chars().rev() {
                used += text_width(&ch.to_string());
                if used > room {
                    break;
                }
                tail.push(ch);
            }
            tail.into_iter().rev().collect()
        };
        out.push(framed_row(
            Line::from(vec![
                Span::styled(lead, theme.accent),
                Span::styled(shown, theme.text),
                Span::styled("▏", theme.accent),
            ]),
            inner,
            theme,
        ));
    }
    let hint = if framed.message.is_some() {
        " Enter sends it through send_to_subagent · Esc drops it "
    } else {
        " Esc/q returns · ←→ other subagents · m messages it · PgUp/PgDn "
    };
    let hint = truncate(hint, width.saturating_sub(4));
    out.push(Line::styled(
        format!(
            "└─{hint}{}┘",
            "─".repeat(width.saturating_sub(3 + text_width(&hint)))
        ),
        theme.dim,
    ));
    out
}

impl App {
    /// A key while a child's frame is open.
    pub(crate) fn framed_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(framed) = &mut self.framed else {
            return Vec::new();
        };
        if let Some(message) = &mut framed.message {
            match key.code {
                KeyCode::Esc => framed.message = None,
                KeyCode::Backspace => {
                    message.pop();
                }
                KeyCode::Char(ch)
                    if !key
                        .modifiers
                        .contains(crossterm::event::KeyModifiers::CONTROL) =>
                {
                    message.push(ch);
                }
                KeyCode::Enter => {
                    let text = message.trim().to_owned();
                    framed.message = None;
                    if text.is_empty() {
                        return Vec::new();
                    }
                    let id = framed.child_id.clone();
                    self.transcript
                        .cells
                        .push(crate::history_cell::HistoryCell::Info(format!(
                            "Message to {id}: {}",
                            text.lines().next().unwrap_or("")
                        )));
                    return vec![Action::Command(
                        kigi_protocol::HostCommand::SendToSubagent { id, text },
                    )];
                }
                _ => {}
            }
            return Vec::new();
        }
        match key.code {
            KeyCode::Char('m') => framed.message = Some(String::new()),
            KeyCode::Esc | KeyCode::Char('q') => self.framed = None,
            KeyCode::PageUp | KeyCode::Up => {
                framed.scroll += if key.code == KeyCode::Up { 1 } else { 10 }
            }
            KeyCode::PageDown | KeyCode::Down => {
                let step = if key.code == KeyCode::Down { 1 } else { 10 };
                framed.scroll = framed.scroll.saturating_sub(step);
            }
            KeyCode::Left | KeyCode::Right => {
                let ids: Vec<&str> = self
                    .transcript
                    .children
                    .iter()
                    .map(|c| c.id.as_str())
                    .collect();
                if let Some(at) = ids.iter().position(|id| *id == framed.child_id) {
                    let next = if key.code == KeyCode::Left {
                        (at + ids.len() - 1) % ids.len()
                    } else {
                        (at + 1) % ids.len()
                    };
                    *framed = Framed::new(ids[next]);
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// Ctrl+F, or Enter on an empty prompt under a child's block: opens the running
    /// foreground child (the one the parent waits for), else the newest running child outside
    /// a swarm, else (`running_only` false) the newest child. `false` when there is none.
    pub(crate) fn open_newest_child(&mut self, running_only: bool) -> bool {
        let children = &self.transcript.children;
        let live = |c: &&crate::children::Child| c.running() && c.swarm.is_none();
        let pick = children
            .iter()
            .rev()
            .find(|c| live(c) && !c.background)
            .or_else(|| children.iter().rev().find(live))
            .or_else(|| (!running_only).then(|| children.last()).flatten());
        match pick {
            Some(child) => {
                self.framed = Some(Framed::new(&child.id));
                true
            }
            None => false,
        }
    }
}
