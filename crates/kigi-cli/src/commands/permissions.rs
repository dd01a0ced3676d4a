//! `kigi permissions`: the rules a session in this folder would run under, deny first, each
//! with the file or flag it came from, and what was ignored for lack of trust.

use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::permissions::{PermissionRules, RuleEffect};
use serde_json::json;

use crate::terminal_text::safe_for_terminal;

pub fn show(flag_rules: &PermissionRules, json: bool) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let host = super::session_host()?;
    let (rules, notices) = host.session_rules(&cwd, flag_rules)?;
    let mut sorted: Vec<_> = rules.rules().iter().collect();
    // Deny beats ask beats allow: listed in that order, each group as written.
    sorted.sort_by_key(|rule| rule.effect);
    if json {
        let rules: Vec<_> = sorted
            .iter()
            .map(|rule| {
                json!({
                    "effect": rule.effect.list_name(),
                    "rule": rule.rule.text,
                    "source": rule.source.to_string(),
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({"rules": rules, "notices": notices}))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "Permission rules for {} (deny beats ask beats allow):",
        cwd.display()
    );
    let width = sorted
        .iter()
        .map(|r| r.rule.text.chars().count())
        .max()
        .unwrap_or(0);
    for rule in &sorted {
        let text = safe_for_terminal(&rule.rule.text);
        outln!(
            "  {:<5}  {text:<width$}  {}",
            rule.effect.list_name(),
            safe_for_terminal(&rule.source.to_string())
        );
    }
    if !sorted.iter().any(|r| r.effect == RuleEffect::Allow) {
        outln!(
            "  (no allow rules: what the permission mode does not allow asks, or is refused where nobody can answer)"
        );
    }
    for notice in &notices {
        outln!("note: {}", safe_for_terminal(notice));
    }
    Ok(ExitCode::SUCCESS)
}
