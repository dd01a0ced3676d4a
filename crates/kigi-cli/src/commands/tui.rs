//! `kigi` and `kigi "PROMPT"`: the interactive terminal (`kigi-tui`) on a session opened with
//! the same flags as print mode. With no model configured it says how to configure one and
//! offers the demo instead of failing.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::{KigiPaths, LoadedConfig};
use kigi_core::host::HostError;
use kigi_model::ModelConfigError;
use kigi_tui::{TuiError, TuiOptions};

use super::demo;
use super::progress::OutputFormat;

/// Everything `kigi [PROMPT]` was told.
#[derive(Debug, Clone)]
pub struct TuiArgs {
    pub prompt: Option<String>,
    /// Which session, agent and model, and under which rules.
    pub session: super::session_flags::SessionFlags,
}

/// Runs the interactive terminal.
pub fn run(args: TuiArgs) -> anyhow::Result<ExitCode> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        errln!(
            "kigi: the interactive terminal needs a terminal on stdin and stdout; run one turn headless with `kigi -p \"PROMPT\"`"
        );
        return Ok(ExitCode::from(2));
    }
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let paths = KigiPaths::from_env();
    let config = LoadedConfig::load(&paths.config_file(), &|name| std::env::var(name).ok())
        .map(|loaded| loaded.config)
        .unwrap_or_default();
    let history_path = paths.kigi_home.join("prompt-history.jsonl");
    let host = super::session_host()?;
    let request = args.session.open_request(&cwd);
    let runtime = super::runtime()?;
    let ran = runtime.block_on(kigi_tui::run(TuiOptions {
        host,
        request,
        prompt: args.prompt.clone(),
        theme: config.tui.theme.clone(),
        history_path,
        default_context_window: config.compaction.default_context_window,
    }));
    runtime.shutdown_timeout(super::RUNTIME_SHUTDOWN);
    match ran {
        Ok(id) => {
            errln!("kigi: carry on with `kigi --resume {id}`");
            Ok(ExitCode::SUCCESS)
        }
        Err(TuiError::Host(error)) => match *error {
            HostError::Model(
                error @ (ModelConfigError::MissingEndpoint { .. }
                | ModelConfigError::MissingModel { .. }),
            ) => offer_demo(&error.to_string(), args.prompt.as_deref()),
            other => Err(TuiError::from(other).into()),
        },
        Err(error) => Err(error.into()),
    }
}

/// Explains how to configure a model, and runs the demo when the person says yes.
fn offer_demo(error: &str, prompt: Option<&str>) -> anyhow::Result<ExitCode> {
    errln!(
        "kigi: {error}\n\
         kigi: to configure a model, set KIGI_BASE_URL and KIGI_MODEL (and KIGI_API_KEY if the endpoint needs one),\n\
         kigi: or put `default_model` and `[endpoints] api_base_url` in $KIGI_HOME/config.toml (`kigi config` shows what is set).\n\
         kigi: `kigi demo` runs a real session on the bundled scripted model, no key needed."
    );
    err!("Run the demo now? [Y/n] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    if matches!(answer.trim(), "" | "y" | "Y" | "yes") {
        return demo::run_command(prompt, OutputFormat::Text);
    }
    Ok(ExitCode::from(2))
}
