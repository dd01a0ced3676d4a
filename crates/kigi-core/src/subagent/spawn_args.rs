//! `spawn_subagent`'s arguments and the checks that need nothing but the arguments: every
//! problem is reported before anything starts, all of them at once.

use std::str::FromStr;

use kigi_agent::{DEFAULT_SUBAGENT_TYPE, canonical_agent_type};
use kigi_model::ReasoningEffort;
use kigi_tools::CapabilityMode;
use schemars::JsonSchema;
use serde::Deserialize;

/// The arguments, as the model sends them.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpawnArgs {
    /// The whole task. The subagent sees nothing of your conversation but this.
    pub prompt: String,
    /// 3-5 words.
    pub description: String,
    /// Default `general-purpose`.
    #[serde(default)]
    pub subagent_type: Option<String>,
    /// A route id (`type.route`) instead of subagent_type.
    #[serde(default)]
    pub route: Option<String>,
    /// Return the id at once; collect the result with get_command_or_subagent_output.
    #[serde(default)]
    pub background: bool,
    /// read-only, read-write, execute or all: narrows the type's tools.
    #[serde(default)]
    pub capability_mode: Option<String>,
    /// none (default) or worktree.
    #[serde(default)]
    pub isolation: Option<String>,
    /// Continue a completed subagent of this session (its id).
    #[serde(default)]
    pub resume_from: Option<String>,
    /// Working directory inside this project.
    #[serde(default)]
    pub cwd: Option<String>,
    /// A handle for later messages: lowercase letters, digits and `_`.
    #[serde(default)]
    pub name: Option<String>,
    /// A configured model alias for this subagent.
    #[serde(default)]
    pub model: Option<String>,
    /// low, medium or high.
    #[serde(default)]
    pub effort: Option<String>,
    /// A persona to apply (tone, focus, output contract).
    #[serde(default)]
    pub persona: Option<String>,
    /// A configured executor id: run elsewhere.
    #[serde(default)]
    pub executor: Option<String>,
}

/// The arguments after the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedSpawn {
    pub prompt: String,
    pub description: String,
    pub agent_type: String,
    pub background: bool,
    pub capability_mode: Option<CapabilityMode>,
    pub cwd: Option<String>,
    pub name: Option<String>,
    pub model: Option<String>,
    /// Reasoning effort asked for at spawn time.
    pub effort: Option<ReasoningEffort>,
    pub persona: Option<String>,
    /// The completed subagent whose conversation this one carries on.
    pub resume_from: Option<String>,
    /// `isolation: worktree`.
    pub worktree: bool,
    /// The `[agent_executors]` id the turn runs on, over the type's own `executor:`.
    pub executor: Option<String>,
}

/// Longest description accepted (the tool asks for 3-5 words).
const MAX_DESCRIPTION_WORDS: usize = 10;

impl SpawnArgs {
    /// Checks the arguments alone; every problem at once, joined with `; `.
    pub fn check(self) -> Result<CheckedSpawn, String> {
        let mut problems = Vec::new();
        if self.prompt.trim().is_empty() {
            problems.push("prompt is empty: give the subagent its whole task".to_owned());
        }
        let words = self.description.split_whitespace().count();
        if words == 0 {
            problems.push("description is empty: give 3-5 words".to_owned());
        } else if words > MAX_DESCRIPTION_WORDS {
            problems.push(format!("description has {words} words: keep it to 3-5"));
        }
        let capability_mode = parse_capability_mode(self.capability_mode.as_deref(), &mut problems);
        let effort = parse_effort(self.effort.as_deref(), &mut problems);
        let mut worktree = parse_isolation(self.isolation.as_deref(), &mut problems);
        if worktree && self.cwd.is_some() {
            problems.push("cwd and isolation `worktree` cannot be combined".to_owned());
            worktree = false;
        }
        if let Some(name) = &self.name
            && (name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'))
        {
            problems.push(format!("name `{name}` must match ^[a-z0-9_]+$"));
        }
        let agent_type = match (self.route, self.subagent_type) {
            (Some(route), Some(base))
                if route.split_once('.').map(|(profile, _)| profile) != Some(base.as_str()) =>
            {
                problems.push(format!(
                    "route `{route}` is not a route of subagent_type `{base}`"
                ));
                base
            }
            (Some(route), _) if !route.contains('.') => {
                problems.push(format!("route `{route}` must be `type.route`"));
                route
            }
            (Some(route), _) => route,
            (None, Some(base)) => canonical_agent_type(&base).into_owned(),
            (None, None) => DEFAULT_SUBAGENT_TYPE.to_owned(),
        };
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        Ok(CheckedSpawn {
            prompt: self.prompt,
            description: self.description.trim().to_owned(),
            agent_type,
            background: self.background,
            capability_mode,
            // A resumed child works where its source did: `cwd` is ignored.
            cwd: if self.resume_from.is_some() {
                None
            } else {
                self.cwd
            },
            name: self.name,
            model: self.model,
            effort,
            persona: self.persona,
            resume_from: self.resume_from,
            worktree,
            executor: self.executor.filter(|id| !id.trim().is_empty()),
        })
    }
}

/// `capability_mode` read, or its problem added to `problems`.
pub(crate) fn parse_capability_mode(
    mode: Option<&str>,
    problems: &mut Vec<String>,
) -> Option<CapabilityMode> {
    let mode = mode?;
    let parsed = CapabilityMode::from_str(mode).ok();
    if parsed.is_none() {
        problems.push(format!(
            "capability_mode `{mode}` is unknown (read-only, read-write, execute or all)"
        ));
    }
    parsed
}

/// `effort` read, or its problem added to `problems`.
pub(crate) fn parse_effort(
    effort: Option<&str>,
    problems: &mut Vec<String>,
) -> Option<ReasoningEffort> {
    let effort = effort?;
    let parsed = ReasoningEffort::parse(effort);
    if parsed.is_none() {
        problems.push(format!(
            "effort `{effort}` is unknown (low, medium or high)"
        ));
    }
    parsed
}

/// Whether `isolation` asks for a worktree, or its problem added to `problems`.
pub(crate) fn parse_isolation(isolation: Option<&str>, problems: &mut Vec<String>) -> bool {
    match isolation {
        None | Some("none") => false,
        Some("worktree") => true,
        Some(other) => {
            problems.push(format!("isolation `{other}` is unknown (none or worktree)"));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> SpawnArgs {
        SpawnArgs {
            prompt: "find the bug".into(),
            description: "find the bug".into(),
            ..SpawnArgs::default()
        }
    }

    #[test]
    fn defaults_to_general_purpose() {
        let checked = args().check().unwrap();
        assert_eq!(checked.agent_type, "general-purpose");
        assert!(!checked.background);
    }

    #[test]
    fn effort_is_typed_and_legacy_types_resolve_to_kigi() {
        let checked = SpawnArgs {
            effort: Some("high".into()),
            subagent_type: Some("grok-build-reviewer".into()),
            ..args()
        }
        .check()
        .unwrap();
        assert_eq!(checked.effort, Some(ReasoningEffort::High));
        assert_eq!(checked.agent_type, "kigi-reviewer");
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let bad = SpawnArgs {
            prompt: " ".into(),
            description: String::new(),
            capability_mode: Some("root".into()),
            isolation: Some("worktree".into()),
            cwd: Some("sub".into()),
            name: Some("Bad-Name".into()),
            effort: Some("max".into()),
            ..SpawnArgs::default()
        };
        let error = bad.check().unwrap_err();
        for expected in [
            "prompt is empty",
            "description is empty",
            "capability_mode `root`",
            "cwd and isolation",
            "name `Bad-Name`",
            "effort `max` is unknown (low, medium or high)",
        ] {
            assert!(error.contains(expected), "{expected} missing from: {error}");
        }
    }
}
