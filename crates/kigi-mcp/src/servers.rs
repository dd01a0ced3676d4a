//! `McpServers`: every MCP server of a session, started concurrently in the background, with
//! a status each, and the tools of those that are ready.
//!
//! The rule: no server blocks another or the session. Each starts in its own task; the caller
//! waits for readiness only up to a ceiling it chooses; a server that failed (or needs trust) is
//! reported once; a slow one that becomes ready later has its tools offered from then on.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::connection::McpConnection;
use crate::error::McpError;
use crate::launch::prepare_launch;
use crate::mcp_tool::McpTool;
use crate::server_config::McpServerConfig;
use crate::tool_name::unique_tool_names;

/// Where a server entry came from (for listings and trust).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum McpSource {
    /// `config.toml`'s `[mcp_servers]`.
    User,
    /// A project's `.mcp.json` or `.kigi/mcp.toml`.
    Project,
    /// An agent file's inline `mcpServers`.
    Agent,
}

/// One server to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerEntry {
    pub name: String,
    pub config: McpServerConfig,
    pub source: McpSource,
    /// False for a project's server in a folder the user has not trusted: it is listed as
    /// [`McpServerStatus::NeedsTrust`] and its command never runs.
    pub trusted: bool,
}

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpServerStatus {
    Starting,
    Ready {
        tools: usize,
    },
    Failed {
        reason: String,
        stderr_tail: String,
    },
    /// A project server in an untrusted folder: not started.
    NeedsTrust,
    /// `enabled = false`: not started.
    Disabled,
}

impl McpServerStatus {
    /// Whether the status can still change by itself.
    pub fn is_settled(&self) -> bool {
        !matches!(self, Self::Starting)
    }
}

/// A status worth telling the user about, once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerReport {
    pub name: String,
    pub source: McpSource,
    pub status: McpServerStatus,
}

#[derive(Debug)]
struct ServerSlot {
    name: String,
    source: McpSource,
    config: McpServerConfig,
    status: watch::Receiver<McpServerStatus>,
    connection: Arc<OnceLock<Arc<McpConnection>>>,
    reported: AtomicBool,
    task: Option<JoinHandle<()>>,
}

/// The session's MCP servers.
#[derive(Debug, Default)]
pub struct McpServers {
    slots: Vec<ServerSlot>,
}

impl McpServers {
    /// Starts every enabled, trusted entry in the background (needs a Tokio runtime), with the
    /// process environment for `${VAR}` expansion; returns at once.
    pub fn start_all(entries: Vec<McpServerEntry>) -> Self {
        Self::start_all_with_env(entries, &|var| std::env::var(var).ok())
    }

    /// [`Self::start_all`] with `lookup` as the environment.
    pub fn start_all_with_env(
        entries: Vec<McpServerEntry>,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Self {
        let slots = entries
            .into_iter()
            .map(|entry| Self::start_one(entry, lookup))
            .collect();
        Self { slots }
    }

    fn start_one(entry: McpServerEntry, lookup: &dyn Fn(&str) -> Option<String>) -> ServerSlot {
        let connection = Arc::new(OnceLock::new());
        let settled = |status| watch::channel(status).1;
        let (status, task) = if !entry.config.enabled {
            (settled(McpServerStatus::Disabled), None)
        } else if !entry.trusted {
            (settled(McpServerStatus::NeedsTrust), None)
        } else {
            match prepare_launch(&entry.name, &entry.config, lookup) {
                Err(e) => (settled(failed(e)), None),
                Ok(launch) => {
                    let (tx, rx) = watch::channel(McpServerStatus::Starting);
                    let slot = Arc::clone(&connection);
                    let task = tokio::spawn(async move {
                        let status = match McpConnection::connect(&launch).await {
                            Ok(conn) => {
                                let tools = conn.tools().len();
                                let _ = slot.set(Arc::new(conn));
                                McpServerStatus::Ready { tools }
                            }
                            Err(e) => {
                                tracing::warn!(server = %launch.name, error = %e, "MCP server failed to start");
                                failed(e)
                            }
                        };
                        let _ = tx.send(status);
                    });
                    (rx, Some(task))
                }
            }
        };
        ServerSlot {
            name: entry.name,
            source: entry.source,
            config: entry.config,
            status,
            connection,
            reported: AtomicBool::new(false),
            task,
        }
    }

    /// Waits until every server is ready, failed or otherwise settled, or until `ceiling`
    /// passes; returns the statuses then (slow servers still `Starting`).
    pub async fn wait_ready(&self, ceiling: Duration) -> Vec<(String, McpServerStatus)> {
        let deadline = Instant::now() + ceiling;
        for slot in &self.slots {
            let mut status = slot.status.clone();
            let _ = tokio::time::timeout_at(deadline, status.wait_for(McpServerStatus::is_settled))
                .await;
        }
        self.statuses()
    }

    /// Every server's status now, in entry order.
    pub fn statuses(&self) -> Vec<(String, McpServerStatus)> {
        self.slots
            .iter()
            .map(|slot| (slot.name.clone(), slot.status.borrow().clone()))
            .collect()
    }

    pub fn status(&self, name: &str) -> Option<McpServerStatus> {
        self.slot(name).map(|slot| slot.status.borrow().clone())
    }

    /// Failed and needs-trust servers not reported before (each is returned once).
    pub fn take_unreported(&self) -> Vec<McpServerReport> {
        self.slots
            .iter()
            .filter_map(|slot| {
                let status = slot.status.borrow().clone();
                let worth = matches!(
                    status,
                    McpServerStatus::Failed { .. } | McpServerStatus::NeedsTrust
                );
                (worth && !slot.reported.swap(true, Ordering::SeqCst)).then(|| McpServerReport {
                    name: slot.name.clone(),
                    source: slot.source,
                    status,
                })
            })
            .collect()
    }

    /// A ready server's connection.
    pub fn connection(&self, name: &str) -> Option<Arc<McpConnection>> {
        self.slot(name)?.connection.get().cloned()
    }

    /// The entry a server was started from.
    pub fn config(&self, name: &str) -> Option<&McpServerConfig> {
        self.slot(name).map(|slot| &slot.config)
    }

    /// The tools of every ready server that its entry offers (`enabled_tools`,
    /// `disabled_tools`), named uniquely across servers.
    pub fn tools(&self) -> Vec<McpTool> {
        let mut offered = Vec::new();
        for slot in &self.slots {
            let Some(connection) = slot.connection.get() else {
                continue;
            };
            for info in connection.tools().iter() {
                if slot.config.offers_tool(&info.tool) {
                    offered.push((info.clone(), Arc::clone(connection)));
                }
            }
        }
        let pairs: Vec<(&str, &str)> = offered
            .iter()
            .map(|(info, _)| (info.server.as_str(), info.tool.as_str()))
            .collect();
        let names = unique_tool_names(&pairs);
        offered
            .into_iter()
            .zip(names)
            .map(|((info, connection), name)| McpTool::new(name, info, connection))
            .collect()
    }

    /// True when a ready server announced a changed tool list since it was last read.
    pub fn tools_changed(&self) -> bool {
        self.slots
            .iter()
            .filter_map(|slot| slot.connection.get())
            .any(|conn| conn.tools_changed())
    }

    /// Lists again the tools of every server that announced a change; a failure leaves that
    /// server's previous list and is returned.
    pub async fn refresh_changed_tools(&self) -> Vec<McpError> {
        let mut errors = Vec::new();
        for connection in self.slots.iter().filter_map(|slot| slot.connection.get()) {
            if connection.tools_changed()
                && let Err(e) = connection.refresh_tools().await
            {
                errors.push(e);
            }
        }
        errors
    }

    /// Stops every server at once: startups still running are abandoned (their processes
    /// killed), ready ones shut down concurrently with their process groups reaped.
    pub async fn shutdown(&mut self) {
        let mut closing = tokio::task::JoinSet::new();
        for slot in &mut self.slots {
            if let Some(task) = slot.task.take() {
                task.abort();
                let _ = task.await;
            }
            if let Some(connection) = slot.connection.get() {
                let connection = Arc::clone(connection);
                closing.spawn(async move {
                    connection.shutdown().await;
                });
            }
        }
        while closing.join_next().await.is_some() {}
    }

    fn slot(&self, name: &str) -> Option<&ServerSlot> {
        self.slots.iter().find(|slot| slot.name == name)
    }
}

impl Drop for McpServers {
    fn drop(&mut self) {
        for slot in &self.slots {
            if let Some(task) = &slot.task {
                task.abort();
            }
        }
    }
}

fn failed(error: McpError) -> McpServerStatus {
    match error {
        McpError::Startup {
            reason,
            stderr_tail,
            ..
        } => McpServerStatus::Failed {
            reason,
            stderr_tail,
        },
        other => McpServerStatus::Failed {
            reason: other.to_string(),
            stderr_tail: String::new(),
        },
    }
}
