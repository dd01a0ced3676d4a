//! Environment overrides of `config.toml`, applied once when the file is loaded: each beats the
//! file, records its origin, and a value that does not parse is a warning naming the variable.
//!
//! `KIGI_MODEL` and `KIGI_BASE_URL` are not here: they sit between the flags and the file, so
//! `kigi_model::ModelsConfig::resolve` reads them itself (flags > environment > file).
//! API keys are never read here: they are secrets, read when a client is built.

use crate::config::Config;
use crate::config_warning::ConfigWarning;

/// `KIGI_SUBAGENTS` → `[subagents] enabled`.
pub const SUBAGENTS: &str = "KIGI_SUBAGENTS";
/// `KIGI_SUBAGENT_AWAIT_BUDGET_MS` → `[subagents] await_budget_ms`.
pub const SUBAGENT_AWAIT_BUDGET_MS: &str = "KIGI_SUBAGENT_AWAIT_BUDGET_MS";
/// `KIGI_SWARM_MAX_CONCURRENCY` → `[swarm] max_concurrency`.
pub const SWARM_MAX_CONCURRENCY: &str = "KIGI_SWARM_MAX_CONCURRENCY";

/// One override that took effect: the variable and the config key it set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AppliedOverride {
    pub variable: &'static str,
    pub key: &'static [&'static str],
}

/// Applies every override `env` holds to `config`. Blank variables count as unset.
pub(crate) fn apply_env(
    config: &mut Config,
    env: &dyn Fn(&str) -> Option<String>,
    warnings: &mut Vec<ConfigWarning>,
) -> Vec<AppliedOverride> {
    let mut applied = Vec::new();
    let mut applied_to = |variable: &'static str, key: &'static [&'static str]| {
        applied.push(AppliedOverride { variable, key });
    };
    if let Some(on) = read(env, SUBAGENTS, SWITCH, parse_switch, warnings) {
        config.subagents.enabled = on;
        applied_to(SUBAGENTS, &["subagents", "enabled"]);
    }
    if let Some(ms) = read(
        env,
        SUBAGENT_AWAIT_BUDGET_MS,
        MILLISECONDS,
        parse_u64,
        warnings,
    ) {
        config.subagents.await_budget_ms = Some(ms);
        applied_to(SUBAGENT_AWAIT_BUDGET_MS, &["subagents", "await_budget_ms"]);
    }
    if let Some(cap) = read(
        env,
        SWARM_MAX_CONCURRENCY,
        POSITIVE,
        parse_positive,
        warnings,
    ) {
        config.swarm.max_concurrency = Some(cap);
        applied_to(SWARM_MAX_CONCURRENCY, &["swarm", "max_concurrency"]);
    }
    applied
}

const SWITCH: &str = "a switch (0, false, off, no, 1, true, on or yes)";
const MILLISECONDS: &str = "a whole number of milliseconds";
const POSITIVE: &str = "a whole number of at least 1";

/// The parsed value of `variable`, or `None` when it is unset, blank or (with a warning) bad.
fn read<T>(
    env: &dyn Fn(&str) -> Option<String>,
    variable: &'static str,
    expected: &'static str,
    parse: fn(&str) -> Option<T>,
    warnings: &mut Vec<ConfigWarning>,
) -> Option<T> {
    let value = env(variable).filter(|v| !v.trim().is_empty())?;
    let parsed = parse(value.trim());
    if parsed.is_none() {
        warnings.push(ConfigWarning::BadEnv {
            variable,
            value,
            expected,
        });
    }
    parsed
}

/// `0/false/off/no` or `1/true/on/yes`, any case.
pub fn parse_switch(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "0" | "false" | "off" | "no" => Some(false),
        "1" | "true" | "on" | "yes" => Some(true),
        _ => None,
    }
}

fn parse_u64(value: &str) -> Option<u64> {
    value.parse().ok()
}

fn parse_positive(value: &str) -> Option<usize> {
    value.parse().ok().filter(|&n| n >= 1)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An environment holding `pairs` only (tests of this crate share it).
    pub(crate) fn env_of(
        pairs: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn overrides_beat_the_file_and_say_which_key_they_set() {
        let mut config = Config::default();
        config.swarm.max_concurrency = Some(4);
        let mut warnings = Vec::new();
        let applied = apply_env(
            &mut config,
            &env_of(&[
                (SUBAGENTS, "Off"),
                (SUBAGENT_AWAIT_BUDGET_MS, " 250 "),
                (SWARM_MAX_CONCURRENCY, "9"),
            ]),
            &mut warnings,
        );
        assert!(!config.subagents.enabled);
        assert_eq!(config.subagents.await_budget_ms, Some(250));
        assert_eq!(config.swarm.max_concurrency, Some(9));
        assert_eq!(
            applied.iter().map(|a| a.variable).collect::<Vec<_>>(),
            [SUBAGENTS, SUBAGENT_AWAIT_BUDGET_MS, SWARM_MAX_CONCURRENCY]
        );
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn bad_values_warn_and_leave_the_file_value() {
        let mut config = Config::default();
        config.swarm.max_concurrency = Some(4);
        let mut warnings = Vec::new();
        let applied = apply_env(
            &mut config,
            &env_of(&[
                (SUBAGENTS, "maybe"),
                (SUBAGENT_AWAIT_BUDGET_MS, "soon"),
                (SWARM_MAX_CONCURRENCY, "0"),
            ]),
            &mut warnings,
        );
        assert!(applied.is_empty());
        assert_eq!(config, {
            let mut expected = Config::default();
            expected.swarm.max_concurrency = Some(4);
            expected
        });
        let variables: Vec<_> = warnings
            .iter()
            .map(|w| match w {
                ConfigWarning::BadEnv { variable, .. } => *variable,
                other => panic!("{other}"),
            })
            .collect();
        assert_eq!(
            variables,
            [SUBAGENTS, SUBAGENT_AWAIT_BUDGET_MS, SWARM_MAX_CONCURRENCY]
        );
    }

    #[test]
    fn blank_variables_are_unset() {
        let mut config = Config::default();
        let mut warnings = Vec::new();
        let applied = apply_env(&mut config, &env_of(&[(SUBAGENTS, "  ")]), &mut warnings);
        assert!(applied.is_empty() && warnings.is_empty());
        assert!(config.subagents.enabled);
    }
}
