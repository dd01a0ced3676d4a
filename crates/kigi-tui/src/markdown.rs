//! Markdown (CommonMark with tables and strikethrough) to styled terminal lines at a width:
//! headings, emphasis, inline code, lists, block quotes, code blocks, tables, rules.
//!
//! The rule: pure and total. Any text, finished or cut mid-stream (an open code fence, half a
//! table), renders to lines no wider than `width`; nothing here fails.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::code_highlight::highlight;
use crate::theme::Theme;
use crate::wrap::{text_width, truncate, wrap_line};

/// `text` rendered for a terminal `width` columns wide.
pub fn render_markdown(text: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut writer = Writer::new(width.max(8), theme);
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(text, options) {
        writer.event(event);
    }
    writer.flush_line();
    while writer.out.last().is_some_and(|l| l.width() == 0) {
        writer.out.pop();
    }
    writer.out
}

struct ListState {
    next: Option<u64>,
}

#[derive(Default)]
struct TableState {
    alignments: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    header_rows: usize,
    in_head: bool,
}

struct Writer<'t> {
    width: usize,
    theme: &'t Theme,
    out: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    styles: Vec<Style>,
    lists: Vec<ListState>,
    /// The prefix of the current line (list markers, quote bars) and the continuation indent.
    prefix: Vec<Span<'static>>,
    indent: usize,
    quote_depth: usize,
    code: Option<Vec<String>>,
    /// The open code block's info string (`rust`, `py title="x"`).
    code_lang: String,
    table: Option<TableState>,
    link: Option<String>,
}

impl<'t> Writer<'t> {
    fn new(width: usize, theme: &'t Theme) -> Self {
        Self {
            width,
            theme,
            out: Vec::new(),
            current: Vec::new(),
            styles: vec![theme.text],
            lists: Vec::new(),
            prefix: Vec::new(),
            indent: 0,
            quote_depth: 0,
            code: None,
            code_lang: String::new(),
            table: None,
            link: None,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, style: Style) {
        let merged = self.style().patch(style);
        self.styles.push(merged);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn blank(&mut self) {
        if self.out.last().is_some_and(|l| l.width() > 0) {
            self.out.push(Line::default());
        }
    }

    fn quote_prefix(&self) -> Vec<Span<'static>> {
        (0..self.quote_depth)
            .map(|_| Span::styled("│ ", self.theme.dim))
            .collect()
    }

    fn flush_line(&mut self) {
        if self.current.is_empty() && self.prefix.is_empty() {
            return;
        }
        let mut spans = self.quote_prefix();
        spans.append(&mut self.prefix);
        spans.append(&mut self.current);
        let indent = self.indent + self.quote_depth * 2;
        self.out
            .extend(wrap_line(&Line::from(spans), self.width, indent));
    }

    fn text(&mut self, text: &str) {
        if let Some(code) = &mut self.code {
            code.push(text.to_owned());
            return;
        }
        if let Some(table) = &mut self.table {
            let style = self.styles.last().copied().unwrap_or_default();
            if let Some(cell) = table.rows.last_mut().and_then(|r| r.last_mut()) {
                cell.push(Span::styled(text.to_owned(), style));
            }
            return;
        }
        self.current
            .push(Span::styled(text.to_owned(), self.style()));
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                let style = self.style().patch(self.theme.code);
                if let Some(table) = &mut self.table {
                    if let Some(cell) = table.rows.last_mut().and_then(|r| r.last_mut()) {
                        cell.push(Span::styled(code.to_string(), style));
                    }
                } else {
                    self.current.push(Span::styled(code.to_string(), style));
                }
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.flush_line(),
            Event::Rule => {
                self.flush_line();
                self.blank();
                self.out
                    .push(Line::styled("─".repeat(self.width.min(40)), self.theme.dim));
            }
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]")),
            Event::InlineMath(m) | Event::DisplayMath(m) => self.text(&m),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph if self.lists.is_empty() => self.blank(),
            Tag::Heading { level, .. } => {
                self.flush_line();
                self.blank();
                let marks = match level {
                    HeadingLevel::H1 => "# ",
                    HeadingLevel::H2 => "## ",
                    _ => "### ",
                };
                self.push_style(self.theme.heading);
                self.current.push(Span::styled(marks, self.style()));
            }
            Tag::BlockQuote(_) => {
                self.flush_line();
                self.quote_depth += 1;
                self.push_style(self.theme.dim);
            }
            Tag::CodeBlock(kind) => {
                self.flush_line();
                self.blank();
                let lang = match kind {
                    CodeBlockKind::Fenced(lang) => lang.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                if !lang.is_empty() {
                    self.out.push(Line::styled(lang.clone(), self.theme.dim));
                }
                self.code = Some(Vec::new());
                self.code_lang = lang;
            }
            Tag::List(start) => {
                self.flush_line();
                if self.lists.is_empty() {
                    self.blank();
                }
                self.lists.push(ListState { next: start });
            }
            Tag::Item => {
                self.flush_line();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(ListState { next: Some(n) }) => {
                        let marker = format!("{n}. ");
                        *n += 1;
                        marker
                    }
                    _ => "• ".to_owned(),
                };
                let pad = "  ".repeat(depth);
                self.indent = pad.len() + text_width(&marker);
                self.prefix = vec![Span::raw(pad), Span::styled(marker, self.theme.accent)];
            }
            Tag::Table(alignments) => {
                self.flush_line();
                self.blank();
                self.table = Some(TableState {
                    alignments,
                    ..TableState::default()
                });
            }
            Tag::TableHead => {
                if let Some(table) = &mut self.table {
                    table.in_head = true;
                    table.rows.push(Vec::new());
                }
                self.push_style(Style::new().add_modifier(Modifier::BOLD));
            }
            Tag::TableRow => {
                if let Some(table) = &mut self.table {
                    table.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                    row.push(Vec::new());
                }
            }
            Tag::Emphasis => self.push_style(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => {
                self.push_style(Style::new().add_modifier(Modifier::CROSSED_OUT));
            }
            Tag::Link { dest_url, .. } => {
                self.link = Some(dest_url.to_string());
                self.push_style(self.theme.accent.remove_modifier(Modifier::BOLD));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.flush_line(),
            TagEnd::Heading(_) => {
                self.flush_line();
                self.pop_style();
            }
            TagEnd::BlockQuote(_) => {
                self.flush_line();
                self.quote_depth = self.quote_depth.saturating_sub(1);
                self.pop_style();
            }
            TagEnd::CodeBlock => self.finish_code(),
            TagEnd::List(_) => {
                self.flush_line();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.indent = 0;
                }
            }
            TagEnd::Item => self.flush_line(),
            TagEnd::Table => self.finish_table(),
            TagEnd::TableHead => {
                if let Some(table) = &mut self.table {
                    table.in_head = false;
                    table.header_rows = table.rows.len();
                }
                self.pop_style();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                if let Some(url) = self.link.take()
                    && !url.starts_with('#')
                {
                    self.current
                        .push(Span::styled(format!(" ({url})"), self.theme.dim));
                }
            }
            _ => {}
        }
    }

    fn finish_code(&mut self) {
        let Some(parts) = self.code.take() else {
            return;
        };
        let text = parts.concat();
        let gutter = Span::styled("▏ ", self.theme.dim);
        let code = text.trim_end_matches('\n');
        // A block in a language kigi knows is coloured by its syntax; any other stays in the
        // one code colour.
        let highlighted = highlight(&self.code_lang, &text, self.theme);
        for (i, line) in code.split('\n').enumerate() {
            let mut spans = vec![gutter.clone()];
            match highlighted.as_ref().and_then(|h| h.get(i)) {
                Some(line) => spans.extend(line.iter().cloned()),
                None => spans.push(Span::styled(line.to_owned(), self.theme.code)),
            }
            self.out
                .extend(wrap_line(&Line::from(spans), self.width, 2));
        }
    }

    fn finish_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        if columns == 0 {
            return;
        }
        let cell_text = |cell: &Vec<Span<'static>>| -> String {
            cell.iter().map(|s| s.content.as_ref()).collect::<String>()
        };
        let mut widths = vec![0usize; columns];
        for row in &table.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(text_width(&cell_text(cell)));
            }
        }
        // Columns share what the width leaves after the separators; the widest give way first.
        let budget = self
            .width
            .saturating_sub(3 * columns.saturating_sub(1))
            .max(columns);
        while widths.iter().sum::<usize>() > budget {
            let Some((widest, _)) = widths.iter().enumerate().max_by_key(|(_, w)| **w) else {
                break;
            };
            if widths[widest] <= 3 {
                break;
            }
            widths[widest] -= 1;
        }
        for (r, row) in table.rows.iter().enumerate() {
            let mut spans = Vec::new();
            for (i, width) in widths.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::styled(" │ ", self.theme.dim));
                }
                let text = row.get(i).map(cell_text).unwrap_or_default();
                let shown = truncate(&text, *width);
                let pad = width.saturating_sub(text_width(&shown));
                let (left, right) = match table.alignments.get(i) {
                    Some(Alignment::Right) => (pad, 0),
                    Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                    _ => (0, pad),
                };
                let style = row
                    .get(i)
                    .and_then(|c| c.first())
                    .map(|s| s.style)
                    .unwrap_or_default();
                spans.push(Span::raw(" ".repeat(left)));
                spans.push(Span::styled(shown, style));
                spans.push(Span::raw(" ".repeat(right)));
            }
            self.out.push(Line::from(spans));
            if r + 1 == table.header_rows {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                self.out
                    .push(Line::styled(rule.join("─┼─"), self.theme.dim));
            }
        }
        let _ = table.in_head;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::theme::{Theme, ThemeName};

    fn plain(text: &str, width: usize) -> Vec<String> {
        let theme = Theme::new(ThemeName::Night, true);
        render_markdown(text, width, &theme)
            .iter()
            .map(|l| l.to_string().trim_end().to_owned())
            .collect()
    }

    #[test]
    fn renders_headings_lists_code_and_tables() {
        let text = "# Title\n\nSome *text* and `code`.\n\n- one\n- two\n  1. nested\n\n```rust\nfn main() {}\n```\n\n| a | bb |\n|---|---:|\n| 1 | 22 |\n";
        assert_eq!(
            plain(text, 40),
            [
                "# Title",
                "",
                "Some text and code.",
                "",
                "• one",
                "• two",
                "  1. nested",
                "",
                "rust",
                "▏ fn main() {}",
                "",
                "a │ bb",
                "──┼───",
                "1 │ 22",
            ]
        );
    }

    #[test]
    fn an_unfinished_stream_still_renders() {
        let lines = plain("```\nlet x = 1;\n| a |", 20);
        assert!(lines.iter().any(|l| l.contains("let x = 1;")));
    }

    #[test]
    fn no_line_is_wider_than_the_width() {
        let text = "| a very long header | another very long header |\n|---|---|\n| x | y |\n\nA paragraph with a verylongwordthatdoesnotfitanywhere in it.";
        for line in render_markdown(text, 20, &Theme::new(ThemeName::Day, false)) {
            assert!(line.width() <= 20, "{line}");
        }
    }
}
