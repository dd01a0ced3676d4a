//! One tool call as one compact block: a status mark (a spinner while it runs), a verb and
//! the one argument a person looks for (`Read src/main.rs`, `Run cargo test`), then its
//! output folded to a few lines, or, for an edit, a coloured unified diff.
//!
//! The rule: the block reads the call and its result, never the file system; a fold always
//! says how many lines it left out.

use kigi_protocol::{CanonicalToolMeta, ToolKind, ToolStatus};
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::theme::Theme;
use crate::wrap::{truncate, wrap_line};

/// Output lines shown under a finished call before the fold.
const OUTPUT_LINES: usize = 4;
/// Diff lines shown under an edit before the fold.
const DIFF_LINES: usize = 24;
/// Braille spinner frames.
pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// A tool call, running or finished.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolBlock {
    pub call_id: String,
    /// The agent that made the call (`main`, `sub-2`).
    pub agent_id: String,
    pub kind: ToolKind,
    /// `Read src/main.rs`.
    pub title: String,
    /// A unified diff, for edits and writes.
    pub diff: Option<String>,
    /// `None` while it runs.
    pub status: Option<ToolStatus>,
    pub output: String,
}

impl ToolBlock {
    /// The block of a tool-call event.
    pub fn new(
        call_id: &str,
        agent_id: &str,
        name: &str,
        raw_input: &str,
        meta: Option<&CanonicalToolMeta>,
    ) -> Self {
        let input: Value = serde_json::from_str(raw_input).unwrap_or(Value::Null);
        let kind = meta.map_or(ToolKind::Other, |m| m.kind);
        let diff = match kind {
            ToolKind::Edit if input.get("old_string").is_some() => {
                Some(kigi_core::approval_summary("search_replace", &input))
            }
            ToolKind::Write if input.get("content").is_some() => {
                Some(kigi_core::approval_summary("write_file", &input))
            }
            _ => None,
        };
        Self {
            call_id: call_id.to_owned(),
            agent_id: agent_id.to_owned(),
            kind,
            title: tool_title(name, meta, &input),
            diff,
            status: None,
            output: String::new(),
        }
    }

    /// The block's lines at `width`; `frame` picks the spinner's frame while it runs.
    pub fn lines(&self, width: usize, theme: &Theme, frame: usize) -> Vec<Line<'static>> {
        let (mark, mark_style) = match self.status {
            None => (SPINNER[frame % SPINNER.len()], theme.accent),
            Some(ToolStatus::Completed) => ("✓", theme.ok),
            Some(ToolStatus::Failed) => ("✗", theme.error),
            Some(ToolStatus::Refused) => ("⊘", theme.warning),
            Some(ToolStatus::Cancelled) => ("◌", theme.dim),
        };
        let mut head = vec![
            Span::styled(format!("{mark} "), mark_style),
            Span::styled(self.title.clone(), theme.text),
        ];
        if self.agent_id != kigi_protocol::MAIN_AGENT_ID {
            head.push(Span::styled(format!("  ({})", self.agent_id), theme.dim));
        }
        match self.status {
            Some(ToolStatus::Refused) => head.push(Span::styled("  denied", theme.warning)),
            Some(ToolStatus::Cancelled) => head.push(Span::styled("  cancelled", theme.dim)),
            Some(ToolStatus::Failed) => head.push(Span::styled("  failed", theme.error)),
            _ => {}
        }
        let mut out = wrap_line(&Line::from(head), width, 2);
        let body_width = width.saturating_sub(4).max(8);
        let show_diff =
            self.diff.is_some() && matches!(self.status, None | Some(ToolStatus::Completed));
        if let (true, Some(diff)) = (show_diff, &self.diff) {
            out.extend(diff_lines(diff, body_width, theme));
        } else if self.status.is_some() {
            out.extend(self.folded_output(body_width, theme));
        }
        out
    }

    fn folded_output(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let lines: Vec<&str> = self.output.trim_end().lines().collect();
        if lines.is_empty() {
            return Vec::new();
        }
        // A read's content is for the model: its size is what a person wants to see.
        if matches!(self.kind, ToolKind::Read) && self.status == Some(ToolStatus::Completed) {
            return vec![Line::styled(
                format!("  └ {} lines", lines.len()),
                theme.dim,
            )];
        }
        let shown = lines.len().min(OUTPUT_LINES);
        let mut out: Vec<Line<'static>> = lines
            .iter()
            .take(shown)
            .enumerate()
            .map(|(i, line)| {
                let lead = if i == 0 { "  └ " } else { "    " };
                Line::styled(
                    format!("{lead}{}", truncate(&printable_line(line), width)),
                    theme.dim,
                )
            })
            .collect();
        if lines.len() > shown {
            out.push(Line::styled(
                format!("    … {} more lines", lines.len() - shown),
                theme.dim,
            ));
        }
        out
    }
}

/// One line of a tool's output as the terminal may show it: a tab is a space (its width
/// depends on the column, which the terminal and the layout would disagree on) and other
/// control characters (a command's colour codes, a stray escape) are left out, never obeyed.
fn printable_line(line: &str) -> String {
    line.chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

/// A unified diff, coloured line by line, folded after [`DIFF_LINES`].
pub fn diff_lines(diff: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let lines: Vec<&str> = diff.trim_end().lines().collect();
    let mut out: Vec<Line<'static>> = lines
        .iter()
        .take(DIFF_LINES)
        .map(|line| {
            let style = if line.starts_with("+++") || line.starts_with("---") {
                theme.dim
            } else if line.starts_with('+') {
                theme.added
            } else if line.starts_with('-') {
                theme.removed
            } else if line.starts_with("@@") {
                theme.accent
            } else {
                theme.dim
            };
            Line::styled(format!("    {}", truncate(line, width)), style)
        })
        .collect();
    if lines.len() > DIFF_LINES {
        out.push(Line::styled(
            format!("    … {} more lines", lines.len() - DIFF_LINES),
            theme.dim,
        ));
    }
    out
}

/// A short title: a verb for the call's kind and the one argument a person looks for.
pub fn tool_title(name: &str, meta: Option<&CanonicalToolMeta>, input: &Value) -> String {
    let verb = match meta.map(|m| m.kind) {
        Some(ToolKind::Read) => "Read",
        Some(ToolKind::Edit) => "Edit",
        Some(ToolKind::Write) => "Write",
        Some(ToolKind::Delete) => "Delete",
        Some(ToolKind::Move) => "Move",
        Some(ToolKind::Execute) => "Run",
        Some(ToolKind::Search) => "Search",
        Some(ToolKind::ListDir | ToolKind::List) => "List",
        Some(ToolKind::WebFetch) => "Fetch",
        Some(ToolKind::WebSearch) => "Web search",
        Some(ToolKind::Task) => "Agent",
        Some(ToolKind::Plan) => "Plan",
        _ => meta.map_or(name, |m| m.label.as_str()),
    };
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let subject = text("command")
        .or_else(|| text("path"))
        .or_else(|| text("file_path"))
        .or_else(|| text("pattern"))
        .or_else(|| text("description"))
        .or_else(|| text("url"))
        .or_else(|| text("query"));
    match subject {
        Some(subject) => {
            let first = subject.lines().next().unwrap_or_default();
            let more = if subject.lines().nth(1).is_some() {
                "…"
            } else {
                ""
            };
            format!("{verb} {}{more}", truncate(first, 100))
        }
        None => verb.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ThemeName;

    #[test]
    fn output_tabs_and_control_characters_never_reach_the_terminal() {
        let mut block = ToolBlock::new("k1", "main", "run_terminal_cmd", "{}", None);
        block.status = Some(ToolStatus::Completed);
        block.output = "     1\thi\n\u{1b}[31mred\u{1b}[0m\r\n".into();
        let theme = Theme::new(ThemeName::Night, true);
        let text: Vec<String> = block
            .lines(40, &theme, 0)
            .iter()
            .skip(1)
            .map(ToString::to_string)
            .collect();
        assert_eq!(text, ["  └      1 hi", "    [31mred[0m"]);
    }
}
