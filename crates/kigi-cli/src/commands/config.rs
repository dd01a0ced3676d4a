//! `kigi config [--json]`: the effective configuration, one value per line with where it came
//! from (file and line, environment variable, flag, default), then the loader's warnings.
//! Never prints a secret: key variables are shown by name with whether they are set.

use std::process::ExitCode;

use kigi_agent::{ConfigEntry, LoadedConfig};
use kigi_model::ModelFlags;
use serde_json::json;

pub fn show(flags: &ModelFlags, as_json: bool) -> anyhow::Result<ExitCode> {
    let loaded = LoadedConfig::from_env()?;
    let entries = loaded.entries(flags, &|name| std::env::var(name).ok());
    let exists = loaded.path.is_file();
    if as_json {
        let warnings: Vec<_> = loaded
            .warnings
            .iter()
            .map(|w| {
                let mut value = serde_json::to_value(w).unwrap_or_default();
                if let Some(object) = value.as_object_mut() {
                    object.insert("message".into(), w.to_string().into());
                }
                value
            })
            .collect();
        let out = json!({
            "path": loaded.path,
            "exists": exists,
            "values": entries,
            "warnings": warnings,
        });
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let missing = if exists { "" } else { " (not found: defaults)" };
    outln!("# {}{missing}", loaded.path.display());
    out!("{}", render(&entries));
    for warning in &loaded.warnings {
        outln!("warning: {warning}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `key = value` lines, origins aligned in a column.
fn render(entries: &[ConfigEntry]) -> String {
    let lines: Vec<(String, String)> = entries
        .iter()
        .map(|e| {
            (
                format!("{} = {}", e.key, e.display_value()),
                e.origin.to_string(),
            )
        })
        .collect();
    let width = lines.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    lines
        .iter()
        .map(|(line, origin)| format!("{line:width$}  {origin}\n"))
        .collect()
}
