//! `kigi personas list|show` and `kigi roles list|show`: what a spawn can name, and where
//! each came from.
//!
//! The rule: every text line goes through [`safe`]: names, descriptions, paths and
//! instructions come from repository files, and a terminal must show their control
//! characters, not obey them. `--json` keeps the bytes.

use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::{Discovery, KigiPaths, OverlaySet, OverlaySource, PersonaSet, RoleSet};
use serde::Serialize;
use serde_json::{Value, json};

use crate::terminal_text::safe_for_terminal as safe;

fn load() -> anyhow::Result<(Discovery, std::path::PathBuf)> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    Ok((Discovery::load(KigiPaths::from_env())?, cwd))
}

fn shadows(list: &[OverlaySource]) -> String {
    if list.is_empty() {
        return String::new();
    }
    let names: Vec<String> = list.iter().map(OverlaySource::describe).collect();
    format!("  (shadows {})", names.join(", "))
}

/// The set's diagnostics on stderr, and with `list`, one line per entry: name, source,
/// description, what it shadows.
fn report<T>(set: &OverlaySet<T>, list: bool, description: fn(&T) -> &str) {
    for diagnostic in &set.diagnostics {
        errln!("{}", safe(&diagnostic.to_string()));
    }
    if !list {
        return;
    }
    for (name, entry) in &set.entries {
        let line = format!(
            "{name:<16} {:<40} {}{}",
            entry.source.describe(),
            description(&entry.value),
            shadows(&entry.shadows)
        );
        outln!("{}", safe(&line));
    }
}

/// The set as JSON: every entry (or the one named `show`, with `text`: its instructions or
/// prompt) with its source and what it shadows, and the diagnostics.
fn set_json<T: Serialize>(
    set: &OverlaySet<T>,
    show: Option<&str>,
    text_key: &str,
    text: Option<String>,
) -> anyhow::Result<Value> {
    let entry_json = |name: &str| -> anyhow::Result<Value> {
        let entry = set
            .get(name)
            .with_context(|| format!("no entry `{name}`"))?;
        let mut value = json!({
            "name": name,
            "source": entry.source,
            "shadows": entry.shadows,
            "value": entry.value,
        });
        if let (Some(text), Some(_)) = (&text, show) {
            value[text_key] = json!(text);
        }
        Ok(value)
    };
    let diagnostics: Vec<String> = set.diagnostics.iter().map(ToString::to_string).collect();
    Ok(match show {
        Some(name) => {
            let mut value = entry_json(name)?;
            value["diagnostics"] = json!(diagnostics);
            value
        }
        None => {
            let entries = set
                .entries
                .keys()
                .map(|name| entry_json(name))
                .collect::<anyhow::Result<Vec<_>>>()?;
            json!({"entries": entries, "diagnostics": diagnostics})
        }
    })
}

pub fn personas(show: Option<&str>, as_json: bool) -> anyhow::Result<ExitCode> {
    let (discovery, cwd) = load()?;
    let set = PersonaSet::discover(&discovery.subagents, &discovery.paths, &cwd);
    if as_json {
        // A persona switched off is still shown whole: what it would say, and that it is off.
        let instructions = match show {
            Some(name) => Some(set.instructions_text(name).map_err(anyhow::Error::msg)?),
            None => None,
        };
        let mut value = set_json(&set, show, "instructions", instructions)?;
        let mark = |entry: &mut serde_json::Value| {
            let name = entry["name"].as_str().unwrap_or_default().to_owned();
            entry["enabled"] = json!(!set.is_switched_off(&name));
        };
        match value.get_mut("entries").and_then(|e| e.as_array_mut()) {
            Some(entries) => entries.iter_mut().for_each(mark),
            None => mark(&mut value),
        }
        outln!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(ExitCode::SUCCESS);
    }
    report(&set, show.is_none(), |p| &p.description);
    if let Some(name) = show {
        let instructions = set
            .instructions_text(name)
            .map_err(|e| anyhow::Error::msg(safe(&e).into_owned()))?;
        let entry = set.get(name).context("persona vanished")?;
        let mut text = format!(
            "name:        {name}\nsource:      {}\ndescription: {}\n",
            entry.source.describe(),
            entry.value.description
        );
        if set.is_switched_off(name) {
            text.push_str(
                "status:      switched off ([subagents.persona_toggle] in config.toml)\n",
            );
        }
        for (label, value) in [
            ("model", &entry.value.model),
            ("effort", &entry.value.reasoning_effort),
            ("isolation", &entry.value.default_isolation),
        ] {
            if let Some(value) = value {
                text.push_str(&format!("{label:<12} {value}\n"));
            }
        }
        outln!("{}\n{}", safe(&text), safe(&instructions));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn roles(show: Option<&str>, as_json: bool) -> anyhow::Result<ExitCode> {
    let (discovery, cwd) = load()?;
    let set = RoleSet::discover(&discovery.subagents, &discovery.paths, &cwd);
    if as_json {
        let prompt = match show {
            Some(name) => {
                if set.get(name).is_none() {
                    let names: Vec<&str> = set.entries.keys().map(String::as_str).collect();
                    anyhow::bail!("no role `{name}`; roles: {}", names.join(", "));
                }
                set.prompt(name).map_err(anyhow::Error::msg)?
            }
            None => None,
        };
        let value = set_json(&set, show, "prompt", prompt)?;
        outln!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(ExitCode::SUCCESS);
    }
    report(&set, show.is_none(), |r| &r.description);
    match show {
        None if set.entries.is_empty() => {
            outln!("no roles ([subagents.roles.<name>] in config.toml, or .kigi/roles/*.toml)");
        }
        None => {}
        Some(name) => {
            let entry = set.get(name).with_context(|| {
                let names: Vec<&str> = set.entries.keys().map(String::as_str).collect();
                safe(&format!("no role `{name}`; roles: {}", names.join(", "))).into_owned()
            })?;
            let role = &entry.value;
            let text = format!(
                "name:            {name}\nsource:          {}\ndescription:     {}\n\
                 capability mode: {}\nmodel:           {}\npersona:         {}",
                entry.source.describe(),
                role.description,
                role.default_capability_mode
                    .as_deref()
                    .unwrap_or("(the type's)"),
                role.model.as_deref().unwrap_or("(inherits)"),
                role.persona.as_deref().unwrap_or("(none)"),
            );
            outln!("{}", safe(&text));
            if let Some(prompt) = set
                .prompt(name)
                .map_err(|e| anyhow::Error::msg(safe(&e).into_owned()))?
            {
                outln!("\n{}", safe(prompt.trim_end()));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
