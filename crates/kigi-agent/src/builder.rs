//! `AgentBuilder` → `Agent`: a definition (from a file, a built-in, or built in code) resolved
//! against the tool catalog and the working directory into a name, a rendered system prompt
//! and a tool list, ready for any host (print mode, TUI, ACP, subagents).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use kigi_tools::ToolCatalog;
use serde::Serialize;

use crate::agent_name::strict_name_problem;
use crate::agents_md::DEFAULT_BUDGET_BYTES;
use crate::builtin::{DEFAULT_AGENT, built_in_definitions};
use crate::definition::AgentDefinition;
use crate::diagnostic::Diagnostic;
use crate::error::AgentBuildError;
use crate::folder_context::FolderContext;
use crate::paths::KigiPaths;
use crate::project::ProjectLayout;
use crate::prompt::{self, PromptSections};
use crate::settings::{OutputFormat, ToolSelection};
use crate::skills;
use crate::template::{PromptEnvironment, TemplateContext};
use crate::tool_list::{ListKind, resolve_names};
use crate::toolset::{ResolvedTool, check_completion_tool, resolve_tools, tool_variables};

/// A runnable agent: everything a host needs to start a session with it.
#[derive(Debug, Clone, Serialize)]
pub struct Agent {
    pub name: String,
    pub description: String,
    pub system_prompt: String,
    /// Built-in tools, in catalog order.
    pub tools: Vec<ResolvedTool>,
    /// MCP tool names and globs from the allowlist, for the MCP layer to match.
    pub mcp_tool_patterns: Vec<String>,
    /// The definition's other settings (model, permission mode, bash, completion requirement…).
    pub definition: AgentDefinition,
    /// Warnings from the definition and from building (missing skills, …).
    pub diagnostics: Vec<Diagnostic>,
}

impl Agent {
    /// Whether this agent may have the MCP tool `name` (`mcp__server__tool`): its allowlist
    /// admits it (every tool, or a name or glob there) and its `disallowedTools` does not
    /// name it (by name or glob).
    pub fn admits_mcp_tool(&self, name: &str) -> bool {
        let denied = self
            .definition
            .disallowed_tools
            .iter()
            .any(|d| crate::toolset::wildcard_match(d, name));
        let allowed = match &self.definition.tools {
            ToolSelection::All => true,
            ToolSelection::Only(_) => self
                .mcp_tool_patterns
                .iter()
                .any(|p| crate::toolset::wildcard_match(p, name)),
        };
        allowed && !denied
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn system_prompt(&self) -> &str {
        &self.system_prompt
    }

    /// The tool a model-facing name refers to, if the agent has it.
    pub fn tool_by_model_name(&self, model_name: &str) -> Option<&ResolvedTool> {
        self.tools.iter().find(|t| t.model_name == model_name)
    }
}

/// Builds an [`Agent`].
#[derive(Debug, Clone)]
pub struct AgentBuilder {
    cwd: PathBuf,
    paths: KigiPaths,
    definition: Option<AgentDefinition>,
    name: Option<String>,
    description: Option<String>,
    tools: Option<Vec<String>>,
    environment: Option<PromptEnvironment>,
    catalog: ToolCatalog,
    agents_md_budget: usize,
    /// `AGENTS.md`, skills and environment already read for `cwd` (validation of many files).
    folder: Option<Arc<FolderContext>>,
}

impl AgentBuilder {
    /// A builder for an agent working in `cwd`, with `$KIGI_HOME` from the environment.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            paths: KigiPaths::from_env(),
            definition: None,
            name: None,
            description: None,
            tools: None,
            environment: None,
            catalog: ToolCatalog::built_in(),
            agents_md_budget: DEFAULT_BUDGET_BYTES,
            folder: None,
        }
    }

    /// Where user-level files (`AGENTS.md`, skills) are read from.
    pub fn with_paths(mut self, paths: KigiPaths) -> Self {
        self.paths = paths;
        self
    }

    /// Starts from a parsed definition (otherwise: the built-in `kigi`, or a bare definition
    /// when a name is given).
    pub fn from_definition(mut self, definition: AgentDefinition) -> Self {
        self.definition = Some(definition);
        self
    }

    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Replaces the allowlist. Names from other harnesses are mapped like in agent files.
    pub fn with_tools(mut self, tools: Vec<String>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Fixes the OS, shell, directory and date the prompt mentions (tests, snapshots).
    pub fn with_environment(mut self, environment: PromptEnvironment) -> Self {
        self.environment = Some(environment);
        self
    }

    /// The `AGENTS.md` byte budget (default 32 KiB).
    pub fn with_agents_md_budget(mut self, bytes: usize) -> Self {
        self.agents_md_budget = bytes;
        self
    }

    /// Uses what was already read for `cwd` instead of reading it again.
    pub(crate) fn with_folder_context(mut self, folder: Arc<FolderContext>) -> Self {
        self.folder = Some(folder);
        self
    }

    fn base_definition(&mut self) -> Result<AgentDefinition, AgentBuildError> {
        if let Some(def) = self.definition.take() {
            return Ok(def);
        }
        match &self.name {
            Some(name) => {
                let description =
                    self.description
                        .clone()
                        .ok_or_else(|| AgentBuildError::MissingField {
                            file: None,
                            field: "description".into(),
                        })?;
                Ok(AgentDefinition::new(name.clone(), description))
            }
            None => built_in_definitions()
                .into_iter()
                .find(|d| d.name == DEFAULT_AGENT)
                .ok_or_else(|| AgentBuildError::MissingField {
                    file: None,
                    field: "name".into(),
                }),
        }
    }

    pub fn build(mut self) -> Result<Agent, AgentBuildError> {
        let mut def = self.base_definition()?;
        if let Some(name) = self.name.take() {
            def.name = name;
        }
        if let Some(description) = self.description.take() {
            def.description = description;
        }
        if let Some(reason) = strict_name_problem(&def.name) {
            return Err(AgentBuildError::InvalidName {
                file: def.source.clone(),
                name: def.name.clone(),
                reason: reason.to_owned(),
            });
        }
        let mut diagnostics = def.warnings.clone();
        if let Some(tools) = self.tools.take() {
            let file = def.source.clone();
            let names = resolve_names(
                &tools,
                ListKind::Allow,
                "tools",
                &self.catalog,
                file.as_deref(),
                &mut diagnostics,
            );
            def.tools = ToolSelection::Only(names);
        }

        let tools = resolve_tools(&def, &self.catalog)?;
        let mcp_tool_patterns = match &def.tools {
            ToolSelection::Only(names) => names
                .iter()
                .filter(|n| !self.catalog.contains(n))
                .cloned()
                .collect(),
            ToolSelection::All => Vec::new(),
        };
        check_completion_tool(&def, &tools, &mcp_tool_patterns)?;

        let folder = match self.folder.take() {
            Some(folder) => folder,
            None => {
                let layout = ProjectLayout::locate(&self.cwd);
                Arc::new(FolderContext::read(
                    &self.paths,
                    &layout,
                    self.agents_md_budget,
                    def.agents_md,
                )?)
            }
        };
        let sections = sections(&def, &folder, &mut diagnostics);
        let environment = self
            .environment
            .take()
            .unwrap_or_else(|| folder.environment.clone());
        let variables = tool_variables(&self.catalog, &tools);
        let context = TemplateContext {
            tools: &variables,
            environment: &environment,
            concise: def.output_format == OutputFormat::Concise,
        };
        let system_prompt = prompt::assemble(&def, &context, &sections)?;
        Ok(Agent {
            name: def.name.clone(),
            description: def.description.clone(),
            system_prompt,
            tools,
            mcp_tool_patterns,
            definition: def,
            diagnostics,
        })
    }
}

/// The prompt sections after the agent's own text, and warnings for skills it names that do
/// not exist.
fn sections(
    def: &AgentDefinition,
    folder: &FolderContext,
    diagnostics: &mut Vec<Diagnostic>,
) -> PromptSections {
    diagnostics.extend(folder.skill_diagnostics.iter().cloned());
    for wanted in &def.skills {
        if !folder.skills.iter().any(|s| &s.name == wanted) {
            diagnostics.push(Diagnostic::warning(
                def.source.as_deref().map(Path::new),
                Some("skills"),
                format!("skill `{wanted}` was not found"),
            ));
        }
    }
    PromptSections {
        agents_md: if def.agents_md {
            folder.agents_md.clone()
        } else {
            None
        },
        skills: skills::render_section(&folder.skills, &def.skills),
    }
}
