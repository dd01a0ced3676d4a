//! A session's MCP servers: started in the background when the session opens, waited for
//! (each up to its startup timeout) before the first model request, and their tools joined to
//! every agent's runtime that admits them, at each step (a server that was slow, or announced a
//! changed list, joins later). A server that fails is reported once and leaves the session
//! working; all of them stop with the session.
//!
//! The rule: an agent gets an MCP tool only if its own allowlist admits it, every ancestor
//! had it, and its capability mode allows the tool's kind.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use kigi_mcp::{McpServerEntry, McpServerReport, McpServerStatus, McpServers, McpTool};
use tokio::sync::RwLock;

/// Whether an agent may have an MCP tool.
pub type McpAdmission = Arc<dyn Fn(&McpTool) -> bool + Send + Sync>;

/// The MCP servers of one session.
#[derive(Debug)]
pub struct SessionMcp {
    servers: RwLock<McpServers>,
    /// The longest startup timeout: what the first request waits at most.
    ceiling: Duration,
    waited: AtomicBool,
}

impl SessionMcp {
    /// Starts `entries` in the background (needs a tokio runtime); `None` when there are none.
    pub fn start(
        entries: Vec<McpServerEntry>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Arc<Self>> {
        if entries.is_empty() {
            return None;
        }
        let ceiling = entries
            .iter()
            .map(|e| e.config.startup_timeout())
            .max()
            .unwrap_or_default();
        Some(Arc::new(Self {
            servers: RwLock::new(McpServers::start_all_with_env(entries, env)),
            ceiling,
            waited: AtomicBool::new(false),
        }))
    }

    /// The tools offered now, and the failures not reported yet. The first call waits for the
    /// servers to settle (each within its startup timeout); later calls never wait for a
    /// startup, only for a changed list to be read again.
    pub async fn current(&self) -> (Vec<McpTool>, Vec<McpServerReport>) {
        let servers = self.servers.read().await;
        if !self.waited.swap(true, Ordering::SeqCst) {
            servers.wait_ready(self.ceiling).await;
        }
        if servers.tools_changed() {
            for error in servers.refresh_changed_tools().await {
                tracing::warn!(%error, "MCP tool list refresh");
            }
        }
        (servers.tools(), servers.take_unreported())
    }

    /// The ready servers that declared resources.
    pub async fn resource_servers(&self) -> Vec<Arc<kigi_mcp::McpConnection>> {
        let servers = self.servers.read().await;
        servers
            .statuses()
            .into_iter()
            .filter_map(|(name, _)| servers.connection(&name))
            .filter(|connection| connection.has_resources())
            .collect()
    }

    /// A ready server's connection.
    pub async fn connection(&self, name: &str) -> Option<Arc<kigi_mcp::McpConnection>> {
        self.servers.read().await.connection(name)
    }

    /// Every server's status now.
    pub async fn statuses(&self) -> Vec<(String, McpServerStatus)> {
        self.servers.read().await.statuses()
    }

    /// Stops every server; their process groups are reaped.
    pub async fn shutdown(&self) {
        self.servers.write().await.shutdown().await;
    }
}

/// What a failed or untrusted server's report says.
pub fn report_text(report: &McpServerReport) -> String {
    match &report.status {
        McpServerStatus::NeedsTrust => format!(
            "MCP server `{}` (from this project) was not started: the folder is not trusted (run `kigi trust` to start it)",
            report.name
        ),
        McpServerStatus::Failed {
            reason,
            stderr_tail,
        } if !stderr_tail.trim().is_empty() => format!(
            "MCP server `{}` is unavailable: {reason}\n{}",
            report.name,
            stderr_tail.trim_end()
        ),
        McpServerStatus::Failed { reason, .. } => {
            format!("MCP server `{}` is unavailable: {reason}", report.name)
        }
        other => format!("MCP server `{}`: {other:?}", report.name),
    }
}
