//! Resolving a spawn that runs on an executor (`executor` of the spawn, else of the type's
//! file): the executor must be configured and its program present, or the spawn fails
//! naming it. Such a child gets a transcript and an event stream like a native child, but no
//! model client of its own, no tools and no native permissions.
//!
//! The rule: an executor named explicitly never falls back to kigi's own loop.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use kigi_agent::{ExecutorKind, ModelChoice, ProfileDelivery};
use kigi_tools::{ToolContext, ToolRegistry};

use super::coordinator::Coordinator;
use super::resolve::Prepared;
use super::spawn_args::CheckedSpawn;
use super::spawn_error::SpawnError;
use crate::executor::ExternalEngine;
use crate::session::SessionSetup;
use crate::tool_runtime::ToolRuntime;

impl Coordinator {
    /// Whether `executor` is a configured `[agent_executors.<id>]`; the error lists those
    /// that are.
    pub(crate) fn check_executor_id(&self, executor: &str) -> Result<(), SpawnError> {
        let executors = &self.setup.discovery.agent_executors;
        if executors.contains_key(executor) {
            return Ok(());
        }
        Err(SpawnError::UnknownExecutor {
            executor: executor.to_owned(),
            known: executors.keys().cloned().collect(),
        })
    }

    /// The child's setup when it runs on an executor; `None` for a native child.
    pub(super) fn prepare_external(
        &self,
        spawn: &CheckedSpawn,
        id: &str,
        resumed: bool,
    ) -> Result<Option<Prepared>, SpawnError> {
        let (mut definition, _) = self.type_definition(&spawn.agent_type)?;
        let Some(executor) = spawn
            .executor
            .clone()
            .or_else(|| definition.executor.clone())
        else {
            return Ok(None);
        };
        self.check_executor_id(&executor)?;
        let executors = &self.setup.discovery.agent_executors;
        let Some(config) = executors.get(&executor) else {
            return Err(SpawnError::UnknownExecutor {
                executor,
                known: executors.keys().cloned().collect(),
            });
        };
        let refuse = |reason: &str| SpawnError::Executor {
            executor: executor.clone(),
            reason: reason.to_owned(),
        };
        self.admit(spawn, &definition, resumed)?;
        if resumed {
            return Err(refuse(
                "resume_from cannot carry a conversation into an external engine",
            ));
        }
        if spawn.worktree || spawn.persona.is_some() || spawn.capability_mode.is_some() {
            return Err(refuse(
                "isolation, persona and capability_mode are not applied to an external engine; leave them out",
            ));
        }
        // The engine's own permissions are its configuration: kigi cannot hold it to
        // read-only, so plan mode refuses it rather than trusting it.
        if self.setup.parent_mode.get() == kigi_agent::PermissionMode::Plan {
            return Err(SpawnError::PlanMode {
                agent_type: spawn.agent_type.clone(),
                why: "it runs on an external executor",
            });
        }
        let cwd = self.child_cwd(spawn.cwd.as_deref())?;
        if let Some(reason) = missing_program(&config.command, &cwd) {
            return Err(refuse(&reason));
        }
        let model = spawn.model.clone().or(match &definition.model {
            ModelChoice::Named(model) => Some(model.clone()),
            _ => None,
        });
        super::delegation_notice::add_delegation_notice(&mut definition, id, &spawn.description);
        let acp = match config.kind {
            ExecutorKind::Command => None,
            ExecutorKind::Acp => Some(self.setup.acp_driver.clone().ok_or_else(|| {
                refuse("this front end has no ACP client to run a kind = \"acp\" executor")
            })?),
        };
        // The profile travels in the first message's preamble (seed 002), or, for an ACP
        // agent that opted in, as `_meta.systemPromptOverride` instead.
        // A built-in type's body is kigi's own prompt template, meaningless to another engine.
        let profile = (!definition.body.trim().is_empty()
            && !kigi_agent::is_built_in_name(&definition.name))
        .then(|| definition.body.trim().to_owned());
        let overrides = config.kind == ExecutorKind::Acp
            && config.profile_delivery == ProfileDelivery::SystemPromptOverride;
        let (prompt, system_prompt_override) = match profile {
            Some(profile) if overrides => (spawn.prompt.clone(), Some(profile)),
            Some(profile) => (
                format!(
                    "<agent-profile name=\"{}\">\n{profile}\n</agent-profile>\n\n{}",
                    definition.name, spawn.prompt
                ),
                None,
            ),
            None => (spawn.prompt.clone(), None),
        };
        let label = format!("executor:{executor}");
        // The transcript's first record names the executor as the model; the engine's own
        // model is in the child's result once it reports one.
        let mut endpoint = self.setup.parent_client.endpoint().clone();
        endpoint.model = label.clone();
        let client = kigi_model::ModelClient::new(endpoint).map_err(|e| refuse(&e.to_string()))?;
        let runtime = ToolRuntime::new(
            Vec::new(),
            ToolRegistry::default(),
            ToolContext::new(&cwd),
            kigi_agent::PermissionMode::Default,
        );
        // One turn, no tools of kigi's: the engine runs its own.
        let setup = SessionSetup::new(definition.name.clone(), String::new(), client, runtime, 1);
        Ok(Some(Prepared {
            setup,
            model: label,
            model_source: "executor",
            persona: None,
            prompt,
            worktree: None,
            effort: None,
            advice: Vec::new(),
            isolation: None,
            executor: Some(Arc::new(ExternalEngine {
                id: executor.clone(),
                config: config.clone(),
                model,
                acp,
                system_prompt_override,
            })),
        }))
    }
}

/// Why `command` cannot be started from `cwd`, if it cannot: a path that is no executable
/// file, or a name on no `PATH` entry.
fn missing_program(command: &str, cwd: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if command.contains('/') {
        let path = cwd.join(command);
        return (!executable(&path)).then(|| format!("`{command}` is not an executable file"));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).any(|dir: PathBuf| executable(&dir.join(command)));
    (!found).then(|| format!("`{command}` is not on PATH"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_looked_up_as_the_process_would_find_it() {
        assert_eq!(missing_program("sh", Path::new("/")), None);
        assert_eq!(
            missing_program("no-such-engine-xyz", Path::new("/")),
            Some("`no-such-engine-xyz` is not on PATH".into())
        );
        assert_eq!(
            missing_program("./nope", Path::new("/")),
            Some("`./nope` is not an executable file".into())
        );
    }
}
