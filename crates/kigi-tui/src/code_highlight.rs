//! Fenced code blocks coloured by their language: syntect's bundled Sublime syntaxes parse
//! each line into scopes, and the scopes are mapped here to a few roles (keyword, string,
//! comment, …) that the theme colours. No syntect theme is involved, so the two kigi themes
//! (and `NO_COLOR`, which turns highlighting off) stay the only source of colour.
//!
//! The rule: the output is a function of the language and the text; nothing here fails (an
//! unknown language, a parse error, an over-long block give `None` and the caller shows the
//! block plain). The syntax set is loaded once, on the first block that needs it; parsed
//! lines are memoised so a block re-rendered every frame while it streams in costs only its
//! new lines.

use std::sync::{Mutex, OnceLock};

use ratatui::style::Style;
use ratatui::text::Span;
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

use crate::theme::Theme;

/// Blocks with more lines than this are shown plain (their cost would grow with every frame
/// they stream in).
pub const MAX_LINES: usize = 2_000;
/// A line longer than this (in bytes) makes its block plain: backtracking regexes on a
/// minified line can take seconds (Sublime Text skips such lines too).
pub const MAX_LINE_BYTES: usize = 1_000;
/// Parsed blocks remembered (a resize re-renders every block of the conversation; a
/// parse costs about 0.1 ms a line), and their text in bytes at most.
const MEMO_ENTRIES: usize = 128;
const MEMO_BYTES: usize = 2 << 20;

/// What a piece of code is, as far as colour goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Plain,
    Keyword,
    String,
    Comment,
    /// Numbers, `true`, `None`, escapes.
    Constant,
    Function,
    Type,
    /// A diff's `+` line.
    Added,
    /// A diff's `-` line.
    Removed,
    /// A diff's `@@` header, a Markdown heading.
    Heading,
}

/// The colours of the roles; `None` in the theme under `NO_COLOR` (no highlighting at all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntaxPalette {
    pub plain: Style,
    pub keyword: Style,
    pub string: Style,
    pub comment: Style,
    pub constant: Style,
    pub function: Style,
    pub type_name: Style,
}

impl Role {
    /// The style of this role in `theme` (which has a palette).
    pub fn style(self, palette: &SyntaxPalette, theme: &Theme) -> Style {
        match self {
            Self::Plain => palette.plain,
            Self::Keyword => palette.keyword,
            Self::String => palette.string,
            Self::Comment => palette.comment,
            Self::Constant => palette.constant,
            Self::Function => palette.function,
            Self::Type => palette.type_name,
            Self::Added => theme.added,
            Self::Removed => theme.removed,
            Self::Heading => theme.heading,
        }
    }
}

/// One line of code as (role, text) runs.
pub type RoleLine = Vec<(Role, String)>;

/// `code` (lines ending in `\n`, the last one possibly unfinished) as styled spans, one
/// `Vec` per line; `None` when `lang` names no known syntax or the block is too big.
pub fn highlight(lang: &str, code: &str, theme: &Theme) -> Option<Vec<Vec<Span<'static>>>> {
    let palette = theme.syntax.as_ref()?;
    let lines = classify(lang, code)?;
    Some(
        lines
            .into_iter()
            .map(|line| {
                line.into_iter()
                    .map(|(role, text)| Span::styled(text, role.style(palette, theme)))
                    .collect()
            })
            .collect(),
    )
}

/// `code`'s lines as role runs (what [`highlight`] colours), through the memo.
pub fn classify(lang: &str, code: &str) -> Option<Vec<RoleLine>> {
    let lang = canonical_token(lang)?;
    if code.lines().count() > MAX_LINES || code.lines().any(|l| l.len() > MAX_LINE_BYTES) {
        return None;
    }
    let highlighter = Highlighter::get();
    let syntax = highlighter.syntaxes.find_syntax_by_token(lang)?;
    let memo = MEMO.get_or_init(Mutex::default);
    let start = memo
        .lock()
        .ok()
        .and_then(|mut m| m.take_longest(&syntax.name, code));
    let mut parsed = start.unwrap_or_else(|| Parsed::new(syntax));
    let lines = highlighter.extend(&mut parsed, code)?;
    if let Ok(mut memo) = memo.lock() {
        memo.put(parsed);
    }
    Some(lines)
}

/// [`classify`] without the memo, from the block's first line.
pub fn classify_fresh(lang: &str, code: &str) -> Option<Vec<RoleLine>> {
    let highlighter = Highlighter::get();
    let syntax = highlighter
        .syntaxes
        .find_syntax_by_token(canonical_token(lang)?)?;
    highlighter.extend(&mut Parsed::new(syntax), code)
}

/// The info string's first word, with the names people write that the bundled set spells
/// differently (`ts` is close enough to JavaScript, `console` to shell).
fn canonical_token(lang: &str) -> Option<&str> {
    let word = lang
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()?
        .trim();
    let token = match word.to_ascii_lowercase().as_str() {
        "" | "text" | "txt" | "plain" | "plaintext" | "output" => return None,
        "ts" | "typescript" | "tsx" | "jsx" | "mjs" | "cjs" => "js",
        "shell" | "console" | "zsh" | "shellsession" | "sh-session" => "sh",
        "jsonc" | "json5" => "json",
        "py3" | "python3" => "py",
        "golang" => "go",
        "c++" => "cpp",
        "patch" => "diff",
        _ => word,
    };
    Some(token)
}

/// The syntaxes and the scope selectors, built once.
struct Highlighter {
    syntaxes: SyntaxSet,
    /// Scope prefixes and their roles, the more specific ones first.
    selectors: Vec<(Scope, Role)>,
}

static HIGHLIGHTER: OnceLock<Highlighter> = OnceLock::new();
static MEMO: OnceLock<Mutex<Memo>> = OnceLock::new();

/// Which role a scope (and anything below it) has; the first prefix that matches wins.
const SELECTORS: [(&str, Role); 28] = [
    ("comment", Role::Comment),
    ("punctuation.definition.comment", Role::Comment),
    ("constant.character.escape", Role::Constant),
    ("string", Role::String),
    ("punctuation.definition.string", Role::String),
    ("constant", Role::Constant),
    ("support.constant", Role::Constant),
    ("variable.language", Role::Keyword),
    ("keyword.operator", Role::Plain),
    ("keyword", Role::Keyword),
    ("storage.type.numeric", Role::Type),
    ("storage", Role::Keyword),
    ("entity.name.function", Role::Function),
    ("variable.function", Role::Function),
    ("support.function", Role::Function),
    ("support.macro", Role::Function),
    ("meta.function-call.identifier", Role::Function),
    ("entity.name.tag", Role::Keyword),
    ("entity.other.attribute-name", Role::Type),
    ("entity.name", Role::Type),
    ("entity.other.inherited-class", Role::Type),
    ("support.type", Role::Type),
    ("support.class", Role::Type),
    ("markup.inserted", Role::Added),
    ("markup.deleted", Role::Removed),
    ("meta.diff.range", Role::Heading),
    ("meta.diff.header", Role::Heading),
    ("markup.heading", Role::Heading),
];

impl Highlighter {
    fn get() -> &'static Self {
        HIGHLIGHTER.get_or_init(|| Self {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            selectors: SELECTORS
                .iter()
                .filter_map(|(name, role)| Scope::new(name).ok().map(|s| (s, *role)))
                .collect(),
        })
    }

    /// The role of the innermost scope of `stack` a selector names.
    fn role(&self, stack: &ScopeStack) -> Role {
        for scope in stack.as_slice().iter().rev() {
            if let Some((_, role)) = self.selectors.iter().find(|(s, _)| s.is_prefix_of(*scope)) {
                return *role;
            }
        }
        Role::Plain
    }

    /// Parses the lines of `code` past what `parsed` holds (its text must prefix `code`);
    /// the finished lines are kept in `parsed`, an unfinished last one is parsed on a copy.
    fn extend(&self, parsed: &mut Parsed, code: &str) -> Option<Vec<RoleLine>> {
        let rest = code.get(parsed.text.len()..)?;
        for line in rest.split_inclusive('\n') {
            if line.ends_with('\n') {
                let roles = self.line(&mut parsed.state, &mut parsed.stack, line)?;
                parsed.lines.push(roles);
                parsed.text.push_str(line);
            } else {
                let (mut state, mut stack) = (parsed.state.clone(), parsed.stack.clone());
                // The newline syntaxes expect one; it is not shown.
                let roles = self.line(&mut state, &mut stack, &format!("{line}\n"))?;
                let mut lines = parsed.lines.clone();
                lines.push(roles);
                return Some(lines);
            }
        }
        Some(parsed.lines.clone())
    }

    /// One line (with its `\n`, which is dropped from the result) as role runs.
    fn line(&self, state: &mut ParseState, stack: &mut ScopeStack, line: &str) -> Option<RoleLine> {
        let ops = state.parse_line(line, &self.syntaxes).ok()?;
        let mut runs: RoleLine = Vec::new();
        let mut at = 0;
        let mut push = |role: Role, text: &str| {
            let text = text.trim_end_matches('\n');
            if text.is_empty() {
                return;
            }
            match runs.last_mut() {
                Some((last, run)) if *last == role => run.push_str(text),
                _ => runs.push((role, text.to_owned())),
            }
        };
        for (index, op) in ops {
            if index > at {
                push(self.role(stack), line.get(at..index)?);
                at = index;
            }
            stack.apply(&op).ok()?;
        }
        push(self.role(stack), line.get(at..)?);
        Some(runs)
    }
}

/// A block parsed up to the end of its last finished line.
#[derive(Debug, Clone)]
struct Parsed {
    syntax: String,
    text: String,
    state: ParseState,
    stack: ScopeStack,
    lines: Vec<RoleLine>,
}

impl Parsed {
    fn new(syntax: &SyntaxReference) -> Self {
        Self {
            syntax: syntax.name.clone(),
            text: String::new(),
            state: ParseState::new(syntax),
            stack: ScopeStack::new(),
            lines: Vec::new(),
        }
    }
}

/// The blocks parsed last, newest at the end.
#[derive(Debug, Default)]
struct Memo {
    entries: Vec<Parsed>,
}

impl Memo {
    /// Takes out the entry of `syntax` that covers the longest prefix of `code`.
    fn take_longest(&mut self, syntax: &str, code: &str) -> Option<Parsed> {
        let at = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, p)| p.syntax == syntax && code.starts_with(p.text.as_str()))
            .max_by_key(|(_, p)| p.text.len())
            .map(|(i, _)| i)?;
        Some(self.entries.remove(at))
    }

    fn put(&mut self, parsed: Parsed) {
        if parsed.text.is_empty() {
            return;
        }
        self.entries
            .retain(|p| p.syntax != parsed.syntax || p.text != parsed.text);
        self.entries.push(parsed);
        let mut bytes: usize = self.entries.iter().map(|p| p.text.len()).sum();
        while self.entries.len() > MEMO_ENTRIES || bytes > MEMO_BYTES {
            bytes -= self.entries.remove(0).text.len();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::theme::ThemeName;

    fn roles_of(lines: &[RoleLine], text: &str) -> Vec<Role> {
        lines
            .iter()
            .flatten()
            .filter(|(_, t)| t.contains(text))
            .map(|(r, _)| *r)
            .collect()
    }

    #[test]
    fn rust_keywords_strings_comments_and_numbers_get_their_roles() {
        let code = "// add one\nfn add(x: u32) -> u32 {\n    let s = \"hi\";\n    x + 1\n}\n";
        let lines = classify_fresh("rust", code).unwrap();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], [(Role::Comment, "// add one".to_owned())]);
        assert_eq!(roles_of(&lines, "fn"), [Role::Keyword]);
        assert_eq!(roles_of(&lines, "add"), [Role::Comment, Role::Function]);
        assert_eq!(roles_of(&lines, "\"hi\""), [Role::String]);
        assert_eq!(roles_of(&lines, "1"), [Role::Constant]);
        // The text is kept whole, newlines dropped.
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.iter().map(|(_, t)| t.as_str()).collect())
            .collect();
        assert_eq!(text.join("\n") + "\n", code);
    }

    #[test]
    fn common_spellings_find_a_syntax_and_unknown_ones_do_not() {
        for lang in [
            "py", "python", "sh", "bash", "console", "ts", "json", "diff", "go", "c++",
        ] {
            assert!(classify_fresh(lang, "x\n").is_some(), "{lang}");
        }
        assert!(classify_fresh("", "x\n").is_none());
        assert!(classify_fresh("text", "x\n").is_none());
        assert!(classify_fresh("no-such-language", "x\n").is_none());
    }

    #[test]
    fn a_diff_colours_added_and_removed_lines() {
        let lines = classify_fresh("diff", "@@ -1 +1 @@\n-old\n+new\n").unwrap();
        assert_eq!(lines[1], [(Role::Removed, "-old".to_owned())]);
        assert_eq!(lines[2], [(Role::Added, "+new".to_owned())]);
    }

    #[test]
    fn a_block_streaming_in_is_highlighted_as_if_parsed_whole() {
        let full =
            "def f(x):\n    \"\"\"doc\n    lines\"\"\"\n    s = 'quoted'\n    return x  # done\n";
        // Every prefix, as a stream delivers them, goes through the memo; each result is the
        // one a fresh parse gives, and the last is the whole block's.
        for end in (1..=full.len()).filter(|e| full.is_char_boundary(*e)) {
            let prefix = &full[..end];
            assert_eq!(
                classify("python", prefix),
                classify_fresh("python", prefix),
                "{prefix:?}"
            );
        }
        let lines = classify("python", full).unwrap();
        // A docstring spans lines (the state carries over) and is documentation.
        assert_eq!(roles_of(&lines, "lines"), [Role::Comment]);
        assert_eq!(roles_of(&lines, "'quoted'"), [Role::String]);
        assert_eq!(roles_of(&lines, "# done"), [Role::Comment]);
    }

    #[test]
    fn over_long_lines_and_no_color_leave_the_block_plain() {
        let long = format!("let x = \"{}\";\n", "a".repeat(MAX_LINE_BYTES));
        assert!(classify("rust", &long).is_none());
        let theme = Theme::new(ThemeName::Night, true);
        assert!(highlight("rust", "fn x() {}\n", &theme).is_none());
        let theme = Theme::new(ThemeName::Night, false);
        let spans = highlight("rust", "fn x() {}\n", &theme).unwrap();
        assert_eq!(spans[0][0].content, "fn");
        assert_eq!(spans[0][0].style, theme.syntax.unwrap().keyword);
    }
}
