//! The lifecycle blocks of the agent tree in the parent's conversation: the printed ones (a
//! background child started; a child or a swarm ended, its bullet in its final colour), and
//! the live ones: one line per running child (`Subagent running: "…" (explore · sub-1) — Running: cargo test`) and one per
//! running swarm (`Swarm "…": 37/128 done · 2 failed · 8 running`), each with a spinner.
//!
//! The rule: a pure function of the transcript; a swarm's members never get lines of their
//! own here (the swarm's block counts them, the tasks pane lists them), so 128 members cost
//! one line.

use ratatui::text::{Line, Span};

use crate::children::{Child, ChildFinish, ChildStatus, compact_count, format_elapsed};
use crate::theme::Theme;
use crate::transcript::Transcript;
use crate::wrap::{truncate, wrap_line};

/// Blocks shown before the rest are counted.
const BLOCKS: usize = 5;

/// The live lines of running children and swarms at `width`, `spinner` their bullet.
pub fn lifecycle_lines(
    t: &Transcript,
    spinner: &str,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut texts: Vec<String> = Vec::new();
    for swarm in t.swarms.iter().filter(|s| s.running()) {
        let running = swarm
            .members
            .iter()
            .filter(|id| t.child(id).is_some_and(Child::running))
            .count();
        texts.push(format!("{} · {running} running", swarm.summary()));
    }
    let mut hidden = 0;
    for child in t
        .children
        .iter()
        .filter(|c| c.running() && c.swarm.is_none())
    {
        if texts.len() >= BLOCKS {
            hidden += 1;
            continue;
        }
        texts.push(running_text(child));
    }
    let mut out: Vec<Line<'static>> = texts
        .iter()
        .map(|text| {
            Line::from(vec![
                Span::styled(format!("{spinner} "), theme.accent),
                Span::styled(truncate(text, width.saturating_sub(2)), theme.text),
            ])
        })
        .collect();
    if hidden > 0 {
        out.push(Line::styled(
            format!("  … {hidden} more subagents running (Ctrl+B lists them)"),
            theme.dim,
        ));
    }
    out
}

/// `Subagent running: "…" (explore · sub-1) — Thinking`; a background child's line says it
/// runs in the background.
pub fn running_text(child: &Child) -> String {
    let how = if child.background {
        "running in the background"
    } else {
        "running"
    };
    format!(
        "Subagent {how}: \"{}\" ({} · {}) — {}",
        child.description,
        child.label(),
        child.id,
        child.activity
    )
}

/// The bullet of a lifecycle block: its colour says how the child (or swarm) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LifecycleMark {
    Started,
    Completed,
    Failed,
    Cancelled,
}

impl LifecycleMark {
    pub fn of(end: ChildStatus) -> Self {
        match end {
            ChildStatus::Completed => Self::Completed,
            ChildStatus::Cancelled => Self::Cancelled,
            ChildStatus::Failed | ChildStatus::TimedOut => Self::Failed,
        }
    }

    pub fn style(self, theme: &Theme) -> ratatui::style::Style {
        match self {
            Self::Started => theme.accent,
            Self::Completed => theme.ok,
            Self::Failed => theme.error,
            Self::Cancelled => theme.dim,
        }
    }
}

/// A finished lifecycle block: `● Subagent completed in 4.2s: "…"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lifecycle {
    pub mark: LifecycleMark,
    pub text: String,
    /// What follows in dim (`3 tool calls · 1.2k tokens · scripted`).
    pub detail: String,
}

impl Lifecycle {
    pub fn lines(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut spans = vec![
            Span::styled("● ", self.mark.style(theme)),
            Span::styled(self.text.clone(), theme.text),
        ];
        if !self.detail.is_empty() {
            spans.push(Span::styled(format!(" — {}", self.detail), theme.dim));
        }
        wrap_line(&Line::from(spans), width, 2)
    }
}

/// The block printed when a child ends: a foreground child's one entry in its final colour,
/// or a background child's follow-up (`Subagent completed in 4.2s: "…"`).
pub(crate) fn finished_cell(child: &Child, finish: &ChildFinish) -> Lifecycle {
    let status = finish.end.label();
    let elapsed = format_elapsed(finish.elapsed);
    let mut detail = format!(
        "{} tool calls · {} tokens · {}",
        finish.tool_calls,
        compact_count(child.tokens),
        child.model
    );
    if let Some(error) = &finish.error {
        detail.push_str(&format!(" · {}", error.lines().next().unwrap_or_default()));
    }
    let text = if child.background {
        format!(
            "Subagent {status} in {elapsed}: \"{}\" ({} · {})",
            child.description,
            child.label(),
            child.id
        )
    } else {
        detail = format!("{elapsed} · {detail}");
        format!(
            "Subagent {status}: \"{}\" ({} · {})",
            child.description,
            child.label(),
            child.id
        )
    };
    Lifecycle {
        mark: LifecycleMark::of(finish.end),
        text,
        detail,
    }
}
