//! `kigi swarm`'s session: a swarm with no main agent, opened (or reopened, to resume it)
//! from the host's configuration, with a coordinator whose members run as the default agent's
//! children, and the path of its `swarm.jsonl`.

use std::path::PathBuf;
use std::sync::Arc;

use kigi_agent::PermissionMode;
use kigi_agent::permissions::PermissionRules;
use kigi_model::ModelFlags;
use kigi_protocol::SessionEvent;
use kigi_tools::sandbox::SandboxMode;
use tokio_util::sync::CancellationToken;

use super::agent_choice::{AgentChoice, build_agent};
use super::event_stream::{AgentEmitter, event_channel};
use super::host_error::HostError;
use super::hosted_swarm::HostedSwarm;
use super::session_host::SessionHost;
use crate::session_id::new_session_id;
use crate::subagent::{Coordinator, CoordinatorSetup};

/// What a swarm without a main agent (`kigi swarm`) opens with.
#[derive(Debug, Clone)]
pub struct SwarmOpen {
    pub cwd: PathBuf,
    pub model: ModelFlags,
    pub permission_mode: Option<PermissionMode>,
    /// The first user record of its transcript.
    pub summary: String,
    /// Rules from the front end's flags.
    pub rules: PermissionRules,
    /// `--sandbox`.
    pub sandbox: Option<SandboxMode>,
    /// `kigi swarm --resume`: append to this swarm session instead of starting one; its new
    /// members are numbered after the ones it has.
    pub resume: Option<String>,
}

impl SessionHost {
    /// Where `kigi swarm` session `id` keeps its `swarm.jsonl` (which `--resume` reads).
    pub fn swarm_record_path(&self, id: &str) -> Result<PathBuf, crate::StoreError> {
        Ok(self
            .store()
            .wire_path(id)?
            .with_file_name(crate::swarm::RECORD_FILE))
    }

    /// Opens a session for a swarm with no main agent (or reopens one, to resume it): its
    /// transcript, and a coordinator whose members run as the default agent's children.
    /// Needs a tokio runtime.
    pub fn open_swarm(&self, request: SwarmOpen) -> Result<HostedSwarm, HostError> {
        let client = self.models().client(&request.model, &*self.env_lookup())?;
        let parent = build_agent(self.discovery(), &request.cwd, AgentChoice::Default, None)?;
        let (session_id, mut writer) = match &request.resume {
            Some(id) => (id.clone(), self.store().reopen(id)?.1),
            None => {
                let id = new_session_id();
                let mut writer = self.store().create(&id)?;
                writer.append(&writer.start_event(
                    "swarm",
                    &client.endpoint().model,
                    &request.cwd,
                ))?;
                (id, writer)
            }
        };
        writer.append(&SessionEvent::UserMessage {
            text: request.summary,
        })?;
        let (sink, events) = event_channel();
        let cancel = CancellationToken::new();
        let (guard, _) = self.guard_for(&request.cwd, &request.rules, request.sandbox)?;
        // Members get the MCP tools the default agent would (their servers stop with the
        // process: every stdio server is killed with its group when dropped).
        let (mcp, _) = self.start_mcp(&request.cwd, Some(&parent), Vec::new())?;
        let admits = parent.clone();
        let mcp = mcp.map(|servers| {
            let admission: crate::mcp_session::McpAdmission =
                Arc::new(move |tool: &kigi_mcp::McpTool| admits.admits_mcp_tool(tool.name()));
            (servers, admission)
        });
        // Nobody else waits here: members are awaited up to the swarm's deadline, never moved
        // to the background by a foreground budget. And no main agent shares the running
        // slots: the swarm's own cap (`--max-concurrency`, `[swarm] max_concurrency`) is the
        // only limit on members at once, so `[subagents] max_concurrent` does not cut it.
        let mut discovery = self.discovery().clone();
        discovery.subagents.max_concurrent = Some(crate::swarm::MAX_BATCH_ITEMS);
        discovery.subagents.await_budget_ms = Some(
            discovery
                .swarm
                .deadline_ms
                .unwrap_or(kigi_agent::SwarmConfig::DEFAULT_DEADLINE_MS),
        );
        let coordinator = Coordinator::new(CoordinatorSetup {
            session_id: session_id.clone(),
            store: self.store().clone(),
            discovery,
            models: self.models().clone(),
            base_url_override: request.model.base_url.clone(),
            env: self.env_lookup(),
            parent_client: client,
            parent_tools: parent.tools.clone(),
            parent_mode: crate::shared_mode::SharedMode::new(
                request
                    .permission_mode
                    .unwrap_or(parent.definition.permission_mode),
            ),
            cwd: request.cwd,
            cancel: cancel.clone(),
            events: AgentEmitter::main(sink.clone()),
            approvals: None,
            guard,
            editor_files: None,
            acp_driver: self.acp_driver.clone(),
            compaction: self.compaction,
            parent_policy: kigi_agent::PolicyScope::of_agent(&parent.definition),
            mcp,
        });
        Ok(HostedSwarm::new(
            session_id,
            writer,
            coordinator,
            events,
            sink,
            cancel,
        ))
    }
}
