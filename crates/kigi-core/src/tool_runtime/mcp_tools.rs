//! The runtime's MCP tools: joined from the session's servers at each step, as far as this
//! agent admits them, with the model-facing name as the canonical one (`mcp__server__tool`),
//! and dropped when their server no longer offers them.

use std::collections::BTreeSet;
use std::sync::Arc;

use kigi_agent::ResolvedTool;

use super::ToolRuntime;
use crate::mcp_resource_tools::{ListMcpResources, ReadMcpResource};
use crate::mcp_session::{McpAdmission, SessionMcp, report_text};

/// A runtime's link to its session's MCP servers.
#[derive(Clone)]
pub(crate) struct McpLink {
    pub session: Arc<SessionMcp>,
    pub admit: McpAdmission,
}

impl std::fmt::Debug for McpLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpLink").finish_non_exhaustive()
    }
}

impl ToolRuntime {
    /// Offers this agent the tools of `session`'s servers that `admit` lets through (the
    /// session's servers first; an agent's own inline servers after them).
    pub fn attach_mcp(&mut self, session: Arc<SessionMcp>, admit: McpAdmission) {
        self.mcp.push(McpLink { session, admit });
    }

    /// Offers this agent the tools of servers it started itself (its inline `mcpServers`),
    /// which stop when its turn ends ([`Self::own_mcp`]).
    pub fn attach_own_mcp(&mut self, servers: Arc<SessionMcp>, admit: McpAdmission) {
        self.own_mcp = Some(Arc::clone(&servers));
        self.attach_mcp(servers, admit);
    }

    /// The servers this agent started itself, when it did.
    pub fn own_mcp(&self) -> Option<&Arc<SessionMcp>> {
        self.own_mcp.as_ref()
    }

    /// The session's MCP servers, when it has any.
    pub fn mcp_session(&self) -> Option<&Arc<SessionMcp>> {
        self.mcp.first().map(|link| &link.session)
    }

    /// The admission this agent's MCP tools pass (a child's starts from it).
    pub fn mcp_admission(&self) -> Option<McpAdmission> {
        self.mcp.first().map(|link| Arc::clone(&link.admit))
    }

    /// Brings the agent's MCP tools up to date (the first time, after waiting for the servers
    /// to start); returns what to report about servers that failed or need trust.
    pub async fn sync_mcp(&mut self) -> Vec<String> {
        let mut reports = Vec::new();
        let mut names: BTreeSet<String> = BTreeSet::new();
        for link in self.mcp.clone() {
            reports.extend(self.sync_link(&link, &mut names).await);
        }
        if !self.mcp.is_empty() {
            self.tools.retain(|tool| {
                !tool.name.starts_with("mcp__") || names.contains(tool.name.as_str())
            });
        }
        reports
    }

    /// Joins one link's tools; `names` collects the MCP tool names offered now.
    async fn sync_link(&mut self, link: &McpLink, names: &mut BTreeSet<String>) -> Vec<String> {
        let (tools, reports) = link.session.current().await;
        let offered: Vec<_> = tools
            .into_iter()
            .filter(|tool| (link.admit)(tool))
            .collect();
        names.extend(offered.iter().map(|tool| tool.name().to_owned()));
        for tool in &offered {
            if self.tools.iter().any(|t| t.name == tool.name()) {
                continue;
            }
            self.tools.push(ResolvedTool {
                name: tool.name().to_owned(),
                model_name: tool.name().to_owned(),
                kind: tool.kind(),
                description: tool.description().to_owned(),
                read_only: tool.read_only(),
                param_names: Default::default(),
            });
            self.registry.register(Arc::new(tool.clone()));
        }
        // Resources of servers whose tools this agent has.
        let servers: BTreeSet<&str> = offered.iter().map(|tool| tool.server()).collect();
        let mut with_resources = false;
        for connection in link.session.resource_servers().await {
            with_resources |= servers.contains(connection.server());
        }
        let admitted: Vec<String> = servers.iter().map(|s| (*s).to_owned()).collect();
        let resource_tools: [Arc<dyn kigi_tools::Tool>; 2] = [
            Arc::new(ListMcpResources::new(
                Arc::clone(&link.session),
                admitted.clone(),
            )),
            Arc::new(ReadMcpResource::new(Arc::clone(&link.session), admitted)),
        ];
        for tool in resource_tools {
            let spec = tool.spec();
            let present = self.tools.iter().any(|t| t.name == spec.name);
            // Registered again each step, so the servers they serve follow the agent's tools.
            if with_resources && present {
                self.registry.register(tool);
            } else if with_resources {
                self.tools.push(ResolvedTool {
                    name: spec.name.to_string(),
                    model_name: spec.name.to_string(),
                    kind: spec.kind,
                    description: spec.description.to_string(),
                    read_only: spec.read_only,
                    param_names: Default::default(),
                });
                self.registry.register(tool);
            }
        }
        reports.iter().map(report_text).collect()
    }
}
