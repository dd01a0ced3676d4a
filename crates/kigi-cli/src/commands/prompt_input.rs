//! The prompt of `kigi -p`: from the argument, from stdin (`echo … | kigi -p`, `kigi -p -`),
//! or both (`cat log | kigi -p "explain"` appends the piped text to the prompt, as Claude
//! Code does).
//!
//! The rule: stdin is read only when it is not a terminal, never past [`MAX_PIPED_BYTES`];
//! and when the argument already is a prompt, only if something arrives within
//! [`FIRST_BYTE_WAIT`], so a harness that leaves stdin open and silent cannot hold a run.

use std::io::{IsTerminal, Read};
use std::sync::mpsc;
use std::time::Duration;

/// The most stdin may carry: far more than a prompt needs, far less than memory.
pub const MAX_PIPED_BYTES: usize = 4 * 1024 * 1024;

/// How long a run that has a prompt argument waits for piped text to begin.
pub const FIRST_BYTE_WAIT: Duration = Duration::from_secs(3);

/// What `-p` was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptArg {
    /// `-p` alone: the prompt is on stdin.
    Absent,
    /// `-p -`: the prompt is on stdin.
    Stdin,
    /// `-p "PROMPT"`.
    Text(String),
}

impl PromptArg {
    pub fn from_flag(value: Option<String>) -> Self {
        match value {
            None => Self::Absent,
            Some(dash) if dash == "-" => Self::Stdin,
            Some(text) => Self::Text(text),
        }
    }
}

/// Why there is no prompt.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PromptError {
    /// `-p` without text, and stdin is a terminal.
    #[error("no prompt: pass it with -p \"PROMPT\", or pipe it in (echo \"PROMPT\" | kigi -p)")]
    NoPrompt,
    /// `-p -` with stdin a terminal.
    #[error("-p - reads the prompt from stdin, but stdin is a terminal; pipe the prompt in")]
    StdinIsTerminal,
    /// Stdin ended without text.
    #[error("no prompt: stdin was empty; pass it with -p \"PROMPT\"")]
    EmptyStdin,
    /// More than [`MAX_PIPED_BYTES`] on stdin.
    #[error(
        "the text piped to kigi -p is larger than {} MiB; pipe less (e.g. `tail -c 1000000 FILE | kigi -p \"…\"`)",
        MAX_PIPED_BYTES / (1024 * 1024)
    )]
    TooLarge,
    /// Reading stdin failed.
    #[error("cannot read the prompt from stdin: {0}")]
    Read(String),
}

/// The prompt from `arg` and `piped` (stdin's text, if it was read): the argument, with
/// piped text appended after a blank line; or the piped text alone.
pub fn compose(arg: PromptArg, piped: Option<&str>) -> Result<String, PromptError> {
    let piped = piped.map(str::trim_end).filter(|p| !p.trim().is_empty());
    match (arg, piped) {
        (PromptArg::Text(text), Some(piped)) => Ok(format!("{text}\n\n{piped}")),
        (PromptArg::Text(text), None) => Ok(text),
        (PromptArg::Absent | PromptArg::Stdin, Some(piped)) => Ok(piped.to_owned()),
        (PromptArg::Absent | PromptArg::Stdin, None) => Err(PromptError::EmptyStdin),
    }
}

/// The prompt `-p` runs: `arg`, stdin, or both (see the module docs).
pub fn resolve(arg: PromptArg) -> Result<String, PromptError> {
    if std::io::stdin().is_terminal() {
        return match arg {
            PromptArg::Text(text) => Ok(text),
            PromptArg::Absent => Err(PromptError::NoPrompt),
            PromptArg::Stdin => Err(PromptError::StdinIsTerminal),
        };
    }
    let wait = matches!(arg, PromptArg::Text(_)).then_some(FIRST_BYTE_WAIT);
    let piped = read_stdin(wait)?;
    if piped.is_none() {
        errln!(
            "kigi: nothing arrived on stdin within {}s; running without it (redirect stdin from /dev/null to skip the wait)",
            FIRST_BYTE_WAIT.as_secs()
        );
    }
    compose(arg, piped.as_deref())
}

/// Stdin's text, at most [`MAX_PIPED_BYTES`]; `None` when `first_byte_wait` passed with
/// nothing read (the reading thread is left blocked; the process does not wait for it).
fn read_stdin(first_byte_wait: Option<Duration>) -> Result<Option<String>, PromptError> {
    let (tx, rx) = mpsc::channel::<std::io::Result<Vec<u8>>>();
    let reader = move || {
        let mut stdin = std::io::stdin().lock();
        let mut buffer = vec![0u8; 64 * 1024];
        let mut total = 0usize;
        loop {
            match stdin.read(&mut buffer) {
                Ok(0) => return,
                Ok(n) => {
                    total += n;
                    if tx.send(Ok(buffer[..n].to_vec())).is_err() || total > MAX_PIPED_BYTES {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
    };
    std::thread::Builder::new()
        .name("kigi-stdin".into())
        .spawn(reader)
        .map_err(|e| PromptError::Read(e.to_string()))?;
    let mut bytes = Vec::new();
    let first = match first_byte_wait {
        Some(wait) => match rx.recv_timeout(wait) {
            Ok(chunk) => Some(chunk),
            Err(mpsc::RecvTimeoutError::Timeout) => return Ok(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
        },
        None => rx.recv().ok(),
    };
    for chunk in first.into_iter().chain(rx.iter()) {
        bytes.extend(chunk.map_err(|e| PromptError::Read(e.to_string()))?);
        if bytes.len() > MAX_PIPED_BYTES {
            return Err(PromptError::TooLarge);
        }
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piped_text_is_appended_to_a_prompt_argument() {
        assert_eq!(
            compose(PromptArg::Text("explain".into()), Some("line 1\nline 2\n")),
            Ok("explain\n\nline 1\nline 2".into())
        );
        assert_eq!(
            compose(PromptArg::Text("explain".into()), Some(" \n")),
            Ok("explain".into())
        );
    }

    #[test]
    fn piped_text_alone_is_the_prompt() {
        for arg in [PromptArg::Absent, PromptArg::Stdin] {
            assert_eq!(
                compose(arg.clone(), Some("what is here?\n")),
                Ok("what is here?".into())
            );
            assert_eq!(compose(arg, Some("")), Err(PromptError::EmptyStdin));
        }
    }

    #[test]
    fn a_dash_means_stdin() {
        assert_eq!(PromptArg::from_flag(Some("-".into())), PromptArg::Stdin);
        assert_eq!(PromptArg::from_flag(None), PromptArg::Absent);
        assert_eq!(
            PromptArg::from_flag(Some("hi".into())),
            PromptArg::Text("hi".into())
        );
    }
}
