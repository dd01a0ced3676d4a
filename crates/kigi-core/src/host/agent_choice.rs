//! Which agent and which model a session opens with: `--agent-file`, `--agent`, the resumed
//! session's agent, or the default `kigi`; `--model`, else the agent's `model:` when it names
//! a configured alias, else `KIGI_MODEL` and `default_model`. The user's choice wins over the
//! agent's hard model lists: a violation is a warning ([`main_model_warnings`]), not a refusal.

use std::path::{Path, PathBuf};

use kigi_agent::{
    Agent, AgentBuilder, AgentDefinition, Binding, DEFAULT_AGENT, DiscoveredAgent, Discovery,
    ModelChoice, ModelPolicy, PolicyScope, Scope, apply_system_md,
};
use kigi_model::{ModelClient, ModelConfigError, ModelFlags, ModelsConfig, ReasoningEffort};
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

/// What the main agent's model and effort break in its own hard model lists, as warnings.
/// For the main agent the user's choice (`--model`) wins, as seed 002 says: nothing is
/// refused, and soft lists say nothing. `[subagents]` lists are for children only.
pub fn main_model_warnings(
    models: &ModelsConfig,
    agent: &Agent,
    client: &ModelClient,
) -> Vec<String> {
    let definition = &agent.definition;
    let endpoint = client.endpoint();
    let binding = Binding {
        model: &endpoint.alias,
        model_id: &endpoint.model,
        model_from: "session's model choice",
        effort: definition
            .effort
            .as_deref()
            .and_then(ReasoningEffort::parse),
        effort_from: "agent definition",
    };
    let identity = |entry: &str| {
        models
            .models
            .get(entry)
            .and_then(|settings| settings.model.clone())
            .unwrap_or_else(|| entry.to_owned())
    };
    match ModelPolicy::new()
        .narrowed_by(PolicyScope::of_agent(definition))
        .check(&binding, &identity)
    {
        Ok(_) => Vec::new(),
        Err(violation) => vec![format!(
            "main agent: {violation}; running it anyway, as chosen"
        )],
    }
}

/// The model client for `agent` under `flags`. A hard model list it breaks is logged (see
/// [`main_model_warnings`]), never refused.
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
    let client = models.client(&flags, env)?;
    // The choice stands; what it breaks is said, not refused.
    for warning in main_model_warnings(models, agent, &client) {
        tracing::warn!(%warning, "main agent model policy");
    }
    Ok(client)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use kigi_model::{ModelEndpoint, Provider};

    use super::*;

    fn agent(frontmatter: &str) -> Agent {
        let text = format!("---\nname: main\ndescription: d\n{frontmatter}---\nbody\n");
        AgentBuilder::new(std::env::temp_dir())
            .from_definition(AgentDefinition::parse(&text, None).unwrap())
            .build()
            .unwrap()
    }

    fn client(model: &str) -> ModelClient {
        ModelClient::new(ModelEndpoint::new(
            Provider::OpenaiChat,
            "http://127.0.0.1:9",
            model,
        ))
        .unwrap()
    }

    #[test]
    fn a_main_agent_outside_its_hard_lists_runs_with_a_warning() {
        let models = ModelsConfig::default();
        let strict = agent("allowed_models: [fast]\npreferred_models: [fast]\n");
        let warnings = main_model_warnings(&models, &strict, &client("heavy"));
        assert_eq!(
            warnings,
            [
                "main agent: model `heavy` (from the session's model choice) is not in allowed_models [fast] set by agent `main`; running it anyway, as chosen"
            ]
        );
        // Inside the list, and soft lists never warn for the main agent.
        assert!(main_model_warnings(&models, &strict, &client("fast")).is_empty());
        let soft = agent("preferred_models: [fast]\n");
        assert!(main_model_warnings(&models, &soft, &client("heavy")).is_empty());
    }
}
