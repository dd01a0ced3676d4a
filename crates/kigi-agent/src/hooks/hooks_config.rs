//! Hooks as written: Claude Code's settings shape, per event a list of
//! `{matcher, hooks: [{type = "command", command, timeout}]}`, in `config.toml`
//! (`[[hooks.PreToolUse]]`), a project's `.kigi/settings.toml`, or an agent file's `hooks:`.
//!
//! The rule: what cannot run as written (an unknown event, a bad matcher, a type other than
//! `command`) is an error naming it, never a hook silently dropped.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::hook_event::HookEvent;

/// The default ceiling of one hook run (Claude Code's).
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

/// `[hooks]`: event name → groups.
pub type HooksConfig = BTreeMap<String, Vec<HookGroup>>;

/// One matcher and its commands.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HookGroup {
    /// A regular expression over tool names (kigi's or Claude Code's); empty or `*` is every
    /// tool. For `SessionStart`, over `startup` / `resume`.
    #[serde(default)]
    pub matcher: Option<String>,
    pub hooks: Vec<HookCommandConfig>,
}

/// One command.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HookCommandConfig {
    /// Only `command`.
    #[serde(rename = "type", default = "command_type")]
    pub kind: String,
    pub command: String,
    /// Seconds (default 60).
    #[serde(default)]
    pub timeout: Option<f64>,
}

fn command_type() -> String {
    "command".to_owned()
}

/// Where a hook was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookSource {
    UserConfig(PathBuf),
    ProjectSettings(PathBuf),
    /// An agent definition's inline `hooks:` (the file, or the agent's name).
    Agent(String),
}

impl std::fmt::Display for HookSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UserConfig(path) | Self::ProjectSettings(path) => write!(f, "{}", path.display()),
            Self::Agent(agent) => write!(f, "agent {agent}"),
        }
    }
}

/// A hook ready to run.
#[derive(Debug, Clone)]
pub struct Hook {
    pub event: HookEvent,
    /// As written (listings); `None` matches everything.
    pub matcher_text: Option<String>,
    matcher: Option<Regex>,
    pub command: String,
    pub timeout: Duration,
    pub source: HookSource,
}

impl Hook {
    /// True when the hook is for one of `names` (a tool's model-facing, canonical and Claude
    /// Code names, or a `SessionStart` source).
    pub fn matches(&self, names: &[&str]) -> bool {
        match &self.matcher {
            None => true,
            Some(regex) => names.iter().any(|name| regex.is_match(name)),
        }
    }
}

/// Why hooks as written cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HookConfigError {
    #[error(
        "hooks: unknown event `{0}` (kigi runs SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Notification, Stop, SubagentStart, SubagentStop, PreCompact, SessionEnd)"
    )]
    UnknownEvent(String),
    #[error("hooks.{event}: matcher `{matcher}` is not a regular expression: {detail}")]
    Matcher {
        event: String,
        matcher: String,
        detail: String,
    },
    #[error("hooks.{event}: hook type `{kind}` is not supported (only `command`)")]
    Type { event: String, kind: String },
    #[error("hooks.{event}: a hook's command is empty")]
    EmptyCommand { event: String },
    #[error("hooks.{event}: timeout {timeout} must be a positive number of seconds")]
    Timeout { event: String, timeout: f64 },
    #[error("hooks: {0}")]
    Shape(String),
}

/// Every hook of a session or agent, in the order written.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    hooks: Vec<Hook>,
}

impl HookSet {
    /// The hooks of `config`, from `source`.
    pub fn from_config(config: &HooksConfig, source: &HookSource) -> Result<Self, HookConfigError> {
        let mut hooks = Vec::new();
        for (name, groups) in config {
            let event = HookEvent::parse(name)
                .ok_or_else(|| HookConfigError::UnknownEvent(name.clone()))?;
            for group in groups {
                let matcher_text = group
                    .matcher
                    .as_deref()
                    .map(str::trim)
                    .filter(|m| !m.is_empty() && *m != "*")
                    .map(str::to_owned);
                // Anchored: `Bash` is the Bash tool, not every name containing it.
                let matcher = matcher_text
                    .as_deref()
                    .map(|m| {
                        Regex::new(&format!("^(?:{m})$")).map_err(|e| HookConfigError::Matcher {
                            event: name.clone(),
                            matcher: m.to_owned(),
                            detail: e.to_string(),
                        })
                    })
                    .transpose()?;
                for command in &group.hooks {
                    if command.kind != "command" {
                        return Err(HookConfigError::Type {
                            event: name.clone(),
                            kind: command.kind.clone(),
                        });
                    }
                    if command.command.trim().is_empty() {
                        return Err(HookConfigError::EmptyCommand {
                            event: name.clone(),
                        });
                    }
                    let timeout = match command.timeout {
                        None => DEFAULT_HOOK_TIMEOUT,
                        Some(secs) if secs.is_finite() && secs > 0.0 => {
                            Duration::from_secs_f64(secs.min(86_400.0))
                        }
                        Some(secs) => {
                            return Err(HookConfigError::Timeout {
                                event: name.clone(),
                                timeout: secs,
                            });
                        }
                    };
                    hooks.push(Hook {
                        event,
                        matcher_text: matcher_text.clone(),
                        matcher: matcher.clone(),
                        command: command.command.clone(),
                        timeout,
                        source: source.clone(),
                    });
                }
            }
        }
        Ok(Self { hooks })
    }

    /// An agent file's inline `hooks:` (the frontmatter's JSON form).
    pub fn from_json(
        value: &serde_json::Value,
        source: &HookSource,
    ) -> Result<Self, HookConfigError> {
        let config: HooksConfig = serde_json::from_value(value.clone())
            .map_err(|e| HookConfigError::Shape(e.to_string()))?;
        Self::from_config(&config, source)
    }

    pub fn extend(&mut self, other: HookSet) {
        self.hooks.extend(other.hooks);
    }

    pub fn hooks(&self) -> &[Hook] {
        &self.hooks
    }

    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// The hooks of `event` that match `names`.
    pub fn for_event<'a>(
        &'a self,
        event: HookEvent,
        names: &'a [&'a str],
    ) -> impl Iterator<Item = &'a Hook> + 'a {
        self.hooks
            .iter()
            .filter(move |hook| hook.event == event && hook.matches(names))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(toml_text: &str) -> Result<HookSet, HookConfigError> {
        #[derive(Deserialize)]
        struct File {
            hooks: HooksConfig,
        }
        let file: File = toml::from_str(toml_text).unwrap();
        HookSet::from_config(&file.hooks, &HookSource::UserConfig("config.toml".into()))
    }

    #[test]
    fn claude_codes_shape_reads_and_matchers_are_anchored() {
        let hooks = set(
            "[[hooks.PreToolUse]]\nmatcher = \"Bash|Write\"\nhooks = [{ type = \"command\", command = \"check\", timeout = 5 }]\n\
             [[hooks.Stop]]\nhooks = [{ command = \"again\" }]\n",
        )
        .unwrap();
        let pre: Vec<&Hook> = hooks
            .for_event(HookEvent::PreToolUse, &["run_terminal_cmd", "Bash"])
            .collect();
        assert_eq!(pre.len(), 1);
        assert_eq!(pre[0].timeout, Duration::from_secs(5));
        assert_eq!(
            hooks
                .for_event(HookEvent::PreToolUse, &["mcp__x__Bashful"])
                .count(),
            0
        );
        let stop: Vec<&Hook> = hooks.for_event(HookEvent::Stop, &[]).collect();
        assert_eq!(stop[0].timeout, DEFAULT_HOOK_TIMEOUT);
        assert_eq!(stop[0].command, "again");
    }

    #[test]
    fn what_cannot_run_as_written_is_an_error_naming_it() {
        for (text, needle) in [
            (
                "[[hooks.PreToolUser]]\nhooks = [{ command = \"x\" }]\n",
                "unknown event `PreToolUser`",
            ),
            (
                "[[hooks.PreToolUse]]\nmatcher = \"(\"\nhooks = [{ command = \"x\" }]\n",
                "matcher `(`",
            ),
            (
                "[[hooks.Stop]]\nhooks = [{ type = \"prompt\", command = \"x\" }]\n",
                "type `prompt`",
            ),
            (
                "[[hooks.Stop]]\nhooks = [{ command = \"x\", timeout = -1 }]\n",
                "timeout -1",
            ),
            (
                "[[hooks.Stop]]\nhooks = [{ command = \" \" }]\n",
                "command is empty",
            ),
        ] {
            let error = set(text).unwrap_err().to_string();
            assert!(error.contains(needle), "{text}: {error}");
        }
    }
}
