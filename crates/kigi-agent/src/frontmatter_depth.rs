//! A bound on how deeply frontmatter nests, checked on the text before the YAML parser sees it:
//! the parser's time grows with the square of the depth, so 100,000 nested `[` would hold a
//! discovery for minutes. The scan is one pass over the text and stops at the first line past
//! the limit.
//!
//! The rule: the scan may over-count (a stray `[` in a plain scalar), never under-count; a real
//! agent file is nowhere near [`MAX_DEPTH`].

/// Levels of nesting (flow brackets and braces plus block indentation) frontmatter may use.
pub const MAX_DEPTH: usize = 64;

/// Where the frontmatter first nests past the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep {
    /// 1-based line within the YAML text.
    pub line: usize,
    pub limit: usize,
}

impl TooDeep {
    pub fn message(self) -> String {
        format!(
            "frontmatter nests deeper than {} levels (brackets, braces or indentation); \
             refused before parsing",
            self.limit
        )
    }
}

/// Leading `- ` entries of a line: `- - - x` nests three sequences in one line.
fn compact_sequences(mut rest: &str) -> usize {
    let mut count = 0;
    while let Some(after) = rest.strip_prefix('-') {
        if !(after.is_empty() || after.starts_with([' ', '\t'])) {
            break;
        }
        count += 1;
        rest = after.trim_start_matches([' ', '\t']);
    }
    count
}

/// Checks that `yaml` nests at most `limit` levels.
pub fn check(yaml: &str, limit: usize) -> Result<(), TooDeep> {
    let mut flow = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    let mut block = 0usize;
    for (index, line) in yaml.lines().enumerate() {
        let too_deep = TooDeep {
            line: index + 1,
            limit,
        };
        let content = line.trim_start_matches(' ');
        let indent = line.len() - content.len();
        let blank = content.trim().is_empty() || content.starts_with('#');
        if flow == 0 && !blank {
            while indents.last().is_some_and(|&top| top >= indent) {
                indents.pop();
            }
            indents.push(indent);
            block = indents.len() + compact_sequences(content);
            if block > limit {
                return Err(too_deep);
            }
        }
        // Quotes are tracked within a line only: a stray apostrophe can then hide brackets for
        // the rest of its line at most, and a multi-line quoted scalar can only over-count.
        let mut quote: Option<char> = None;
        let mut previous = ' ';
        let mut chars = content.chars();
        while let Some(c) = chars.next() {
            match quote {
                Some('"') if c == '\\' => {
                    chars.next();
                }
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '#' if previous.is_whitespace() => break,
                    '"' | '\'' if matches!(previous, ' ' | '\t' | '[' | '{' | ',' | ':') => {
                        quote = Some(c);
                    }
                    '[' | '{' => {
                        flow += 1;
                        if block + flow > limit {
                            return Err(too_deep);
                        }
                    }
                    ']' | '}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            previous = c;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_frontmatter_passes() {
        let yaml = "name: a\ndescription: \"uses [brackets] and {braces}\"\ntools: [Read, Grep]\n\
                    hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n";
        assert_eq!(check(yaml, MAX_DEPTH), Ok(()));
    }

    #[test]
    fn deep_brackets_are_refused_at_their_line() {
        let yaml = format!("name: a\nx: {}\n", "[".repeat(100_000));
        assert_eq!(
            check(&yaml, MAX_DEPTH),
            Err(TooDeep {
                line: 2,
                limit: MAX_DEPTH
            })
        );
    }

    #[test]
    fn brackets_in_quotes_and_comments_do_not_count() {
        let deep = "[".repeat(100);
        let yaml = format!("a: '{deep}'\nb: \"{deep}\"\nc: 1 # {deep}\n");
        assert_eq!(check(&yaml, MAX_DEPTH), Ok(()));
    }

    #[test]
    fn deep_indentation_and_compact_sequences_are_refused() {
        let indented: String = (0..100)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        assert_eq!(check(&indented, MAX_DEPTH).map_err(|e| e.line), Err(65));
        let dashes = format!("a:\n  {}x\n", "- ".repeat(100));
        assert_eq!(check(&dashes, MAX_DEPTH).map_err(|e| e.line), Err(2));
    }

    #[test]
    fn exactly_the_limit_passes() {
        let yaml = format!("x: {}{}\n", "[".repeat(63), "]".repeat(63));
        assert_eq!(check(&yaml, MAX_DEPTH), Ok(()));
        let yaml = format!("x: {}{}\n", "[".repeat(64), "]".repeat(64));
        assert!(check(&yaml, MAX_DEPTH).is_err());
    }
}
