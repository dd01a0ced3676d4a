//! From `[agent_executors.<id>]` and one turn to the exact program, arguments and variables
//! kigi starts: a pure function, so what reaches the engine is tested without starting it.
//!
//! The rule: arguments go to `execve` as they are, one `args` entry one argument, never
//! through a shell; a prompt with quotes, `;` or newlines stays one argument. An unset
//! `{model}` leaves the engine's own model: the argument holding it (and a flag right before
//! it) is dropped, never sent empty.

use std::collections::BTreeMap;
use std::path::Path;

use kigi_agent::ExecutorConfig;

/// What one turn fills the template with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnInput<'a> {
    pub prompt: &'a str,
    pub cwd: &'a Path,
    /// The model the spawn or the agent file names, as written; `None` keeps the engine's.
    pub model: Option<&'a str>,
    /// The child's id (`sub-7`) and its session's: a cluster job's name, a log file's, so a
    /// person (or `scancel --name`) can find one member among thousands.
    pub member: &'a str,
    pub session: &'a str,
}

/// The process to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    pub program: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

/// `config`'s template filled for one turn.
pub fn command_line(config: &ExecutorConfig, turn: &TurnInput<'_>) -> CommandLine {
    let cwd = turn.cwd.display().to_string();
    let mut args: Vec<String> = Vec::with_capacity(config.args.len());
    for arg in &config.args {
        if arg.contains("{model}") && turn.model.is_none() {
            // `--model {model}` goes as a pair; `--model={model}` alone.
            if arg == "{model}" && args.last().is_some_and(|flag| flag.starts_with('-')) {
                args.pop();
            }
            continue;
        }
        args.push(fill(arg, turn, &cwd));
    }
    CommandLine {
        program: config.command.clone(),
        args,
        env: config.env.clone(),
    }
}

/// One argument with its placeholders replaced in a single pass, so a prompt that itself
/// says `{cwd}` is not expanded again.
fn fill(arg: &str, turn: &TurnInput<'_>, cwd: &str) -> String {
    let quoted = shell_quoted(turn.prompt);
    let values = [
        ("{prompt_quoted}", quoted.as_str()),
        ("{prompt}", turn.prompt),
        ("{cwd}", cwd),
        ("{model}", turn.model.unwrap_or_default()),
        ("{member}", turn.member),
        ("{session}", turn.session),
    ];
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let (value, len) = values
            .into_iter()
            .find(|(token, _)| after.starts_with(token))
            .map_or(("{", 1), |(token, value)| (value, token.len()));
        out.push_str(value);
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// `text` as one word of a POSIX shell: for `ssh`, which joins its arguments into one line
/// the remote shell splits again, so `{prompt}` alone would arrive as many words.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kigi_agent::{ExecutorKind, ExecutorOutputFormat};

    fn config(args: &[&str]) -> ExecutorConfig {
        ExecutorConfig {
            kind: ExecutorKind::Command,
            command: "claude".into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: BTreeMap::from([("K".into(), "v".into())]),
            output_format: Some(ExecutorOutputFormat::ClaudeStreamJson),
            profile_delivery: Default::default(),
            timeout_secs: None,
        }
    }

    #[test]
    fn a_prompt_with_shell_syntax_stays_one_argument_and_is_not_expanded_again() {
        let line = command_line(
            &config(&[
                "--job-name=kigi-{session}-{member}",
                "-p",
                "{prompt}",
                "--cwd={cwd}",
                "--model",
                "{model}",
            ]),
            &TurnInput {
                prompt: "say 'hi'; rm -rf / {cwd} {member}\nnext",
                cwd: Path::new("/w/x"),
                model: Some("opus"),
                member: "sub-7",
                session: "s1",
            },
        );
        assert_eq!(
            line,
            CommandLine {
                program: "claude".into(),
                args: vec![
                    "--job-name=kigi-s1-sub-7".into(),
                    "-p".into(),
                    "say 'hi'; rm -rf / {cwd} {member}\nnext".into(),
                    "--cwd=/w/x".into(),
                    "--model".into(),
                    "opus".into(),
                ],
                env: BTreeMap::from([("K".into(), "v".into())]),
            }
        );
    }

    #[test]
    fn a_quoted_prompt_is_one_word_to_a_remote_shell() {
        let line = command_line(
            &config(&["host", "kigi -p {prompt_quoted}"]),
            &TurnInput {
                prompt: "it's $HOME; `x`",
                cwd: Path::new("/w"),
                model: None,
                member: "sub-1",
                session: "s",
            },
        );
        assert_eq!(line.args[1], r"kigi -p 'it'\''s $HOME; `x`'");
        let echoed = std::process::Command::new("sh")
            .args(["-c", &format!("printf %s {}", &line.args[1][8..])])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&echoed.stdout), "it's $HOME; `x`");
    }

    #[test]
    fn an_unset_model_drops_its_argument_and_flag() {
        let turn = TurnInput {
            prompt: "p",
            cwd: Path::new("/w"),
            model: None,
            member: "sub-1",
            session: "s",
        };
        let paired = command_line(&config(&["--model", "{model}", "-p", "{prompt}"]), &turn);
        assert_eq!(paired.args, ["-p", "p"]);
        let joined = command_line(&config(&["--model={model}", "{prompt}", "{}"]), &turn);
        assert_eq!(joined.args, ["p", "{}"]);
    }
}
