//! `kigi agents list | show | validate | new`.
//!
//! The rule: in text mode every line goes through [`safe`], because names, descriptions,
//! paths and prompts come from repository files; `--json` keeps the bytes.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::{
    AgentBuilder, DiscoveredAgent, FileStatus, KigiPaths, ModelChoice, ProjectLayout, PromptMode,
    Severity, browser_unavailable, create_agent_file,
};
use serde_json::json;

use super::{context, context_with_config};
use crate::terminal_text::safe_for_terminal as safe;

/// First line of a description, with literal `\n` escapes read as breaks.
fn summary(agent: &DiscoveredAgent) -> String {
    agent
        .definition
        .display_description()
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

pub fn list(as_json: bool) -> anyhow::Result<ExitCode> {
    let (cwd, discovery) = context()?;
    let report = discovery.discover(&cwd);
    if as_json {
        let agents: Vec<_> = report
            .agents
            .iter()
            .map(|a| {
                let mut entry = json!({
                    "name": a.definition.name,
                    "scope": a.scope,
                    "source": a.origin(),
                    "trusted": a.trusted,
                    "description": a.definition.display_description(),
                });
                if let Some(why) = browser_unavailable(&a.definition, &discovery.browser) {
                    entry["unavailable"] = json!(why.to_string());
                }
                entry
            })
            .collect();
        let shadowed: Vec<_> = report
            .shadowed
            .iter()
            .map(|s| {
                json!({
                    "name": s.agent.definition.name,
                    "scope": s.agent.scope,
                    "source": s.agent.origin(),
                    "shadowed_by": s.shadowed_by,
                    "ignored_untrusted": s.ignored_untrusted,
                })
            })
            .collect();
        let out =
            json!({"agents": agents, "shadowed": shadowed, "diagnostics": report.diagnostics});
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let width = report
        .agents
        .iter()
        .map(|a| a.definition.name.len())
        .max()
        .unwrap_or(4);
    for agent in &report.agents {
        let mut lines = format!(
            "{:width$}  {:8}  {}\n{:width$}  {:8}  {}",
            agent.definition.name,
            agent.scope.as_str(),
            summary(agent),
            "",
            "",
            agent.origin(),
        );
        // Listed all the same: installing the browser is all it takes.
        if let Some(why) = browser_unavailable(&agent.definition, &discovery.browser) {
            lines.push_str(&format!(
                "\n{:width$}  {:8}  cannot run here: {why}",
                "", ""
            ));
        }
        outln!("{}", safe(&lines));
    }
    for shadowed in &report.shadowed {
        let (label, why) = if shadowed.ignored_untrusted {
            ("ignored ", "folder not trusted; runs")
        } else {
            ("shadowed", "by")
        };
        let line = format!(
            "{:width$}  {label}  {} ({why} {})",
            shadowed.agent.definition.name,
            shadowed.agent.origin(),
            shadowed.shadowed_by
        );
        outln!("{}", safe(&line));
    }
    for diagnostic in &report.diagnostics {
        errln!("{}", safe(&diagnostic.to_string()));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn show(name: &str, with_prompt: bool, as_json: bool) -> anyhow::Result<ExitCode> {
    let (cwd, discovery) = context()?;
    // A file meant to define `name` that failed to load is named with its error.
    let found = discovery
        .by_name_in_cwd(name, &cwd)
        .map_err(|e| anyhow::anyhow!("agent `{}`: {}", safe(name), safe(&e.to_string())))?;
    let Some(agent) = found else {
        let names = discovery.discover(&cwd);
        anyhow::bail!(
            "no agent named `{}`; available: {}",
            safe(name),
            safe(&names.names().join(", "))
        );
    };
    let built = AgentBuilder::new(&cwd)
        .with_paths(discovery.paths.clone())
        .from_definition(agent.definition.clone())
        .build()?;
    let unavailable = browser_unavailable(&agent.definition, &discovery.browser);
    if as_json {
        let mut out = json!({
            "scope": agent.scope,
            "source": agent.origin(),
            "trusted": agent.trusted,
            "agent": built,
        });
        if let Some(why) = &unavailable {
            out["unavailable"] = json!(why.to_string());
        }
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let def = &built.definition;
    let mut text = String::new();
    writeln!(text, "name:            {}", def.name)?;
    writeln!(
        text,
        "scope:           {} ({})",
        agent.scope.as_str(),
        agent.origin()
    )?;
    writeln!(text, "trusted:         {}", agent.trusted)?;
    if let Some(why) = &unavailable {
        writeln!(text, "unavailable:     {why}")?;
    }
    let model = match def.model.effective(&discovery.model_aliases) {
        ModelChoice::Inherit if def.model != ModelChoice::Inherit => format!(
            "{} (not a configured model alias: runs on the parent's model)",
            def.model
        ),
        effective => effective.to_string(),
    };
    writeln!(text, "model:           {model}")?;
    let prompt_mode = match def.prompt_mode {
        PromptMode::Extend => "extend",
        PromptMode::Full => "full",
    };
    writeln!(text, "prompt mode:     {prompt_mode}")?;
    // The spelling `--permission-mode` and `permissionMode:` take.
    writeln!(text, "permission mode: {}", def.permission_mode.spelling())?;
    if let Some(mode) = def.capability_mode {
        writeln!(text, "capability mode: {mode}")?;
    }
    let tools: Vec<String> = built
        .tools
        .iter()
        .map(|t| {
            if t.model_name == t.name {
                t.name.clone()
            } else {
                format!("{} (as {})", t.name, t.model_name)
            }
        })
        .collect();
    writeln!(text, "tools:           {}", tools.join(", "))?;
    if !def.disallowed_tools.is_empty() {
        writeln!(text, "denied tools:    {}", def.disallowed_tools.join(", "))?;
    }
    if let Some(turns) = def.max_turns {
        writeln!(text, "max turns:       {turns}")?;
    }
    writeln!(
        text,
        "description:\n  {}",
        def.display_description().replace('\n', "\n  ")
    )?;
    for diagnostic in &built.diagnostics {
        writeln!(text, "{diagnostic}")?;
    }
    if with_prompt {
        writeln!(
            text,
            "\n--- system prompt ({} chars) ---\n{}",
            built.system_prompt.len(),
            built.system_prompt
        )?;
    }
    out!("{}", safe(&text));
    Ok(ExitCode::SUCCESS)
}

pub fn validate(paths: &[PathBuf], as_json: bool) -> anyhow::Result<ExitCode> {
    let (cwd, discovery, config) = context_with_config()?;
    let reports = discovery.validate_paths(paths, &cwd);
    let count = |status| reports.iter().filter(|r| r.status == status).count();
    let (ok, warned, failed) = (
        count(FileStatus::Ok),
        count(FileStatus::Warning),
        count(FileStatus::Error),
    );
    if as_json {
        let config_warnings: Vec<String> =
            config.warnings.iter().map(ToString::to_string).collect();
        let out = json!({"files": reports, "ok": ok, "warning": warned, "error": failed,
                         "config_warnings": config_warnings});
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        // config.toml is read by every agent here, so its warnings come first.
        for warning in &config.warnings {
            outln!("{}", safe(&format!("warning {warning}")));
        }
        for report in &reports {
            let label = match report.status {
                FileStatus::Ok => "ok     ",
                FileStatus::Warning => "warning",
                FileStatus::Error => "error  ",
            };
            outln!("{label} {}", safe(&report.path.display().to_string()));
            for d in &report.diagnostics {
                let severity = if d.severity == Severity::Error {
                    "error"
                } else {
                    "warning"
                };
                let line = d.line.map(|l| format!("line {l}: ")).unwrap_or_default();
                let field = d
                    .field
                    .as_ref()
                    .map(|f| format!("`{f}`: "))
                    .unwrap_or_default();
                outln!(
                    "{}",
                    safe(&format!("    {severity}: {line}{field}{}", d.message))
                );
            }
        }
        outln!(
            "{} files: {ok} ok, {warned} with warnings, {failed} with errors",
            reports.len()
        );
    }
    Ok(if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

pub fn new(name: &str, user: bool) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let dir = if user {
        KigiPaths::from_env().agents_dir()
    } else {
        ProjectLayout::locate(&cwd).agents_dir()
    };
    let path = create_agent_file(&dir, name)?;
    outln!("created {}", path.display());
    warn_of_other_definitions(name, &path, &cwd);
    Ok(ExitCode::SUCCESS)
}

/// Says on stderr which other definition of `name` the new file at `path` shadows, or is
/// shadowed by (only one definition of a name runs).
fn warn_of_other_definitions(name: &str, path: &std::path::Path, cwd: &std::path::Path) {
    // Discovery that cannot be configured still created the file; it only cannot compare.
    let Ok((_, discovery)) = context() else {
        return;
    };
    let report = discovery.discover(cwd);
    let is_new = |a: &DiscoveredAgent| a.definition.source.as_deref() == Some(path);
    let warning = if let Some(refused) = report
        .shadowed
        .iter()
        .find(|s| s.ignored_untrusted && is_new(&s.agent))
    {
        format!(
            "`{name}` is the name of {}; this file is ignored until the folder is trusted (kigi trust)",
            refused.shadowed_by
        )
    } else {
        let definitions = report.definitions_named(name);
        let others: Vec<String> = definitions
            .iter()
            .filter(|a| !is_new(a))
            .map(|a| describe_definition(a))
            .collect();
        match definitions.first() {
            _ if others.is_empty() => return,
            Some(winner) if is_new(winner) => {
                format!("`{name}` now shadows {}", others.join(", "))
            }
            _ => format!(
                "`{name}` is shadowed by {}, which runs instead of this file",
                others.first().map(String::as_str).unwrap_or_default()
            ),
        }
    };
    errln!("kigi: warning: {}", safe(&warning));
}

/// `the built-in agent` or `the project agent in PATH`.
fn describe_definition(agent: &DiscoveredAgent) -> String {
    match &agent.definition.source {
        None => "the built-in agent".to_owned(),
        Some(path) => format!("the {} agent in {}", agent.scope.as_str(), path.display()),
    }
}
