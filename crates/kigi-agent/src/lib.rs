//! Agent definitions and everything that turns one into a runnable [`Agent`]: parsing
//! Markdown-with-frontmatter files, discovering them from the project and the user's home,
//! folder trust, `AGENTS.md`, skills, and system prompt assembly (MiniJinja). It also owns
//! `config.toml`: one typed [`Config`] for every crate, loaded once by [`LoadedConfig`].
//!
//! This crate never calls a model and never prints.

mod agent_name;
mod agent_type_alias;
mod agents_md;
mod bounded_read;
mod browser_config;
mod builder;
mod builtin;
mod compaction_config;
mod config;
mod config_entries;
pub mod config_env;
mod config_keys;
mod config_origin;
mod config_warning;
mod definition;
mod definition_parse;
mod diagnostic;
pub mod discovery;
mod error;
mod executor_config;
mod failed_agent;
mod fields;
mod folder_context;
mod frontmatter;
mod frontmatter_depth;
mod frontmatter_recovery;
pub mod hooks;
mod loaded_config;
mod mcp_sources;
mod model_policy;
mod model_policy_fields;
mod model_profile;
mod overlay;
mod paths;
pub mod permissions;
mod persona;
mod project;
mod project_settings;
mod prompt;
mod prompt_delta;
mod role;
mod route;
mod route_discovery;
mod sandbox_config;
mod settings;
mod skills;
mod starter;
mod subagent_toggle_edit;
mod subagents_config;
mod suggest;
mod swarm_config;
mod system_md;
mod template;
mod tool_list;
mod toolset;
mod trust;
mod tui_config;
mod validate;
mod web_search_config;

pub use agent_name::{check_path_component, derive_name, strict_name_problem};
pub use agent_type_alias::{LEGACY_TYPE_PREFIX, canonical_agent_type};
pub use agents_md::{AgentsMd, AgentsMdFile, DEFAULT_BUDGET_BYTES as AGENTS_MD_BUDGET_BYTES};
pub use bounded_read::{BoundedReadError, FILE_CAP_BYTES, read_bounded};
pub use browser_config::{BrowserConfig, BrowserMissing, browser_unavailable, drives_browser};
pub use builder::{Agent, AgentBuilder};
pub use builtin::{DEFAULT_AGENT, DEFAULT_SUBAGENT_TYPE, built_in_definitions, is_built_in_name};
pub use compaction_config::CompactionConfig;
pub use config::{AgentsConfig, Config, ConfigError};
pub use config_entries::ConfigEntry;
pub use config_keys::display_key;
pub use config_origin::ConfigOrigin;
pub use config_warning::ConfigWarning;
pub use definition::{AgentDefinition, DelegationNotice, NamePolicy, ParseOptions};
pub use diagnostic::{Diagnostic, Severity};
pub use discovery::{
    DiscoveredAgent, Discovery, DiscoveryReport, FailedAgent, Scope, ShadowedAgent,
};
pub use error::AgentBuildError;
pub use executor_config::{
    EXECUTOR_PLACEHOLDERS, ExecutorConfig, ExecutorKind, ExecutorOutputFormat, ProfileDelivery,
};
pub use loaded_config::LoadedConfig;
pub use mcp_sources::{PROJECT_MCP_FILES, session_mcp_servers};
pub use model_policy::{
    Binding, ModelAdvice, ModelLists, ModelPolicy, ModelPolicyError, PolicyScope,
};
pub use model_profile::ModelProfile;
pub use overlay::{OverlayEntry, OverlaySet, OverlaySource};
pub use paths::{KigiPaths, is_compat_path};
pub use persona::{IoContract, Persona, PersonaSet};
pub use project::ProjectLayout;
pub use project_settings::{PROJECT_SETTINGS, ProjectSettings};
pub use prompt::BASE_TEMPLATE;
pub use prompt_delta::PromptDeltaMode;
pub use role::{Role, RoleSet};
pub use route::{RouteDefinition, RoutePromptMode};
pub use route_discovery::RouteReport;
pub use sandbox_config::SandboxConfig;
pub use settings::{
    BashSettings, CompactionSetting, CompletionRequirement, Isolation, ModelChoice, OutputFormat,
    ParamNameOverrides, PermissionMode, PromptMode, RetryPolicy, ToolConfig, ToolSelection,
};
pub use skills::Skill;
pub use starter::{create_agent_file, create_persona_file, starter_definition, starter_persona};
pub use subagent_toggle_edit::{with_persona_toggle, with_subagent_toggle};
pub use subagents_config::SubagentsConfig;
pub use swarm_config::SwarmConfig;
pub use system_md::{SYSTEM_MD, apply_system_md};
pub use template::PromptEnvironment;
pub use toolset::{ResolvedTool, resolve_tools};
pub use trust::{TrustStore, gate_untrusted, shadowing_refused};
pub use tui_config::TuiConfig;
pub use validate::{FileReport, FileStatus};
pub use web_search_config::WebSearchConfig;
