//! Word wrapping of styled lines to a width, by display width (wide characters count two).
//!
//! The rule: a wrapped line is never wider than the width it was wrapped to, whatever it
//! holds (a word longer than the width is cut between characters), so nothing a view prints
//! can spill into the next row and corrupt the screen.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `line` wrapped to `width` columns; continuation rows start with `indent` spaces.
pub fn wrap_line(line: &Line<'_>, width: usize, indent: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let indent = if indent * 2 >= width { 0 } else { indent };
    let mut rows: Vec<Line<'static>> = Vec::new();
    let mut row = RowBuilder::default();
    for (token, style) in tokens(line) {
        let token_width = text_width(&token);
        let is_space = token.chars().all(char::is_whitespace);
        if row.width + token_width <= width {
            row.push(&token, style, token_width);
            continue;
        }
        if is_space {
            rows.push(row.finish(line.style));
            row = RowBuilder::indented(indent);
            continue;
        }
        if row.width > row.indent && token_width <= width - indent {
            rows.push(row.finish(line.style));
            row = RowBuilder::indented(indent);
            row.push(&token, style, token_width);
            continue;
        }
        // A word wider than a row: cut it between characters.
        for ch in token.chars() {
            let ch_width = ch.width().unwrap_or(0);
            if row.width + ch_width > width && row.width > row.indent {
                rows.push(row.finish(line.style));
                row = RowBuilder::indented(indent);
            }
            if ch_width <= width {
                row.push(&ch.to_string(), style, ch_width);
            }
        }
    }
    rows.push(row.finish(line.style));
    rows
}

/// The display width of `text`.
pub fn text_width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// `text` cut to `width` columns, with `…` when it was cut.
pub fn truncate(text: &str, width: usize) -> String {
    if text_width(text) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for ch in text.chars() {
        let w = ch.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(ch);
    }
    out.push('…');
    out
}

/// Words and runs of spaces, each with its span's style (tabs become spaces: a tab's width
/// depends on the column, which the terminal and this code would disagree on).
fn tokens(line: &Line<'_>) -> Vec<(String, Style)> {
    let mut out = Vec::new();
    for span in &line.spans {
        let style = line.style.patch(span.style);
        let mut current = String::new();
        let mut current_space = false;
        for ch in span.content.chars() {
            let ch = if ch == '\t' { ' ' } else { ch };
            if ch.is_control() {
                continue;
            }
            let space = ch == ' ';
            if !current.is_empty() && space != current_space {
                out.push((std::mem::take(&mut current), style));
            }
            current_space = space;
            current.push(ch);
        }
        if !current.is_empty() {
            out.push((current, style));
        }
    }
    out
}

#[derive(Default)]
struct RowBuilder {
    spans: Vec<Span<'static>>,
    width: usize,
    indent: usize,
}

impl RowBuilder {
    fn indented(indent: usize) -> Self {
        let mut row = Self {
            indent,
            ..Self::default()
        };
        if indent > 0 {
            row.spans.push(Span::raw(" ".repeat(indent)));
            row.width = indent;
        }
        row
    }

    fn push(&mut self, text: &str, style: Style, width: usize) {
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.spans.push(Span::styled(text.to_owned(), style)),
        }
        self.width += width;
    }

    fn finish(mut self, style: Style) -> Line<'static> {
        // A row that broke after a space does not carry the space.
        if let Some(last) = self.spans.last_mut() {
            let trimmed = last.content.trim_end().len();
            last.content.to_mut().truncate(trimmed);
        }
        Line::from(self.spans).style(style)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_at_word_boundaries_and_indents_continuations() {
        let line = Line::from("- alpha beta gamma delta");
        assert_eq!(
            plain(&wrap_line(&line, 12, 2)),
            ["- alpha beta", "  gamma", "  delta"]
        );
    }

    #[test]
    fn no_row_is_wider_than_the_width_even_for_long_words_and_wide_characters() {
        let line = Line::from("aaaaaaaaaaaaaaaaaaaaaaaa 日本語日本語日本語 b");
        for row in wrap_line(&line, 7, 0) {
            assert!(text_width(&row.to_string()) <= 7, "{row}");
        }
    }

    #[test]
    fn truncates_with_an_ellipsis() {
        assert_eq!(truncate("cargo test --workspace", 10), "cargo tes…");
        assert_eq!(truncate("short", 10), "short");
    }
}
