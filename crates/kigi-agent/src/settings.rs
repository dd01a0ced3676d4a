//! The typed settings an agent definition carries, with the defaults seed 000's table gives.
//! Wire spellings (serde) are the frontmatter's: camelCase keys, the documented values.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// How the body becomes the system prompt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptMode {
    /// Base template first, then the body appended raw (never rendered).
    #[default]
    Extend,
    /// The body is the whole template, rendered with `${{ }}` delimiters.
    Full,
}

/// What runs without asking, with Claude Code's meanings (kigi loads Claude Code's agent
/// files, so a mode must not gain power here).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Reads run; edits and commands ask.
    #[default]
    Default,
    /// Reads and edits inside the workspace run; commands ask.
    AcceptEdits,
    /// Never asks: what would ask is refused (only reads run until allow rules exist).
    DontAsk,
    /// Read-only; read-only subagents may be spawned.
    Plan,
    /// Everything runs without asking. Only from the user's own flag, config or agent files,
    /// never from an untrusted project's, and announced when a run starts.
    BypassPermissions,
}

impl PermissionMode {
    /// Every accepted spelling.
    pub const SPELLINGS: &'static [(&'static str, PermissionMode)] = &[
        ("default", PermissionMode::Default),
        ("acceptEdits", PermissionMode::AcceptEdits),
        ("dontAsk", PermissionMode::DontAsk),
        ("plan", PermissionMode::Plan),
        ("bypassPermissions", PermissionMode::BypassPermissions),
    ];

    /// The spelling users write.
    pub fn spelling(self) -> &'static str {
        Self::SPELLINGS
            .iter()
            .find(|(_, mode)| *mode == self)
            .map_or("default", |(spelling, _)| spelling)
    }

    /// The mode a spelling names.
    pub fn parse(text: &str) -> Option<Self> {
        Self::SPELLINGS
            .iter()
            .find(|(s, _)| *s == text)
            .map(|(_, mode)| *mode)
    }
}

/// How much the agent writes back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    #[default]
    Default,
    Concise,
}

/// Where a subagent's work happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    None,
    Worktree,
}

/// Which model an agent asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "name")]
pub enum ModelChoice {
    /// The parent's (or the session's) model. Also what an omitted `model` means.
    #[default]
    Inherit,
    /// A model alias or id, resolved against `[models.*]` when the agent runs.
    Named(String),
}

impl ModelChoice {
    /// The model to run with: a name that is not a configured alias (`sonnet` in a file
    /// written for Claude Code) means the parent's model, never a failed spawn.
    pub fn effective(&self, aliases: &[String]) -> ModelChoice {
        match self {
            Self::Named(name) if aliases.contains(name) => self.clone(),
            _ => Self::Inherit,
        }
    }
}

impl fmt::Display for ModelChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Inherit => f.write_str("inherit"),
            Self::Named(name) => f.write_str(name),
        }
    }
}

/// `bash`: overrides for the shell tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BashSettings {
    pub timeout_secs: f64,
    pub output_byte_limit: u64,
    pub cmd_prefix: Option<String>,
}

impl Default for BashSettings {
    fn default() -> Self {
        Self {
            timeout_secs: 120.0,
            output_byte_limit: 200_000,
            cmd_prefix: None,
        }
    }
}

/// Bounded retries with exponential backoff (`recovery`, `toolConfig.<tool>.retry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base_delay_ms: u64,
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    /// Used for any sub-field a file leaves out.
    fn default() -> Self {
        Self {
            max_retries: 3,
            base_delay_ms: 1_000,
            max_delay_ms: 30_000,
        }
    }
}

/// `completionRequirement`: a tool the agent must call before its turn may end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompletionRequirement {
    /// Canonical tool name.
    pub tool: String,
    /// Injected as a `<system-reminder>` when the model stops without calling `tool`.
    pub reminder: String,
    pub recovery: Option<RetryPolicy>,
}

/// `toolConfig.<tool>`: per-tool execution settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolConfig {
    pub retry: Option<RetryPolicy>,
}

/// `tools`: which tools the agent may use before the denylist and capability mode apply.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "tools")]
pub enum ToolSelection {
    /// `tools` omitted: every tool.
    #[default]
    All,
    /// Only these: canonical kigi names and MCP names or globs. Empty means no tools.
    Only(Vec<String>),
}

/// `paramNameOverrides`: tool → (canonical parameter → model-facing parameter).
pub type ParamNameOverrides = BTreeMap<String, BTreeMap<String, String>>;

/// An agent's `compaction:`: `off`, or its own threshold and turns kept.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CompactionSetting {
    /// Never compact this agent's conversation.
    Off,
    /// Override the configured policy where set.
    Policy {
        threshold: Option<f64>,
        keep_recent_turns: Option<u32>,
    },
}

impl CompactionSetting {
    /// Reads `off` / `false`, or `{threshold, keepRecentTurns}`; the error says what is wrong.
    pub fn from_value(value: &serde_json::Value) -> Result<Self, String> {
        use serde_json::Value;
        match value {
            Value::String(s) if s == "off" => Ok(Self::Off),
            Value::Bool(false) => Ok(Self::Off),
            Value::Object(map) => {
                let mut threshold = None;
                let mut keep_recent_turns = None;
                for (key, value) in map {
                    match key.as_str() {
                        "threshold" => match value.as_f64() {
                            Some(t) if t > 0.0 && t <= 1.0 => threshold = Some(t),
                            _ => {
                                return Err(format!(
                                    "threshold must be a share of the window above 0 and at most 1, not {value}"
                                ));
                            }
                        },
                        "keepRecentTurns" | "keep_recent_turns" => {
                            match value.as_u64().and_then(|n| u32::try_from(n).ok()) {
                                Some(n) => keep_recent_turns = Some(n),
                                None => {
                                    return Err(format!(
                                        "keepRecentTurns must be a whole number, not {value}"
                                    ));
                                }
                            }
                        }
                        other => {
                            return Err(format!(
                                "unknown key `{other}` (expected threshold, keepRecentTurns)"
                            ));
                        }
                    }
                }
                Ok(Self::Policy {
                    threshold,
                    keep_recent_turns,
                })
            }
            other => Err(format!(
                "expected `off` or {{threshold, keepRecentTurns}}, not {other}"
            )),
        }
    }
}

#[cfg(test)]
mod compaction_setting_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compaction_reads_off_or_a_policy_and_names_what_is_wrong() {
        assert_eq!(
            CompactionSetting::from_value(&json!("off")),
            Ok(CompactionSetting::Off)
        );
        assert_eq!(
            CompactionSetting::from_value(&json!({"threshold": 0.5, "keepRecentTurns": 3})),
            Ok(CompactionSetting::Policy {
                threshold: Some(0.5),
                keep_recent_turns: Some(3)
            })
        );
        assert!(
            CompactionSetting::from_value(&json!({"threshold": 2}))
                .unwrap_err()
                .contains("threshold")
        );
        assert!(
            CompactionSetting::from_value(&json!({"keep": 2}))
                .unwrap_err()
                .contains("`keep`")
        );
        assert!(CompactionSetting::from_value(&json!("sometimes")).is_err());
    }
}
