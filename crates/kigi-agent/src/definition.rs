//! `AgentDefinition`: one agent file (Markdown with YAML frontmatter) as typed data.
//!
//! Parsing is pure: text (and the path it came from, for messages) in, a definition with its
//! warnings out. Unknown keys are ignored for forward compatibility but kept as warnings so
//! `kigi agents validate` still catches typos.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kigi_tools::{CapabilityMode, ToolCatalog};
use serde::Serialize;

use crate::bounded_read::{FILE_CAP_BYTES, read_bounded};
use crate::diagnostic::Diagnostic;
use crate::error::AgentBuildError;
use crate::settings::{
    BashSettings, CompletionRequirement, Isolation, ModelChoice, OutputFormat, ParamNameOverrides,
    PermissionMode, PromptMode, ToolConfig, ToolSelection,
};

/// Whether a custom agent run as a subagent is told it was delegated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DelegationNotice {
    #[default]
    Auto,
    Off,
}

/// How strictly `name` is checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NamePolicy {
    /// kigi's own directories: the name must already be lowercase-hyphen.
    #[default]
    Strict,
    /// Directories written for other harnesses: a valid name is derived (with a warning), and
    /// a missing one is taken from the file name.
    Derive,
}

/// Options for [`AgentDefinition::parse_with`].
#[derive(Debug, Clone, Copy)]
pub struct ParseOptions {
    pub name_policy: NamePolicy,
    pub catalog: ToolCatalog,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            name_policy: NamePolicy::Strict,
            catalog: ToolCatalog::built_in(),
        }
    }
}

/// One agent definition. Field docs give the frontmatter key and its default.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefinition {
    /// `name` (required): unique id, lowercase and hyphens.
    pub name: String,
    /// `description` (required): when and why to use this agent, as written.
    pub description: String,
    /// `promptMode`, default `extend`.
    pub prompt_mode: PromptMode,
    /// `tools`: omitted means all; `[]` means none. Canonical names after alias mapping.
    pub tools: ToolSelection,
    /// `disallowedTools`: wins over `tools`.
    pub disallowed_tools: Vec<String>,
    /// `permissionMode`, default `default`.
    pub permission_mode: PermissionMode,
    /// `skills`: skills included in full.
    pub skills: Vec<String>,
    /// `agentsMd`, default true.
    pub agents_md: bool,
    /// `outputFormat`, default `default`.
    pub output_format: OutputFormat,
    /// `bash`.
    pub bash: BashSettings,
    /// `toolNameOverrides`: canonical → model-facing name.
    pub tool_name_overrides: BTreeMap<String, String>,
    /// `paramNameOverrides`: tool → canonical parameter → model-facing parameter.
    pub param_name_overrides: ParamNameOverrides,
    /// `completionRequirement`.
    pub completion_requirement: Option<CompletionRequirement>,
    /// `toolConfig`.
    pub tool_config: BTreeMap<String, ToolConfig>,
    /// `model`: `inherit` (the default) or an alias.
    pub model: ModelChoice,
    /// `effort`: reasoning effort, passed to the model layer as written.
    pub effort: Option<String>,
    /// `allowed_models`, `deny_models`, `allowed_efforts` (hard) and `preferred_models`,
    /// `discouraged_models`, `preferred_efforts` (soft), for this agent run as a subagent.
    #[serde(flatten)]
    pub model_lists: crate::model_policy::ModelLists,
    /// `model_profiles`: per-model recipes (see `model_profile`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub model_profiles: Vec<crate::model_profile::ModelProfile>,
    /// `restrict_models_to_menu`: only the default `model` may be picked.
    #[serde(
        skip_serializing_if = "std::ops::Not::not",
        rename = "restrict_models_to_menu"
    )]
    pub restrict_models_to_menu: bool,
    /// `capabilityMode`: a coarse filter on the tools.
    pub capability_mode: Option<CapabilityMode>,
    /// `isolation`: `none` or `worktree`.
    pub isolation: Option<Isolation>,
    /// `background`: run as a background subagent by default.
    pub background: bool,
    /// `maxTurns`: a ceiling on model turns.
    pub max_turns: Option<u32>,
    /// `compaction`: `off`, or this agent's own threshold and turns kept.
    pub compaction: Option<crate::settings::CompactionSetting>,
    /// `mcpServers`, passed through. Dropped for untrusted project files.
    pub mcp_servers: Option<serde_json::Value>,
    /// `hooks`, passed through. Dropped for untrusted project files.
    pub hooks: Option<serde_json::Value>,
    /// `color`: a display hint.
    pub color: Option<String>,
    /// `whenToUse`: extra guidance for choosing this agent, shown to the model with the
    /// description.
    pub when_to_use: Option<String>,
    /// `executor`: the `[agent_executors.<id>]` a child of this agent runs its turns on,
    /// instead of kigi's own loop; unknown at spawn time, the spawn fails (never native).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executor: Option<String>,
    /// `private`: hidden from the spawn tool's list and pickers; new dispatches fail with
    /// "profile is private", children already running or resumed on it keep working.
    pub private: bool,
    /// `delegation_notice`: `auto` (the default) tells a custom agent run as a subagent that
    /// it was delegated, by whom and for what; `off` does not.
    pub delegation_notice: DelegationNotice,
    /// `override`: legacy metadata (seed 002), read and kept; file precedence decides which
    /// same-name file wins.
    pub legacy_override: bool,
    /// The Markdown after the closing `---`, byte-for-byte.
    pub body: String,
    /// The file it came from, if any.
    pub source: Option<PathBuf>,
    /// What kigi guessed, ignored or dropped while loading it.
    pub warnings: Vec<Diagnostic>,
    /// Set by discovery on the definition that runs under this name: project files of the
    /// same name that were ignored because their folder is not trusted. Also in `warnings`;
    /// kept apart so the start of a run can announce them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trust_notices: Vec<Diagnostic>,
}

impl AgentDefinition {
    /// A definition with every default and an empty body.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            prompt_mode: PromptMode::default(),
            tools: ToolSelection::All,
            disallowed_tools: Vec::new(),
            permission_mode: PermissionMode::default(),
            skills: Vec::new(),
            agents_md: true,
            output_format: OutputFormat::default(),
            bash: BashSettings::default(),
            tool_name_overrides: BTreeMap::new(),
            param_name_overrides: BTreeMap::new(),
            completion_requirement: None,
            tool_config: BTreeMap::new(),
            model: ModelChoice::Inherit,
            effort: None,
            model_lists: Default::default(),
            model_profiles: Vec::new(),
            restrict_models_to_menu: false,
            capability_mode: None,
            isolation: None,
            background: false,
            max_turns: None,
            compaction: None,
            mcp_servers: None,
            hooks: None,
            color: None,
            when_to_use: None,
            executor: None,
            private: false,
            delegation_notice: DelegationNotice::Auto,
            legacy_override: false,
            body: String::new(),
            source: None,
            warnings: Vec::new(),
            trust_notices: Vec::new(),
        }
    }

    /// Parses an agent file's text with the strict name rule. `source` is used in messages.
    pub fn parse(text: &str, source: Option<&Path>) -> Result<Self, AgentBuildError> {
        Self::parse_with(text, source, ParseOptions::default())
    }

    /// Parses an agent file's text.
    pub fn parse_with(
        text: &str,
        source: Option<&Path>,
        options: ParseOptions,
    ) -> Result<Self, AgentBuildError> {
        crate::definition_parse::parse(text, source, options)
    }

    /// Reads and parses a file with the strict name rule.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, AgentBuildError> {
        Self::from_file_with(path, ParseOptions::default())
    }

    /// Reads and parses a file.
    pub fn from_file_with(
        path: impl AsRef<Path>,
        options: ParseOptions,
    ) -> Result<Self, AgentBuildError> {
        let path = path.as_ref();
        let text = read_bounded(path, FILE_CAP_BYTES)?;
        Self::parse_with(&text, Some(path), options)
    }

    /// The description as it should be displayed: literal `\n` escapes (common in files
    /// written for other harnesses) shown as line breaks.
    pub fn display_description(&self) -> String {
        self.description.replace("\\n", "\n")
    }

    /// What the model reads when it picks a subagent: the description, then `whenToUse`.
    pub fn dispatch_description(&self) -> String {
        let description = self.display_description();
        match self.when_to_use.as_deref().map(str::trim) {
            Some(hint) if !hint.is_empty() => format!("{description} When to use: {hint}"),
            _ => description,
        }
    }
}
