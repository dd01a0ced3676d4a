//! Long tool output, clamped for the model: the head and the tail are kept, the middle is
//! replaced by one line saying how much was left out. The session file keeps the whole text.

/// What the model sees of a tool's output at most, in characters.
pub const MODEL_OUTPUT_CHARS: usize = 30_000;

/// `text` if it fits in `max_chars`; otherwise its head and tail with a line stating the loss.
pub fn clamp_head_tail(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    let keep = max_chars / 2;
    let head_end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(total - keep)
        .map_or(text.len(), |(i, _)| i);
    // Cut on line boundaries when one is near, so no line is shown half.
    let head_end = text[..head_end]
        .rfind('\n')
        .filter(|&i| i * 2 > head_end)
        .map_or(head_end, |i| i + 1);
    let tail_start = text[tail_start..]
        .find('\n')
        .filter(|&i| i < keep / 2)
        .map_or(tail_start, |i| tail_start + i + 1);
    let left_out = &text[head_end..tail_start];
    format!(
        "{}\n[… {} characters ({} lines) left out …]\n{}",
        &text[..head_end].trim_end_matches('\n'),
        left_out.chars().count(),
        left_out.lines().count(),
        &text[tail_start..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(clamp_head_tail("abc", 10), "abc");
    }

    #[test]
    fn long_text_keeps_head_and_tail_and_states_the_loss() {
        let text: String = (0..1000).map(|n| format!("line {n}\n")).collect();
        let clamped = clamp_head_tail(&text, 200);
        assert!(clamped.starts_with("line 0\n"), "{clamped}");
        assert!(clamped.ends_with("line 999\n"), "{clamped}");
        assert!(clamped.contains("characters ("), "{clamped}");
        assert!(clamped.len() < 400);
        let left: usize = clamped
            .split("[… ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        let kept = clamped.len() - clamped.lines().find(|l| l.starts_with("[…")).unwrap().len() - 1;
        assert_eq!(left + kept, text.len());
    }

    #[test]
    fn multibyte_text_is_cut_on_character_boundaries() {
        let text = "é".repeat(100);
        let clamped = clamp_head_tail(&text, 10);
        assert!(clamped.starts_with("ééééé\n[… 90 characters"));
    }
}
