//! The prompt editor: multi-line text with a cursor, large pastes folded to a placeholder
//! (`[pasted 120 lines]`) that is expanded when the text is sent.
//!
//! The rule: the cursor is always on a character boundary of `text`; every edit keeps it so.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::theme::Theme;

/// A paste with more lines than this is folded.
const FOLD_LINES: usize = 3;
/// A paste longer than this (in characters) is folded.
const FOLD_CHARS: usize = 800;

/// The editor's text, cursor and folded pastes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Composer {
    text: String,
    cursor: usize,
    pastes: Vec<(String, String)>,
}

impl Composer {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the text (history recall), cursor at the end.
    pub fn set_text(&mut self, text: &str) {
        self.text = text.to_owned();
        self.cursor = self.text.len();
        self.pastes.clear();
    }

    /// Takes the text to send, with folded pastes expanded; the editor is empty after.
    pub fn take(&mut self) -> String {
        let mut text = std::mem::take(&mut self.text);
        for (placeholder, content) in self.pastes.drain(..) {
            text = text.replacen(&placeholder, &content, 1);
        }
        self.cursor = 0;
        text
    }

    pub fn insert_char(&mut self, ch: char) {
        self.text.insert(self.cursor, ch);
        self.cursor += ch.len_utf8();
    }

    pub fn insert_str(&mut self, text: &str) {
        self.text.insert_str(self.cursor, text);
        self.cursor += text.len();
    }

    /// A bracketed paste: large ones are folded to a placeholder.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let lines = text.lines().count();
        if lines > FOLD_LINES || text.chars().count() > FOLD_CHARS {
            let mut placeholder = format!("[pasted {lines} lines]");
            let same = self
                .pastes
                .iter()
                .filter(|(p, _)| p.starts_with(&placeholder[..placeholder.len() - 1]))
                .count();
            if same > 0 {
                placeholder = format!("[pasted {lines} lines #{}]", same + 1);
            }
            self.insert_str(&placeholder);
            self.pastes.push((placeholder, text));
        } else {
            self.insert_str(&text);
        }
    }

    pub fn backspace(&mut self) {
        if let Some(ch) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= ch.len_utf8();
            self.text.remove(self.cursor);
        }
    }

    pub fn delete(&mut self) {
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
        }
    }

    pub fn left(&mut self) {
        if let Some(ch) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= ch.len_utf8();
        }
    }

    pub fn right(&mut self) {
        if let Some(ch) = self.text[self.cursor..].chars().next() {
            self.cursor += ch.len_utf8();
        }
    }

    pub fn home(&mut self) {
        self.cursor = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
    }

    pub fn end(&mut self) {
        self.cursor = self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i);
    }

    /// Deletes the word before the cursor (Ctrl+W).
    pub fn delete_word(&mut self) {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches(' ');
        let start = trimmed.rfind([' ', '\n']).map_or(0, |i| i + 1);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Deletes from the line's start to the cursor (Ctrl+U).
    pub fn delete_to_line_start(&mut self) {
        let start = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// The `@` mention the cursor ends, if any: where it starts and what follows the `@`.
    pub fn mention(&self) -> Option<(usize, &str)> {
        let before = &self.text[..self.cursor];
        let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let token = &before[start..];
        token.strip_prefix('@').map(|query| (start, query))
    }

    /// Replaces the mention starting at `start` with `@path ` .
    pub fn complete_mention(&mut self, start: usize, path: &str) {
        let replacement = format!("@{path} ");
        self.text.replace_range(start..self.cursor, &replacement);
        self.cursor = start + replacement.len();
    }

    /// Whether the cursor is on the first line (Up recalls history there).
    pub fn on_first_line(&self) -> bool {
        !self.text[..self.cursor].contains('\n')
    }

    /// Whether the cursor is on the last line.
    pub fn on_last_line(&self) -> bool {
        !self.text[self.cursor..].contains('\n')
    }

    /// Moves the cursor one line up or down, keeping its column where it can.
    pub fn vertical(&mut self, up: bool) {
        let line_start = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
        let column = self.text[line_start..self.cursor].chars().count();
        let target_start = if up {
            if line_start == 0 {
                return;
            }
            self.text[..line_start - 1].rfind('\n').map_or(0, |i| i + 1)
        } else {
            match self.text[self.cursor..].find('\n') {
                Some(i) => self.cursor + i + 1,
                None => return,
            }
        };
        let line_end = self.text[target_start..]
            .find('\n')
            .map_or(self.text.len(), |i| target_start + i);
        let mut at = target_start;
        for ch in self.text[target_start..line_end].chars().take(column) {
            at += ch.len_utf8();
        }
        self.cursor = at;
    }

    /// The editor's rows at `width` (hard-wrapped), and the cursor's (column, row).
    pub fn view(
        &self,
        width: usize,
        theme: &Theme,
        placeholder: &str,
    ) -> (Vec<Line<'static>>, (u16, u16)) {
        let width = width.max(4);
        let mut rows: Vec<Line<'static>> = Vec::new();
        let mut cursor = (2u16, 0u16);
        if self.text.is_empty() {
            rows.push(Line::from(vec![
                Span::styled("› ", theme.accent),
                Span::styled(placeholder.to_owned(), theme.dim),
            ]));
            return (rows, cursor);
        }
        let mut current = String::from("› ");
        let mut col = 2usize;
        let mut offset = 0usize;
        let push_row = |rows: &mut Vec<Line<'static>>, row: String| {
            let (lead, rest) =
                row.split_at(row.char_indices().nth(2).map_or(row.len(), |(i, _)| i));
            rows.push(Line::from(vec![
                Span::styled(lead.to_owned(), theme.accent),
                Span::styled(rest.to_owned(), theme.text),
            ]));
        };
        for ch in self.text.chars() {
            if offset == self.cursor {
                cursor = (col as u16, rows.len() as u16);
            }
            offset += ch.len_utf8();
            if ch == '\n' {
                push_row(&mut rows, std::mem::replace(&mut current, "  ".to_owned()));
                col = 2;
                continue;
            }
            let w = ch.width().unwrap_or(0);
            if col + w > width {
                push_row(&mut rows, std::mem::replace(&mut current, "  ".to_owned()));
                col = 2;
                if offset - ch.len_utf8() == self.cursor {
                    cursor = (col as u16, rows.len() as u16);
                }
            }
            current.push(ch);
            col += w;
        }
        if offset == self.cursor {
            if col >= width {
                push_row(&mut rows, std::mem::replace(&mut current, "  ".to_owned()));
                col = 2;
            }
            cursor = (col as u16, rows.len() as u16);
        }
        push_row(&mut rows, current);
        (rows, cursor)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_large_paste_is_folded_and_expanded_when_sent() {
        let mut c = Composer::default();
        c.insert_str("see ");
        let pasted: String = (0..120).map(|i| format!("line {i}\n")).collect();
        c.paste(&pasted);
        assert_eq!(c.text(), "see [pasted 120 lines]");
        assert_eq!(c.take(), format!("see {pasted}"));
        assert!(c.is_empty());
    }

    #[test]
    fn vertical_moves_keep_the_column() {
        let mut c = Composer::default();
        c.insert_str("abcdef\nxy\nlast line");
        c.vertical(true);
        c.vertical(true);
        c.insert_char('!');
        assert_eq!(c.text(), "ab!cdef\nxy\nlast line");
    }

    #[test]
    fn the_cursor_wraps_with_the_text() {
        let mut c = Composer::default();
        c.insert_str("abcdefgh");
        let theme = crate::theme::Theme::new(crate::theme::ThemeName::Night, true);
        let (rows, cursor) = c.view(6, &theme, "");
        assert_eq!(rows.len(), 3);
        assert_eq!(cursor, (2, 2));
    }
}
