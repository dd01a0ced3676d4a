//! `kigi hooks list`: every hook a session here would run (the user's `config.toml`, this
//! project's `.kigi/settings.toml` once trusted, and the agent's own inline `hooks:`), each
//! with its event, matcher, command, timeout and source.

use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::DEFAULT_AGENT;
use kigi_agent::hooks::{HookSet, HookSource};
use serde_json::json;

use crate::terminal_text::safe_for_terminal;

pub fn list(agent: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let host = super::session_host()?;
    let (mut hooks, mut notices) = host.session_hooks(&cwd)?;
    let name = agent.unwrap_or(DEFAULT_AGENT);
    match host.discovery().by_name_in_cwd(name, &cwd)? {
        Some(found) => {
            if let Some(inline) = &found.definition.hooks {
                match HookSet::from_json(inline, &HookSource::Agent(name.to_owned())) {
                    Ok(own) => hooks.extend(own),
                    Err(error) => notices.push(format!(
                        "agent {name}: its inline hooks are not used: {error}"
                    )),
                }
            }
        }
        None if agent.is_some() => anyhow::bail!("no agent named `{name}`"),
        None => {}
    }
    if json {
        let listed: Vec<_> = hooks
            .hooks()
            .iter()
            .map(|hook| {
                json!({
                    "event": hook.event.name(),
                    "matcher": hook.matcher_text,
                    "command": hook.command,
                    "timeout_secs": hook.timeout.as_secs_f64(),
                    "source": hook.source.to_string(),
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({"hooks": listed, "notices": notices}))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if hooks.is_empty() {
        outln!("No hooks for agent {name} in {}.", cwd.display());
    } else {
        outln!("Hooks for agent {name} in {}:", cwd.display());
    }
    for hook in hooks.hooks() {
        let matcher = hook.matcher_text.as_deref().unwrap_or("*");
        outln!(
            "  {:<16} {:<12} {}  (timeout {}s; {})",
            hook.event.name(),
            safe_for_terminal(matcher),
            safe_for_terminal(&hook.command),
            hook.timeout.as_secs_f64(),
            safe_for_terminal(&hook.source.to_string())
        );
    }
    for notice in &notices {
        outln!("note: {}", safe_for_terminal(notice));
    }
    Ok(ExitCode::SUCCESS)
}
