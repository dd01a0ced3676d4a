//! What a `Bash(…)` rule says about one simple command, in Claude Code's syntax:
//! `Bash(git status)` is that command exactly, `Bash(cargo test:*)` is that command and
//! anything after it (the legacy prefix form, which stops at a word boundary), and a `*`
//! anywhere else matches any text (`Bash(git * --help)`); a trailing ` *` also matches the
//! bare command, so `Bash(ls *)` covers `ls` and `ls -la` but not `lsof`.
//!
//! The rule: a pattern judges one simple command of a parsed command line, never the raw
//! line; splitting (`&&`, `|`, `$(…)`) happens before, in [`super::shell_parts`].

/// A command pattern, whitespace-normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandPattern {
    /// The command exactly.
    Exact(String),
    /// The command, or the command followed by a space and anything (`:*`).
    Prefix(String),
    /// Text with `*` wildcards; `bare` is the text before a trailing ` *`, also matched alone.
    Wildcard { text: String, bare: Option<String> },
}

impl CommandPattern {
    pub fn parse(specifier: &str) -> Self {
        let text = normalise(specifier);
        if let Some(prefix) = text.strip_suffix(":*") {
            return Self::Prefix(prefix.trim_end().to_owned());
        }
        if text.contains('*') {
            let bare = text.strip_suffix(" *").map(str::to_owned);
            return Self::Wildcard { text, bare };
        }
        Self::Exact(text)
    }

    /// True when `command` (one simple command, words joined by single spaces) matches.
    pub fn matches(&self, command: &str) -> bool {
        let command = normalise(command);
        match self {
            Self::Exact(text) => command == *text,
            Self::Prefix(prefix) => {
                command == *prefix
                    || command
                        .strip_prefix(prefix.as_str())
                        .is_some_and(|rest| rest.starts_with(' '))
            }
            Self::Wildcard { text, bare } => {
                bare.as_deref() == Some(command.as_str()) || wildcard_match(text, &command)
            }
        }
    }
}

/// Words separated by single spaces.
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `*` matches any run of characters (spaces included); everything else is literal.
fn wildcard_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = match parts.split_first() {
        Some(split) => split,
        None => return text.is_empty(),
    };
    let Some(mut remaining) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return remaining.is_empty();
    };
    for part in middle {
        match remaining.find(part) {
            Some(at) => remaining = &remaining[at + part.len()..],
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, command: &str) -> bool {
        CommandPattern::parse(pattern).matches(command)
    }

    #[test]
    fn an_exact_pattern_matches_only_that_command() {
        assert!(matches("git status", "git status"));
        assert!(matches("git  status", "git status"));
        assert!(!matches("git status", "git status --short"));
        assert!(!matches("git status", "git"));
    }

    #[test]
    fn the_prefix_form_stops_at_a_word_boundary() {
        assert!(matches("cargo test:*", "cargo test"));
        assert!(matches("cargo test:*", "cargo test -p kigi-core"));
        assert!(!matches("cargo test:*", "cargo testx"));
        assert!(!matches("cargo test:*", "cargo build"));
        assert!(matches("npm run test:*", "npm run test -- --watch"));
    }

    #[test]
    fn wildcards_match_any_text_and_a_trailing_one_the_bare_command() {
        assert!(matches("ls *", "ls"));
        assert!(matches("ls *", "ls -la"));
        assert!(!matches("ls *", "lsof"));
        assert!(matches("ls*", "lsof"));
        assert!(matches("git * --help", "git commit --help"));
        assert!(!matches("git * --help", "git commit --help; rm"));
        assert!(matches("*", "anything at all"));
        assert!(matches("* --version", "cargo --version"));
        assert!(!matches("* --version", "cargo --version --verbose"));
    }
}
