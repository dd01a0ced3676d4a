//! `[agent_executors.<id>]` in `config.toml`: another harness a child's turn can run on (seed
//! 002, "Direct external execution", "External ACP profile delivery"). kigi starts `command`
//! with `args` (never through a shell); a `command` executor's events are read from stdout in
//! `output_format`, an `acp` executor is an ACP agent kigi talks to as the client.
//!
//! The rule: a section that is read is usable. Placeholders, formats, kinds and profile
//! delivery are checked when the file is loaded; a field a kind would ignore is refused there,
//! never accepted and then ignored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The placeholders an argument may hold; each is replaced inside its own argument, so a
/// prompt with spaces or quotes stays one argument.
pub const EXECUTOR_PLACEHOLDERS: [&str; 6] = [
    "{prompt}",
    "{prompt_quoted}",
    "{cwd}",
    "{model}",
    "{member}",
    "{session}",
];

/// How kigi talks to the executor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutorKind {
    /// A headless CLI run once per turn, its events read from stdout.
    Command,
    /// An ACP agent over stdio, kigi as its client: one session per child turn.
    Acp,
}

/// Where an ACP executor gets the child's profile (seed 002, "External ACP profile delivery").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProfileDelivery {
    /// In a preamble of the first user message: every agent reads that.
    #[default]
    Preamble,
    /// In `_meta.systemPromptOverride` of `session/new`, and no preamble: only for an agent
    /// that honours the extension (it may replace the agent's own system prompt).
    SystemPromptOverride,
}

/// The event stream a `kind = "command"` executor writes on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExecutorOutputFormat {
    /// `kigi -p --output-format stream-json`.
    KigiStreamJson,
    /// `claude -p --output-format stream-json --verbose`.
    ClaudeStreamJson,
    /// `codex exec --json`.
    CodexJsonl,
}

/// `[agent_executors.<id>]`, checked.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "ExecutorSection")]
pub struct ExecutorConfig {
    pub kind: ExecutorKind,
    /// The program, found on `PATH` when it has no `/`.
    pub command: String,
    /// Its arguments, with [`EXECUTOR_PLACEHOLDERS`] (an ACP agent gets its prompt over the
    /// protocol, so `{prompt}` is refused there).
    pub args: Vec<String>,
    /// Variables set for it on top of kigi's environment.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Set exactly when `kind = "command"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_format: Option<ExecutorOutputFormat>,
    /// Its wall-clock limit; unset, the child's (`[subagents] timeout_ms`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    /// `kind = "acp"` only.
    #[serde(default, skip_serializing_if = "is_preamble")]
    pub profile_delivery: ProfileDelivery,
}

fn is_preamble(delivery: &ProfileDelivery) -> bool {
    *delivery == ProfileDelivery::Preamble
}

/// The section as written, before it is checked.
#[derive(Debug, Deserialize)]
struct ExecutorSection {
    kind: ExecutorKind,
    #[serde(default)]
    command: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    output_format: Option<ExecutorOutputFormat>,
    #[serde(default)]
    timeout_secs: Option<u64>,
    #[serde(default)]
    profile_delivery: Option<ProfileDelivery>,
}

impl TryFrom<ExecutorSection> for ExecutorConfig {
    type Error = String;

    fn try_from(section: ExecutorSection) -> Result<Self, Self::Error> {
        let kind_name = match section.kind {
            ExecutorKind::Command => "command",
            ExecutorKind::Acp => "acp",
        };
        if section.command.trim().is_empty() {
            return Err(format!(
                "kind = \"{kind_name}\" needs `command`, the program to run"
            ));
        }
        match section.kind {
            ExecutorKind::Command => {
                if section.output_format.is_none() {
                    return Err(
                        "kind = \"command\" needs `output_format`: \"kigi-stream-json\", \"claude-stream-json\" or \"codex-jsonl\""
                            .to_owned(),
                    );
                }
                if section.profile_delivery.is_some() {
                    return Err(
                        "`profile_delivery` is for kind = \"acp\"; a command executor gets the profile in the prompt"
                            .to_owned(),
                    );
                }
            }
            ExecutorKind::Acp => {
                if section.output_format.is_some() {
                    return Err(
                        "`output_format` is for kind = \"command\"; an ACP agent speaks ACP"
                            .to_owned(),
                    );
                }
                if section
                    .args
                    .iter()
                    .any(|arg| arg.contains("{prompt}") || arg.contains("{prompt_quoted}"))
                {
                    return Err(
                        "`args` holds `{prompt}` or `{prompt_quoted}`; an ACP agent gets its prompt over the protocol"
                            .to_owned(),
                    );
                }
            }
        }
        if let Some(bad) = section.args.iter().find_map(|arg| unknown_placeholder(arg)) {
            return Err(format!(
                "`args` holds `{bad}`; the placeholders are {}",
                EXECUTOR_PLACEHOLDERS.join(", ")
            ));
        }
        if section.timeout_secs == Some(0) {
            return Err("`timeout_secs` must be at least 1".to_owned());
        }
        Ok(Self {
            kind: section.kind,
            command: section.command,
            args: section.args,
            env: section.env,
            output_format: section.output_format,
            timeout_secs: section.timeout_secs,
            profile_delivery: section.profile_delivery.unwrap_or_default(),
        })
    }
}

/// The first `{word}` in `arg` that is not a placeholder (a typo such as `{promt}` would
/// otherwise reach the engine as text).
fn unknown_placeholder(arg: &str) -> Option<String> {
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        let after = &rest[open..];
        let close = after.find('}')?;
        let token = &after[..=close];
        let inner = &token[1..token.len() - 1];
        let word =
            !inner.is_empty() && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if word && !EXECUTOR_PLACEHOLDERS.contains(&token) {
            return Some(token.to_owned());
        }
        rest = &after[close + 1..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Doc {
        agent_executors: BTreeMap<String, ExecutorConfig>,
    }

    fn parse(text: &str) -> Result<ExecutorConfig, String> {
        toml::from_str::<Doc>(text)
            .map(|mut doc| doc.agent_executors.remove("x").expect("section x"))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_command_executor_reads_every_field() {
        let config = parse(
            "[agent_executors.x]\nkind = \"command\"\ncommand = \"claude\"\n\
             args = [\"-p\", \"{prompt}\", \"--model\", \"{model}\"]\n\
             env = { A = \"1\" }\noutput_format = \"claude-stream-json\"\ntimeout_secs = 60\n",
        )
        .unwrap();
        assert_eq!(
            config,
            ExecutorConfig {
                kind: ExecutorKind::Command,
                command: "claude".into(),
                args: vec![
                    "-p".into(),
                    "{prompt}".into(),
                    "--model".into(),
                    "{model}".into()
                ],
                env: BTreeMap::from([("A".into(), "1".into())]),
                output_format: Some(ExecutorOutputFormat::ClaudeStreamJson),
                timeout_secs: Some(60),
                profile_delivery: ProfileDelivery::Preamble,
            }
        );
    }

    #[test]
    fn an_acp_executor_reads_every_field_and_opts_into_the_override() {
        let config = parse(
            "[agent_executors.x]\nkind = \"acp\"\ncommand = \"kigi\"\nargs = [\"acp\", \"--cwd={cwd}\"]\n\
             env = { A = \"1\" }\ntimeout_secs = 9\nprofile_delivery = \"system_prompt_override\"\n",
        )
        .unwrap();
        assert_eq!(
            config,
            ExecutorConfig {
                kind: ExecutorKind::Acp,
                command: "kigi".into(),
                args: vec!["acp".into(), "--cwd={cwd}".into()],
                env: BTreeMap::from([("A".into(), "1".into())]),
                output_format: None,
                timeout_secs: Some(9),
                profile_delivery: ProfileDelivery::SystemPromptOverride,
            }
        );
        let plain = parse("[agent_executors.x]\nkind = \"acp\"\ncommand = \"kigi\"\n").unwrap();
        assert_eq!(plain.profile_delivery, ProfileDelivery::Preamble);
    }

    #[test]
    fn fields_of_the_other_kind_are_refused() {
        let format = parse(
            "[agent_executors.x]\nkind = \"acp\"\ncommand = \"k\"\noutput_format = \"codex-jsonl\"\n",
        )
        .unwrap_err();
        assert!(
            format.contains("`output_format` is for kind = \"command\""),
            "{format}"
        );
        let prompt =
            parse("[agent_executors.x]\nkind = \"acp\"\ncommand = \"k\"\nargs = [\"{prompt}\"]\n")
                .unwrap_err();
        assert!(prompt.contains("over the protocol"), "{prompt}");
        let delivery = parse(
            "[agent_executors.x]\nkind = \"command\"\ncommand = \"c\"\noutput_format = \"codex-jsonl\"\nprofile_delivery = \"system_prompt_override\"\n",
        )
        .unwrap_err();
        assert!(
            delivery.contains("`profile_delivery` is for kind = \"acp\""),
            "{delivery}"
        );
        let no_command = parse("[agent_executors.x]\nkind = \"acp\"\n").unwrap_err();
        assert!(
            no_command.contains("kind = \"acp\" needs `command`"),
            "{no_command}"
        );
    }

    #[test]
    fn missing_command_format_and_unknown_placeholders_are_refused() {
        let no_command =
            parse("[agent_executors.x]\nkind = \"command\"\noutput_format = \"codex-jsonl\"\n")
                .unwrap_err();
        assert!(no_command.contains("needs `command`"), "{no_command}");
        let no_format =
            parse("[agent_executors.x]\nkind = \"command\"\ncommand = \"c\"\n").unwrap_err();
        assert!(no_format.contains("needs `output_format`"), "{no_format}");
        let typo = parse(
            "[agent_executors.x]\nkind = \"command\"\ncommand = \"c\"\nargs = [\"{promt}\"]\noutput_format = \"codex-jsonl\"\n",
        )
        .unwrap_err();
        assert!(typo.contains("`args` holds `{promt}`"), "{typo}");
        let bad_format = parse(
            "[agent_executors.x]\nkind = \"command\"\ncommand = \"c\"\noutput_format = \"xml\"\n",
        )
        .unwrap_err();
        assert!(bad_format.contains("unknown variant `xml`"), "{bad_format}");
    }

    #[test]
    fn a_refused_section_names_the_file_line_and_key_and_typos_warn() {
        let path = std::path::Path::new("/h/config.toml");
        let err = crate::Config::parse(
            "default_model = 'a'\n[agent_executors.cc]\nkind = \"acp\"\ncommand = \"c\"\noutput_format = \"codex-jsonl\"\n",
            path,
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with(
                "/h/config.toml: line 2: `agent_executors.cc`: `output_format` is for kind = \"command\""
            ),
            "{err}"
        );
        let loaded = crate::LoadedConfig::parse(
            "[agent_executors.cc]\nkind = \"command\"\ncommand = \"c\"\noutput_format = \"codex-jsonl\"\ntimeout = 5\n",
            path,
            &|_| None,
        )
        .unwrap();
        let warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            ["/h/config.toml:5: unknown key `agent_executors.cc.timeout`, ignored"]
        );
        assert_eq!(loaded.config.agent_executors["cc"].command, "c");
    }

    #[test]
    fn json_braces_in_an_argument_are_not_placeholders() {
        assert_eq!(unknown_placeholder("{\"a\": 1}"), None);
        assert_eq!(unknown_placeholder("--cd={cwd}"), None);
        assert_eq!(unknown_placeholder("x{mdl}"), Some("{mdl}".into()));
    }
}
