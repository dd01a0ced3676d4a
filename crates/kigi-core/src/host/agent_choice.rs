//! Which agent and which model a session opens with: `--agent-file`, `--agent`, the resumed
//! session's agent, or the default `kigi`; `--model`, else the agent's `model:` when it names
//! a configured alias, else `KIGI_MODEL` and `default_model`.

use std::path::{Path, PathBuf};

use kigi_agent::{
    Agent, AgentBuilder, AgentDefinition, DEFAULT_AGENT, DiscoveredAgent, Discovery, ModelChoice,
    Scope, apply_system_md,
};
use kigi_model::{ModelClient, ModelConfigError, ModelFlags, ModelsConfig};
use kigi_tools::ToolCatalog;

use super::host_error::HostError;

/// The agent a session runs.
#[derive(Debug, Clone, Default)]
pub enum AgentChoice {
    /// The resumed session's agent, else `kigi`.
    #[default]
    Default,
    /// A discovered agent by name (`--agent`).
    Named(String),
    /// A definition file (`--agent-file`).
    File(PathBuf),
    /// An agent built by the caller (tests, embedders).
    Built(Box<Agent>),
}

/// Builds the chosen agent for `cwd`; `resumed` is the agent a resumed session ran.
pub fn build_agent(
    discovery: &Discovery,
    cwd: &Path,
    choice: AgentChoice,
    resumed: Option<&str>,
) -> Result<Agent, HostError> {
    let agent_error = |context: String| move |source| HostError::Agent { context, source };
    let mut definition = match choice {
        AgentChoice::Built(agent) => return Ok(*agent),
        AgentChoice::File(file) => AgentDefinition::from_file(&file)
            .map_err(agent_error(format!("--agent-file {}", file.display())))?,
        AgentChoice::Named(name) => named(discovery, cwd, &name)?.definition,
        AgentChoice::Default => {
            let found = named(discovery, cwd, resumed.unwrap_or(DEFAULT_AGENT))?;
            // SYSTEM.md replaces the default main agent, unless a trusted project ships its
            // own `kigi` (explicit, and closer to the work).
            if found.definition.name == DEFAULT_AGENT && found.scope != Scope::Project {
                let (mut definition, problem) =
                    apply_system_md(found.definition, &discovery.paths.kigi_home);
                definition.trust_notices.extend(problem);
                definition
            } else {
                found.definition
            }
        }
    };
    // With subagents off, the delegation tools are not this agent's at all, so neither the
    // tool list nor the prompt's lines about them appear.
    if !discovery.subagents.enabled {
        definition.disallowed_tools.extend(
            ToolCatalog::built_in()
                .specs()
                .iter()
                .filter(|spec| spec.kind.delegates())
                .map(|spec| spec.name.to_string()),
        );
    }
    // Without a configured search service there is no `web_search` to offer or to name.
    if discovery.web_search.is_none() {
        definition.disallowed_tools.push("web_search".into());
    }
    let name = definition.name.clone();
    AgentBuilder::new(cwd)
        .with_paths(discovery.paths.clone())
        .from_definition(definition)
        .build()
        .map_err(agent_error(format!("agent `{name}`")))
}

fn named(discovery: &Discovery, cwd: &Path, name: &str) -> Result<DiscoveredAgent, HostError> {
    let found = discovery
        .by_name_in_cwd(name, cwd)
        .map_err(|source| HostError::Agent {
            context: format!("agent `{name}`"),
            source,
        })?;
    match found {
        Some(found) => Ok(found),
        None => Err(HostError::UnknownAgent {
            name: name.to_owned(),
            available: discovery.discover(cwd).names().join(", "),
        }),
    }
}

/// The model client for `agent` under `flags`.
pub fn client_for(
    models: &ModelsConfig,
    agent: &Agent,
    flags: &ModelFlags,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ModelClient, ModelConfigError> {
    let mut flags = flags.clone();
    if flags.model.is_none()
        && let ModelChoice::Named(alias) = agent.definition.model.effective(&models.aliases())
    {
        flags.model = Some(alias);
    }
    models.client(&flags, env)
}
