//! One finished block of the conversation and how it is drawn: what the person sent (and
//! attached), the answer as Markdown, thinking folded, a tool call, a child's or swarm's
//! lifecycle, and kigi's own notes.
//!
//! The rule: a cell is a value that never changes once made; its lines are a pure function of
//! it, the width and the theme (the terminal prints them once into its scrollback).

use ratatui::text::{Line, Span};

use crate::lifecycle_view::Lifecycle;
use crate::markdown::render_markdown;
use crate::theme::Theme;
use crate::tool_view::ToolBlock;
use crate::wrap::wrap_line;

/// Lines of a sent prompt shown before the fold (a large paste).
const USER_LINES: usize = 8;
/// Lines of thinking shown in a finished cell before the fold.
const THINKING_LINES: usize = 2;

/// One finished block of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryCell {
    /// What the person sent.
    User(String),
    /// The files (and images) sent with it, as the host attached them: part of the user's
    /// block (printed without a blank line before it).
    Attachments(Vec<String>),
    /// The answer, as Markdown.
    Answer(String),
    /// The model's reasoning, shown dimmed and folded.
    Thinking(String),
    Tool(ToolBlock),
    /// A child's or a swarm's lifecycle: started, or how it ended.
    Lifecycle(Lifecycle),
    /// A note of kigi's (dim).
    Info(String),
    Warning(String),
    Error(String),
}

impl HistoryCell {
    /// The cell's lines at `width`.
    pub fn lines(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        match self {
            Self::User(text) => {
                let lines: Vec<&str> = text.lines().collect();
                let mut out: Vec<Line<'static>> = lines
                    .iter()
                    .take(USER_LINES)
                    .enumerate()
                    .flat_map(|(i, line)| {
                        let lead = if i == 0 { "› " } else { "  " };
                        let line = Line::from(vec![
                            Span::styled(lead, theme.user),
                            Span::styled((*line).to_owned(), theme.text),
                        ]);
                        wrap_line(&line, width, 2)
                    })
                    .collect();
                if lines.len() > USER_LINES {
                    out.push(Line::styled(
                        format!("  … {} more lines", lines.len() - USER_LINES),
                        theme.dim,
                    ));
                }
                out
            }
            Self::Attachments(items) => items
                .iter()
                .flat_map(|item| {
                    let line = Line::from(vec![
                        Span::styled("  ↳ attached ", theme.dim),
                        Span::styled(item.clone(), theme.text),
                    ]);
                    wrap_line(&line, width, 4)
                })
                .collect(),
            Self::Answer(text) => render_markdown(text, width, theme),
            Self::Thinking(text) => {
                let lines: Vec<&str> = text.trim().lines().filter(|l| !l.is_empty()).collect();
                let mut out: Vec<Line<'static>> = lines
                    .iter()
                    .take(THINKING_LINES)
                    .flat_map(|line| {
                        wrap_line(&Line::styled(format!("∴ {line}"), theme.dim), width, 2)
                    })
                    .collect();
                if lines.len() > THINKING_LINES {
                    out.push(Line::styled(
                        format!(
                            "  … {} more lines of thinking",
                            lines.len() - THINKING_LINES
                        ),
                        theme.dim,
                    ));
                }
                out
            }
            Self::Tool(block) => block.lines(width, theme, 0),
            Self::Lifecycle(cell) => cell.lines(width, theme),
            Self::Info(text) => styled_text(text, width, theme.dim),
            Self::Warning(text) => styled_text(text, width, theme.warning),
            Self::Error(text) => styled_text(text, width, theme.error),
        }
    }
}

impl HistoryCell {
    /// Whether the cell continues the one before it (no blank line between them).
    pub fn joins_previous(&self) -> bool {
        matches!(self, Self::Attachments(_))
    }
}

fn styled_text(text: &str, width: usize, style: ratatui::style::Style) -> Vec<Line<'static>> {
    text.lines()
        .flat_map(|line| wrap_line(&Line::styled(line.to_owned(), style), width, 2))
        .collect()
}
