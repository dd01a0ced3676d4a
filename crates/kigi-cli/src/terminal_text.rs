//! Text from a model, a tool or a repository, made safe to print on a terminal: control
//! characters are shown, not obeyed, so output cannot set the title, write the clipboard
//! (OSC 52), clear the screen or move the cursor. Session files keep the bytes; this is only
//! for what kigi prints.

use std::borrow::Cow;

/// `text` with every control character but newline and tab replaced by a visible form:
/// caret notation for C0 and DEL (`^[` for ESC), U+FFFD for C1.
pub fn safe_for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut safe = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\t' => safe.push(c),
            '\u{7f}' => safe.push_str("^?"),
            c if (c as u32) < 0x20 => {
                safe.push('^');
                safe.push(char::from(b'@' + c as u8));
            }
            c if is_control(c) => safe.push('\u{fffd}'),
            c => safe.push(c),
        }
    }
    Cow::Owned(safe)
}

fn is_control(c: char) -> bool {
    c != '\n' && c != '\t' && (c.is_ascii_control() || ('\u{80}'..='\u{9f}').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert_eq!(
            safe_for_terminal("a\x1b]52;c;cHduZWQ=\x07b\x1b[2J\r\n\tc\u{9b}31m\u{7f}"),
            "a^[]52;c;cHduZWQ=^Gb^[[2J^M\n\tc\u{fffd}31m^?"
        );
        assert!(matches!(
            safe_for_terminal("plain — ünïcode\n"),
            Cow::Borrowed(_)
        ));
    }
}
