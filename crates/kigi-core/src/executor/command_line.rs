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
        args.push(fill(arg, turn.prompt, &cwd, turn.model.unwrap_or_default()));
    }
    CommandLine {
        program: config.command.clone(),
        args,
        env: config.env.clone(),
    }
}

/// One argument with its placeholders replaced in a single pass, so a prompt that itself
/// says `{cwd}` is not expanded again.
fn fill(arg: &str, prompt: &str, cwd: &str, model: &str) -> String {
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let (value, len) = [("{prompt}", prompt), ("{cwd}", cwd), ("{model}", model)]
            .into_iter()
            .find(|(token, _)| after.starts_with(token))
            .map_or(("{", 1), |(token, value)| (value, token.len()));
        out.push_str(value);
        rest = &after[len..];
    }
    out.push_str(rest);
    out
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
            &config(&["-p", "{prompt}", "--cwd={cwd}", "--model", "{model}"]),
            &TurnInput {
                prompt: "say 'hi'; rm -rf / {cwd}\nnext",
                cwd: Path::new("/w/x"),
                model: Some("opus"),
            },
        );
        assert_eq!(
            line,
            CommandLine {
                program: "claude".into(),
                args: vec![
                    "-p".into(),
                    "say 'hi'; rm -rf / {cwd}\nnext".into(),
                    "--cwd=/w/x".into(),
                    "--model".into(),
                    "opus".into(),
                ],
                env: BTreeMap::from([("K".into(), "v".into())]),
            }
        );
    }

    #[test]
    fn an_unset_model_drops_its_argument_and_flag() {
        let turn = TurnInput {
            prompt: "p",
            cwd: Path::new("/w"),
            model: None,
        };
        let paired = command_line(&config(&["--model", "{model}", "-p", "{prompt}"]), &turn);
        assert_eq!(paired.args, ["-p", "p"]);
        let joined = command_line(&config(&["--model={model}", "{prompt}", "{}"]), &turn);
        assert_eq!(joined.args, ["p", "{}"]);
    }
}
