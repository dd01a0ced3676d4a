//! Resolving a spawn into what the child runs with: its type's definition (an agent or a
//! role), working directory, persona, model, tools, permission and budgets. Pure checks come
//! first; nothing starts until all of them pass.

use std::path::{Path, PathBuf};

use kigi_model::{ModelClient, ModelConfigError, ModelFlags};
use kigi_tools::ToolRegistry;

use super::binding::BindingRequest;
use super::child_agent::{child_agent, child_permission};
use super::coordinator::Coordinator;
use super::spawn_args::CheckedSpawn;
use super::spawn_error::SpawnError;
use crate::lock::lock;
use crate::session::SessionSetup;
use crate::session_store::SessionStore;
use crate::token_budget::TokenBudget;
use crate::worktree::{self, Worktree};

/// A spawn, resolved.
pub(super) struct Prepared {
    pub setup: SessionSetup,
    pub model: String,
    pub model_source: &'static str,
    pub persona: Option<String>,
    /// The task, after the persona's reminder.
    pub prompt: String,
    pub worktree: Option<Worktree>,
    pub effort: Option<String>,
    /// The soft lists' advisories (`model_not_preferred: …`).
    pub advice: Vec<String>,
    pub isolation: Option<String>,
    /// The executor the child's turns run on (see `external_child`); `None`: kigi's loop.
    pub executor: Option<std::sync::Arc<crate::executor::ExternalEngine>>,
}

impl Coordinator {
    /// Everything that must hold before a child starts, resolved into its setup.
    pub(super) async fn prepare(
        &self,
        spawn: &CheckedSpawn,
        id: &str,
        resumed: Option<&ModelClient>,
    ) -> Result<Prepared, SpawnError> {
        let (mut definition, role) = self.type_definition(&spawn.agent_type)?;
        self.admit(spawn, &definition, resumed.is_some())?;
        let cwd = self.child_cwd(spawn.cwd.as_deref())?;
        let roles = self.roles();
        let role_value = role
            .as_ref()
            .and_then(|name| roles.get(name))
            .map(|e| e.value.clone());
        let capability = match (
            spawn.capability_mode,
            role_value
                .as_ref()
                .and_then(|r| r.default_capability_mode.as_deref()),
        ) {
            (Some(mode), _) => Some(mode),
            (None, Some(mode)) => {
                Some(mode.parse::<kigi_tools::CapabilityMode>().map_err(|_| {
                    SpawnError::RoleCapabilityMode {
                        role: spawn.agent_type.clone(),
                        mode: mode.to_owned(),
                    }
                })?)
            }
            (None, None) => None,
        };
        let persona_name = spawn
            .persona
            .clone()
            .or_else(|| role_value.as_ref().and_then(|r| r.persona.clone()));
        let personas = self.personas();
        let persona = match &persona_name {
            Some(name) => Some((
                name.clone(),
                personas
                    .instructions(name)
                    .map_err(|reason| SpawnError::Persona {
                        persona: name.clone(),
                        reason,
                    })?,
                personas
                    .get(name)
                    .map(|e| e.value.clone())
                    .unwrap_or_default(),
            )),
            None => None,
        };
        // Isolation: spawn-time, then the persona's default, then none.
        let isolate = spawn.worktree
            || (spawn.cwd.is_none()
                && persona
                    .as_ref()
                    .is_some_and(|(_, _, p)| p.default_isolation.as_deref() == Some("worktree")));
        let parent_mode = self.setup.parent_mode.get();
        let plan_mode = parent_mode == kigi_agent::PermissionMode::Plan;
        if plan_mode && isolate {
            return Err(SpawnError::PlanMode {
                agent_type: spawn.agent_type.clone(),
                why: "a worktree is a change to the repository",
            });
        }
        if isolate {
            let cwd = self.setup.cwd.clone();
            off_runtime(move || worktree::repo_root(&cwd)).await?;
        }
        // The model and effort, checked against every hard list before anything is made.
        let binding = self.bind_model(
            &definition,
            BindingRequest {
                agent_type: &spawn.agent_type,
                spawn_model: spawn.model.as_deref(),
                spawn_effort: spawn.effort,
                role: role_value.as_ref(),
                persona: persona.as_ref().map(|(_, _, p)| p),
                resumed,
            },
        )?;
        let client = binding.client.clone();
        // The bound model's `model_profiles` entry extends the body, then the delegation
        // notice goes where the body asks (or first).
        if let Some(profile) = &binding.profile {
            definition.body = profile.compose_prompt(&definition.body);
        }
        super::delegation_notice::add_delegation_notice(&mut definition, id, &spawn.description);
        let mode = child_permission(parent_mode, definition.permission_mode);
        // An agent with browser tools needs a browser on the machine: without one it does not
        // start (and says how to install one). The browser itself starts at its first call.
        let browser = if kigi_agent::drives_browser(&definition) {
            let config = &self.setup.discovery.browser;
            let executable = config
                .locate()
                .map_err(|reason| SpawnError::BrowserMissing {
                    agent_type: spawn.agent_type.clone(),
                    reason: Box::new(reason),
                })?;
            Some(kigi_browser::LaunchOptions {
                executable,
                headless: config.headless,
            })
        } else {
            None
        };
        // Everything is checked: only now is a worktree made, so a refusal leaves none behind.
        let worktree = if isolate {
            let dir = self
                .setup
                .discovery
                .paths
                .kigi_home
                .join("worktrees")
                .join(&self.setup.session_id)
                .join(id);
            let branch = format!("{}{}/{id}", worktree::BRANCH_PREFIX, self.setup.session_id);
            let cwd = self.setup.cwd.clone();
            // One `git worktree add` at a time: concurrent ones contend for the repository's
            // locks and fail.
            let _one_at_a_time = self.worktree_lock.lock().await;
            Some(off_runtime(move || worktree::create(&cwd, &dir, &branch)).await?)
        } else {
            None
        };
        let cwd = worktree.as_ref().map_or(cwd, |w| w.path.clone());
        let agent = child_agent(
            definition,
            capability,
            &self.setup.parent_tools,
            &cwd,
            &self.setup.discovery.paths,
        )
        .map_err(|source| SpawnError::BuildAgent {
            agent_type: spawn.agent_type.clone(),
            source,
        })?;
        // Plan mode delegates reading only: a child that can edit files is refused. The child
        // runs in plan mode too, so its shell and other non-read-only calls are refused there.
        if plan_mode && agent.tools.iter().any(|tool| tool.kind.writes_files()) {
            return Err(SpawnError::PlanMode {
                agent_type: spawn.agent_type.clone(),
                why: "it can edit files",
            });
        }
        let model = client.endpoint().model.clone();
        let mut setup =
            SessionSetup::for_agent(&agent, client, ToolRegistry::built_in(), &cwd, Some(mode));
        setup.runtime = setup.runtime.at_depth(1);
        // Files through the editor, as the parent; commands never in its terminal.
        setup
            .runtime
            .set_editor(self.setup.editor_files.clone(), None);
        match &worktree {
            // Its rules judge paths in its own checkout, as they would in the project.
            Some(worktree) => {
                setup
                    .runtime
                    .guard(&self.setup.guard.for_worktree(&worktree.path));
                setup.runtime.set_write_root(&worktree.path);
            }
            None => setup.runtime.guard(&self.setup.guard),
        }
        // One browser per child, stopped when its turn ends (see `child`).
        if let Some(options) = browser {
            crate::session::Session::attach_browser(&mut setup, options);
        }
        self.child_hooks(&mut setup, &agent, id, &cwd).await;
        // The child's own inline servers start with it (the session's run already); they
        // stop when its turn ends.
        if let Some(value) = &agent.definition.mcp_servers {
            let entries = own_mcp_entries(&agent.name, value);
            let env = std::sync::Arc::clone(&self.setup.env);
            if let Some(own) = crate::mcp_session::SessionMcp::start(entries, &*env) {
                let child = agent.clone();
                setup.runtime.attach_own_mcp(
                    own,
                    std::sync::Arc::new(move |tool: &kigi_mcp::McpTool| {
                        child.admits_mcp_tool(tool.name())
                            && capability.is_none_or(|mode| mode.allows(tool.kind()))
                    }),
                );
            }
        }
        if let Some((mcp, parent_admits)) = &self.setup.mcp {
            let (parent_admits, child) = (std::sync::Arc::clone(parent_admits), agent.clone());
            setup.runtime.attach_mcp(
                std::sync::Arc::clone(mcp),
                std::sync::Arc::new(move |tool: &kigi_mcp::McpTool| {
                    parent_admits(tool)
                        && child.admits_mcp_tool(tool.name())
                        && capability.is_none_or(|mode| mode.allows(tool.kind()))
                }),
            );
        }
        setup.compaction = self.setup.compaction.for_agent(agent.definition.compaction);
        setup.token_budget = TokenBudget {
            own: self.setup.discovery.subagents.max_tokens_per_child,
            tree: self.tree.clone(),
        };
        // The binding's effort replaces the definition's (which `for_agent` read).
        setup.reasoning = binding.effort;
        let prompt = match &persona {
            Some((name, text, _)) => format!(
                "<system-reminder>\nPersona `{name}`:\n{text}\n</system-reminder>\n\n{}",
                spawn.prompt
            ),
            None => spawn.prompt.clone(),
        };
        let isolation = worktree.as_ref().map(|_| {
            if spawn.worktree {
                "worktree (spawn-time)"
            } else {
                "worktree (persona)"
            }
            .to_owned()
        });
        Ok(Prepared {
            worktree,
            effort: binding.effort_label,
            advice: binding.advice.iter().map(ToString::to_string).collect(),
            isolation,
            setup,
            model,
            model_source: binding.model_source,
            persona: persona_name,
            prompt,
            executor: None,
        })
    }

    /// Whether a spawn of `definition` may start at all, native or external: its type is
    /// switched on, it is not private (a resume of a child already on it carries on), and its
    /// name is free.
    pub(super) fn admit(
        &self,
        spawn: &CheckedSpawn,
        definition: &kigi_agent::AgentDefinition,
        resumed: bool,
    ) -> Result<(), SpawnError> {
        if !self.type_enabled(&spawn.agent_type) {
            return Err(SpawnError::TypeDisabled {
                agent_type: spawn.agent_type.clone(),
            });
        }
        // Retired profiles: what runs on one keeps running, a resume carries on, nothing new.
        if definition.private && !resumed {
            return Err(SpawnError::PrivateProfile {
                agent_type: spawn.agent_type.clone(),
            });
        }
        if let Some(name) = &spawn.name
            && lock(&self.children)
                .iter()
                .any(|c| c.name.as_deref() == Some(name))
        {
            return Err(SpawnError::NameTaken { name: name.clone() });
        }
        Ok(())
    }

    /// The definition a type runs: a route (`profile.route`) applied to its base, a
    /// discovered agent of that name, else a role (which runs as `general-purpose` with the
    /// role's description and prompt). Returns the role's name when it is one.
    pub(super) fn type_definition(
        &self,
        agent_type: &str,
    ) -> Result<(kigi_agent::AgentDefinition, Option<String>), SpawnError> {
        let lookup = |name: &str| {
            self.setup
                .discovery
                .by_name_in_cwd(name, &self.setup.cwd)
                .map(|found| found.filter(|f| f.definition.name != kigi_agent::DEFAULT_AGENT))
                .map_err(SpawnError::Definition)
        };
        if agent_type.contains('.') {
            let routes = self.setup.discovery.routes(&self.setup.cwd);
            if let Some(route) = routes.get(agent_type) {
                let base = lookup(&route.profile)?.ok_or_else(|| SpawnError::RouteBaseMissing {
                    route: agent_type.to_owned(),
                    base: route.profile.clone(),
                })?;
                return Ok((route.apply(&base.definition), None));
            }
        }
        if let Some(found) = lookup(agent_type)? {
            return Ok((found.definition, None));
        }
        if let Some(role) = self.roles().get(agent_type) {
            let base = lookup(kigi_agent::DEFAULT_SUBAGENT_TYPE)?.ok_or_else(|| {
                SpawnError::RoleBaseMissing {
                    role: agent_type.to_owned(),
                    base: kigi_agent::DEFAULT_SUBAGENT_TYPE,
                }
            })?;
            let mut definition = base.definition;
            definition.name = agent_type.to_owned();
            if !role.value.description.is_empty() {
                definition.description = role.value.description.clone();
            }
            if let Some(prompt) =
                self.roles()
                    .prompt(agent_type)
                    .map_err(|reason| SpawnError::RolePrompt {
                        role: agent_type.to_owned(),
                        reason,
                    })?
            {
                definition.body = prompt;
            }
            return Ok((definition, Some(agent_type.to_owned())));
        }
        let available: Vec<String> = self
            .available_types()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        Err(SpawnError::UnknownType {
            agent_type: agent_type.to_owned(),
            available,
        })
    }

    /// Whether `agent_type` can be spawned (known, not switched off).
    pub(crate) fn check_spawnable_type(&self, agent_type: &str) -> Result<(), SpawnError> {
        if !self.type_enabled(agent_type) {
            return Err(SpawnError::TypeDisabled {
                agent_type: agent_type.to_owned(),
            });
        }
        self.type_definition(agent_type).map(|_| ())
    }

    /// Whether an explicitly requested model alias resolves.
    pub(crate) fn check_model_alias(&self, alias: &str) -> Result<(), SpawnError> {
        self.client_for(alias)
            .map(|_| ())
            .map_err(|source| SpawnError::ModelAlias {
                alias: alias.to_owned(),
                source,
            })
    }

    /// The client for `alias`: one per alias for the whole session tree, so children share
    /// its connection pool instead of opening their own.
    pub(super) fn client_for(
        &self,
        alias: &str,
    ) -> Result<ModelClient, kigi_model::ModelConfigError> {
        if let Some(client) = lock(&self.clients).get(alias) {
            return Ok(client.clone());
        }
        // A child's model is a configured alias, never a raw id sent to whatever endpoint a
        // flag or variable names.
        let aliases = self.setup.models.aliases();
        if !aliases.iter().any(|known| known == alias) {
            return Err(ModelConfigError::UnknownAlias {
                name: alias.to_owned(),
                known: if aliases.is_empty() {
                    "none; add [models.<alias>] to config.toml".to_owned()
                } else {
                    aliases.join(", ")
                },
            });
        }
        let flags = ModelFlags {
            model: Some(alias.to_owned()),
            base_url: self.setup.base_url_override.clone(),
        };
        let client = self.setup.models.client(&flags, &*self.setup.env)?;
        lock(&self.clients).insert(alias.to_owned(), client.clone());
        Ok(client)
    }

    /// `cwd` inside the parent's working directory (a child never reaches outside it).
    pub(super) fn child_cwd(&self, cwd: Option<&str>) -> Result<PathBuf, SpawnError> {
        let Some(cwd) = cwd else {
            return Ok(self.setup.cwd.clone());
        };
        let wanted = if Path::new(cwd).is_absolute() {
            PathBuf::from(cwd)
        } else {
            self.setup.cwd.join(cwd)
        };
        let resolved = wanted.canonicalize().map_err(|source| SpawnError::Cwd {
            cwd: cwd.to_owned(),
            source,
        })?;
        let root = self
            .setup
            .cwd
            .canonicalize()
            .map_err(SpawnError::WorkingDirectory)?;
        if !resolved.starts_with(&root) || !resolved.is_dir() {
            return Err(SpawnError::CwdOutside {
                cwd: cwd.to_owned(),
                root,
            });
        }
        Ok(resolved)
    }
}

/// Runs blocking git work on the blocking pool, never on the runtime's own threads.
async fn off_runtime<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, worktree::WorktreeError> + Send + 'static,
) -> Result<T, SpawnError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(done) => done.map_err(SpawnError::from),
        Err(_) => Err(SpawnError::from(worktree::WorktreeError::CannotRun(
            std::io::Error::other("the git call was interrupted"),
        ))),
    }
}

/// The highest child number already in the session's folder (a resumed session numbers on).
pub(super) fn existing_children(store: &SessionStore, session_id: &str) -> u64 {
    store
        .child_ids(session_id)
        .last()
        .and_then(|id| id.strip_prefix("sub-")?.parse().ok())
        .unwrap_or(0)
}

/// A child definition's inline MCP servers (names of configured servers are the session's,
/// already running, and not started again).
fn own_mcp_entries(agent: &str, value: &serde_json::Value) -> Vec<kigi_mcp::McpServerEntry> {
    match kigi_mcp::parse_agent_mcp_servers(value, &format!("agent {agent}")) {
        Ok(servers) => servers
            .into_iter()
            .filter_map(|server| match server {
                kigi_mcp::AgentMcpServer::Inline { name, config } => {
                    Some(kigi_mcp::McpServerEntry {
                        name,
                        config,
                        source: kigi_mcp::McpSource::Agent,
                        trusted: true,
                    })
                }
                kigi_mcp::AgentMcpServer::Named(_) => None,
            })
            .collect(),
        Err(error) => {
            tracing::warn!(%error, "a subagent's mcpServers");
            Vec::new()
        }
    }
}
