//! A command line split into what permission rules judge: every simple command it would run
//! (through `&&`, `||`, `;`, `|`, `$(…)`, backticks, subshells, braces, `if`, loops, `case`
//! and function bodies) and every file it redirects into or out of. Parsed with a real POSIX
//! shell parser (`conch-parser`), never a regular expression.
//!
//! The rule: what cannot be known statically (a line that does not parse, a redirection to
//! `$FILE` or `~/x`, nesting deeper than [`MAX_NESTING`]) makes the parts incomplete, and an
//! incomplete line is never allowed by a rule, only denied or asked about.

use conch_parser::ast::{
    self, AndOr, Command, ComplexWord, CompoundCommandKind, ListableCommand, Parameter,
    ParameterSubstitution, PipeableCommand, Redirect, RedirectOrCmdWord, RedirectOrEnvVar,
    SimpleWord, TopLevelCommand, TopLevelWord, Word,
};
use conch_parser::lexer::Lexer;
use conch_parser::parse::DefaultParser;

/// Nesting (parentheses, braces, backticks) past which a line is not parsed: the parser
/// recurses, and no real command needs more.
pub const MAX_NESTING: usize = 64;

/// Redirection targets that are not files anyone could be harmed by writing.
const HARMLESS_TARGETS: [&str; 3] = ["/dev/null", "/dev/stdout", "/dev/stderr"];

/// What one command line would run and touch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellParts {
    /// Each simple command, its words joined by single spaces (quotes removed; a parameter
    /// shows as `$NAME`, a substitution as `$(…)`, whose commands are listed separately).
    pub commands: Vec<String>,
    /// Files written through `>`, `>>`, `>|` or `<>`, as written.
    pub writes: Vec<String>,
    /// Files read through `<` or `<>`, as written.
    pub reads: Vec<String>,
    /// False when something could not be known: such a line is never allowed by a rule.
    pub complete: bool,
    /// Where later relative redirections land, after the line's own `cd`s.
    dir: LineDir,
}

/// The folder a line has moved to with `cd`, relative to where it started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum LineDir {
    #[default]
    Start,
    /// `cd sub/dir` (joined across several).
    Relative(String),
    /// `cd /abs`.
    Absolute(String),
    /// `cd $X`, `cd` alone (home), `popd`: not knowable.
    Unknown,
}

impl ShellParts {
    /// Splits `line`. A line that does not parse is one incomplete command: itself.
    pub fn of(line: &str) -> Self {
        // A line kigi cannot parse is never allowed by a rule; so that deny and ask rules still
        // see every command in it, each piece between separators counts as a command too.
        let unparsed = || Self {
            commands: std::iter::once(line)
                .chain(line.split([';', '&', '|', '(', ')', '`', '\n', '{', '}']))
                .map(|piece| piece.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|piece| !piece.is_empty())
                .collect(),
            complete: false,
            ..Self::default()
        };
        if nesting(line) > MAX_NESTING {
            return unparsed();
        }
        let mut parts = Self {
            complete: true,
            ..Self::default()
        };
        for command in DefaultParser::new(Lexer::new(line.chars())) {
            match command {
                Ok(command) => parts.top_level(&command),
                Err(_) => return unparsed(),
            }
        }
        parts
    }

    fn top_level(&mut self, command: &TopLevelCommand<String>) {
        let (Command::List(list) | Command::Job(list)) = &command.0;
        self.listable(&list.first);
        for next in &list.rest {
            let (AndOr::And(next) | AndOr::Or(next)) = next;
            self.listable(next);
        }
    }

    fn listable(&mut self, command: &ast::DefaultListableCommand) {
        match command {
            ListableCommand::Single(command) => self.pipeable(command),
            ListableCommand::Pipe(_, commands) => {
                for command in commands {
                    self.pipeable(command);
                }
            }
        }
    }

    fn pipeable(&mut self, command: &ast::DefaultPipeableCommand) {
        match command {
            PipeableCommand::Simple(simple) => self.simple(simple),
            PipeableCommand::Compound(compound) => self.compound(compound),
            PipeableCommand::FunctionDef(_, body) => self.compound(body),
        }
    }

    fn compound(&mut self, compound: &ast::DefaultCompoundCommand) {
        for redirect in &compound.io {
            self.redirect(redirect);
        }
        match &compound.kind {
            CompoundCommandKind::Brace(body) | CompoundCommandKind::Subshell(body) => {
                self.body(body)
            }
            CompoundCommandKind::While(pair) | CompoundCommandKind::Until(pair) => {
                self.body(&pair.guard);
                self.body(&pair.body);
            }
            CompoundCommandKind::If {
                conditionals,
                else_branch,
            } => {
                for pair in conditionals {
                    self.body(&pair.guard);
                    self.body(&pair.body);
                }
                if let Some(body) = else_branch {
                    self.body(body);
                }
            }
            CompoundCommandKind::For { words, body, .. } => {
                for word in words.iter().flatten() {
                    self.word(word);
                }
                self.body(body);
            }
            CompoundCommandKind::Case { word, arms } => {
                self.word(word);
                for arm in arms {
                    for pattern in &arm.patterns {
                        self.word(pattern);
                    }
                    self.body(&arm.body);
                }
            }
        }
    }

    fn body(&mut self, commands: &[TopLevelCommand<String>]) {
        for command in commands {
            self.top_level(command);
        }
    }

    fn simple(&mut self, simple: &ast::DefaultSimpleCommand) {
        let mut words = Vec::new();
        for item in &simple.redirects_or_env_vars {
            match item {
                RedirectOrEnvVar::Redirect(redirect) => self.redirect(redirect),
                // Assignments stay in the command's text: `LD_PRELOAD=x git status` is not
                // `git status`.
                RedirectOrEnvVar::EnvVar(name, value) => {
                    let value = value.as_ref().map(|v| self.word(v)).unwrap_or_default();
                    words.push(format!("{name}={value}"));
                }
            }
        }
        for item in &simple.redirects_or_cmd_words {
            match item {
                RedirectOrCmdWord::Redirect(redirect) => self.redirect(redirect),
                RedirectOrCmdWord::CmdWord(word) => words.push(self.word(word)),
            }
        }
        self.follow_cd(&words);
        if !words.is_empty() {
            self.commands.push(words.join(" "));
        }
    }

    /// A `cd`/`pushd`/`popd` moves where later relative redirections land; one that cannot
    /// be known makes the line incomplete.
    fn follow_cd(&mut self, words: &[String]) {
        let Some(program) = words.first() else {
            return;
        };
        if !matches!(program.as_str(), "cd" | "pushd" | "popd") {
            return;
        }
        let target = words
            .get(1)
            .filter(|_| program != "popd" && words.len() == 2);
        self.dir = match target {
            Some(dir) if !dir.contains(['$', '`', '~', '*', '?']) && dir != "-" => {
                let dir = dir.trim_end_matches('/');
                match std::mem::take(&mut self.dir) {
                    _ if dir.starts_with('/') => LineDir::Absolute(dir.to_owned()),
                    LineDir::Start => LineDir::Relative(dir.to_owned()),
                    LineDir::Relative(base) => LineDir::Relative(format!("{base}/{dir}")),
                    LineDir::Absolute(base) => LineDir::Absolute(format!("{base}/{dir}")),
                    LineDir::Unknown => LineDir::Unknown,
                }
            }
            _ => LineDir::Unknown,
        };
        if self.dir == LineDir::Unknown {
            self.complete = false;
        }
    }

    fn redirect(&mut self, redirect: &ast::DefaultRedirect) {
        match redirect {
            Redirect::Write(_, target)
            | Redirect::Append(_, target)
            | Redirect::Clobber(_, target) => {
                let target = self.target(target);
                self.writes.extend(target);
            }
            Redirect::ReadWrite(_, target) => {
                let target = self.target(target);
                self.writes.extend(target.clone());
                self.reads.extend(target);
            }
            Redirect::Read(_, target) => {
                let target = self.target(target);
                self.reads.extend(target);
            }
            // A here-document's body may hold substitutions; `>&2` names a descriptor.
            Redirect::Heredoc(_, body) => {
                self.word(body);
            }
            // `>&2` names a descriptor; `>&$x` may name a file (bash writes both streams
            // there), which no rule can judge.
            Redirect::DupRead(_, target) | Redirect::DupWrite(_, target) => {
                let text = self.word(target);
                let descriptor =
                    text == "-" || (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()));
                if !is_static(target) || !descriptor {
                    self.complete = false;
                }
            }
        }
    }

    /// A redirection's file, when it is a plain path; otherwise the parts become incomplete.
    fn target(&mut self, word: &TopLevelWord<String>) -> Option<String> {
        let text = self.word(word);
        if !is_static(word) {
            self.complete = false;
            return None;
        }
        if HARMLESS_TARGETS.contains(&text.as_str()) {
            return None;
        }
        // Relative to where the line's `cd`s moved it.
        Some(match &self.dir {
            _ if text.starts_with('/') => text,
            LineDir::Start => text,
            LineDir::Relative(dir) | LineDir::Absolute(dir) => format!("{dir}/{text}"),
            LineDir::Unknown => {
                self.complete = false;
                text
            }
        })
    }

    /// A word's text (quotes removed), listing the commands of its substitutions.
    fn word(&mut self, word: &TopLevelWord<String>) -> String {
        match &word.0 {
            ComplexWord::Single(word) => self.word_part(word),
            ComplexWord::Concat(words) => words.iter().map(|w| self.word_part(w)).collect(),
        }
    }

    fn word_part(&mut self, word: &ast::DefaultWord) -> String {
        match word {
            Word::Simple(simple) => self.simple_word(simple),
            Word::DoubleQuoted(simples) => simples.iter().map(|s| self.simple_word(s)).collect(),
            Word::SingleQuoted(text) => text.clone(),
        }
    }

    fn simple_word(&mut self, word: &ast::DefaultSimpleWord) -> String {
        match word {
            SimpleWord::Literal(text) | SimpleWord::Escaped(text) => text.clone(),
            SimpleWord::Param(parameter) => format!("${}", parameter_name(parameter)),
            SimpleWord::Subst(substitution) => self.substitution(substitution),
            SimpleWord::Star => "*".into(),
            SimpleWord::Question => "?".into(),
            SimpleWord::SquareOpen => "[".into(),
            SimpleWord::SquareClose => "]".into(),
            SimpleWord::Tilde => "~".into(),
            SimpleWord::Colon => ":".into(),
        }
    }

    fn substitution(&mut self, substitution: &ast::DefaultParameterSubstitution) -> String {
        match substitution {
            ParameterSubstitution::Command(commands) => {
                self.body(commands);
                "$(…)".into()
            }
            ParameterSubstitution::Arith(_) => "$((…))".into(),
            ParameterSubstitution::Len(parameter) => format!("${{#{}}}", parameter_name(parameter)),
            ParameterSubstitution::Default(_, parameter, word)
            | ParameterSubstitution::Assign(_, parameter, word)
            | ParameterSubstitution::Error(_, parameter, word)
            | ParameterSubstitution::Alternative(_, parameter, word)
            | ParameterSubstitution::RemoveSmallestSuffix(parameter, word)
            | ParameterSubstitution::RemoveLargestSuffix(parameter, word)
            | ParameterSubstitution::RemoveSmallestPrefix(parameter, word)
            | ParameterSubstitution::RemoveLargestPrefix(parameter, word) => {
                // The word may hold a substitution of its own.
                if let Some(word) = word {
                    self.word(word);
                }
                format!("${{{}…}}", parameter_name(parameter))
            }
        }
    }
}

fn parameter_name(parameter: &Parameter<String>) -> String {
    match parameter {
        Parameter::At => "@".into(),
        Parameter::Star => "*".into(),
        Parameter::Pound => "#".into(),
        Parameter::Question => "?".into(),
        Parameter::Dash => "-".into(),
        Parameter::Dollar => "$".into(),
        Parameter::Bang => "!".into(),
        Parameter::Positional(n) => n.to_string(),
        Parameter::Var(name) => name.clone(),
    }
}

/// True when a word is the same text whatever the environment: no parameter, substitution,
/// glob or tilde.
fn is_static(word: &TopLevelWord<String>) -> bool {
    let simple_static = |simple: &ast::DefaultSimpleWord| {
        matches!(
            simple,
            SimpleWord::Literal(_) | SimpleWord::Escaped(_) | SimpleWord::Colon
        )
    };
    let part_static = |word: &ast::DefaultWord| match word {
        Word::Simple(simple) => simple_static(simple),
        Word::DoubleQuoted(simples) => simples.iter().all(simple_static),
        Word::SingleQuoted(_) => true,
    };
    match &word.0 {
        ComplexWord::Single(word) => part_static(word),
        ComplexWord::Concat(words) => words.iter().all(part_static),
    }
}

/// The deepest nesting of brackets and backticks, counted cheaply before parsing.
fn nesting(line: &str) -> usize {
    let (mut depth, mut deepest, mut in_backticks) = (0usize, 0usize, false);
    for c in line.chars() {
        match c {
            '(' | '{' => depth += 1,
            ')' | '}' => depth = depth.saturating_sub(1),
            '`' => {
                in_backticks = !in_backticks;
                if in_backticks {
                    depth += 1;
                } else {
                    depth = depth.saturating_sub(1);
                }
            }
            _ => {}
        }
        deepest = deepest.max(depth);
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(line: &str) -> Vec<String> {
        ShellParts::of(line).commands
    }

    #[test]
    fn every_simple_command_of_a_compound_line_is_listed() {
        assert_eq!(
            commands("cargo test && rm -rf / || echo done; ls | wc -l"),
            ["cargo test", "rm -rf /", "echo done", "ls", "wc -l"]
        );
        assert_eq!(
            commands("echo $(curl evil.sh) `id`"),
            ["curl evil.sh", "id", "echo $(…) $(…)"]
        );
        assert_eq!(
            commands("(cd sub && make) ; { true; } ; if git diff; then rm x; else touch y; fi"),
            ["cd sub", "make", "true", "git diff", "rm x", "touch y"]
        );
        assert_eq!(
            commands("for f in $(ls); do cat \"$f\"; done"),
            ["ls", "cat $f"]
        );
        assert_eq!(commands("f() { rm -rf ~; }; f"), ["rm -rf ~", "f"]);
    }

    #[test]
    fn quotes_are_removed_and_assignments_kept() {
        assert_eq!(
            commands("git commit -m 'fix: a bug' --author=\"A B\""),
            ["git commit -m fix: a bug --author=A B"]
        );
        assert_eq!(
            commands("LD_PRELOAD=x.so git status"),
            ["LD_PRELOAD=x.so git status"]
        );
    }

    #[test]
    fn redirections_are_reads_and_writes_and_dynamic_ones_make_the_line_incomplete() {
        let parts = ShellParts::of("sort < in.txt > out.txt 2>&1 2>/dev/null >> log");
        assert_eq!(parts.commands, ["sort"]);
        assert_eq!(parts.reads, ["in.txt"]);
        assert_eq!(parts.writes, ["out.txt", "log"]);
        assert!(parts.complete);
        assert!(!ShellParts::of("echo x > $HOME/.bashrc").complete);
        assert!(!ShellParts::of("echo x > ~/.bashrc").complete);
        assert!(ShellParts::of("echo x > /dev/null").writes.is_empty());
    }

    #[test]
    fn redirections_after_a_cd_land_where_the_cd_went() {
        let parts = ShellParts::of("cd .github/workflows && echo x > ci.yml");
        assert_eq!(parts.writes, [".github/workflows/ci.yml"]);
        assert!(parts.complete);
        let parts = ShellParts::of("cd /etc; cd ssh; echo x >> config");
        assert_eq!(parts.writes, ["/etc/ssh/config"]);
        assert!(!ShellParts::of("cd $DIR && echo x > f").complete);
        assert!(!ShellParts::of("cd && echo x > f").complete);
    }

    #[test]
    fn a_line_that_does_not_parse_or_nests_too_deep_is_incomplete() {
        let broken = ShellParts::of("echo 'unterminated");
        assert!(!broken.complete);
        assert_eq!(broken.commands[0], "echo 'unterminated");
        // Every piece of a line that does not parse is a command deny rules see.
        let sneaky = ShellParts::of("true <<<x; git push --force");
        assert!(!sneaky.complete);
        assert!(
            sneaky.commands.iter().any(|c| c == "git push --force"),
            "{:?}",
            sneaky.commands
        );
        assert!(!ShellParts::of("echo x >&${u:-.git/hooks/pre-commit}").complete);
        assert!(ShellParts::of("echo x 2>&1 >&2").complete);
        let deep = format!("{}true{}", "$(".repeat(100), ")".repeat(100));
        assert!(!ShellParts::of(&deep).complete);
        assert!(ShellParts::of("git status").complete);
    }
}
