//! From a built [`Agent`] to a [`SessionSetup`]: the definition's permission mode, `bash`
//! settings, effort, `maxTurns` and completion requirement, applied to the tools and the loop.

use std::path::Path;
use std::time::Duration;

use kigi_agent::{Agent, PermissionMode};
use kigi_model::{ModelClient, ReasoningEffort};
use kigi_tools::{BashLimits, ToolContext, ToolRegistry};

use crate::session::{DEFAULT_MAX_TURNS, SessionSetup};
use crate::tool_runtime::ToolRuntime;

impl SessionSetup {
    /// The setup for `agent` in `cwd`. `permission_mode` (a flag) overrides the definition's.
    pub fn for_agent(
        agent: &Agent,
        client: ModelClient,
        registry: ToolRegistry,
        cwd: &Path,
        permission_mode: Option<PermissionMode>,
    ) -> Self {
        let definition = &agent.definition;
        let mut context = ToolContext::new(cwd);
        context.bash = BashLimits {
            timeout: Duration::from_secs_f64(definition.bash.timeout_secs.clamp(0.001, 86_400.0)),
            output_limit: usize::try_from(definition.bash.output_byte_limit).unwrap_or(usize::MAX),
            prefix: definition.bash.cmd_prefix.clone(),
        };
        let mode = permission_mode.unwrap_or(definition.permission_mode);
        Self {
            reasoning: definition
                .effort
                .as_deref()
                .and_then(ReasoningEffort::parse),
            completion: definition.completion_requirement.clone(),
            ..Self::new(
                agent.name.clone(),
                agent.system_prompt.clone(),
                client,
                ToolRuntime::new(agent.tools.clone(), registry, context, mode),
                definition.max_turns.unwrap_or(DEFAULT_MAX_TURNS).max(1),
            )
        }
    }

    /// A setup with nothing but its agent's name and prompt, its model, its tools and its
    /// turn limit: no effort, completion requirement, budget, inbox, steering, compaction,
    /// model switch or browser until the caller sets them.
    pub fn new(
        agent_name: String,
        system_prompt: String,
        client: ModelClient,
        runtime: ToolRuntime,
        max_turns: u32,
    ) -> Self {
        Self {
            agent_name,
            system_prompt,
            client,
            runtime,
            max_turns,
            reasoning: None,
            completion: None,
            token_budget: Default::default(),
            inbox: None,
            steer: None,
            compaction: Default::default(),
            compact_requested: None,
            model_switch: None,
            browser: None,
        }
    }
}
