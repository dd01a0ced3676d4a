//! `McpConnection`: one started MCP server: the stdio child or HTTP endpoint, the initialized
//! rmcp session, its tool list, and the calls made on it.
//!
//! The rule: nothing here waits without a ceiling. `initialize` and the first `tools/list`
//! share the startup timeout, a tool call has the tool timeout and a cancellation token (either
//! ending it sends `notifications/cancelled`), other requests have the startup timeout, and a
//! server that fails to start is reaped and reported with its stderr tail.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest, ReadResourceRequestParams, RequestId,
};
use rmcp::service::{PeerRequestOptions, RunningService, ServiceError};
use rmcp::{Peer, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::call_result::{McpCallResult, McpContent};
use crate::client_handler::{ChangeFlag, KigiClient};
use crate::error::McpError;
use crate::http_transport::http_transport;
use crate::launch::ServerLaunch;
use crate::server_config::McpTransport;
use crate::stdio_process::{StdioCommand, StdioProcess};
use crate::tool_info::{McpPrompt, McpResource, McpToolInfo};

/// Ceiling on handing `notifications/cancelled` to the transport.
const CANCEL_SEND_CEILING: Duration = Duration::from_secs(2);
/// Ceiling on closing the rmcp session at shutdown.
const CLOSE_CEILING: Duration = Duration::from_secs(2);
/// How long a server that closed its stdout during startup gets to finish exiting, so its
/// exit status can be reported.
const EXIT_REPORT_CEILING: Duration = Duration::from_millis(300);

/// A connected MCP server.
pub struct McpConnection {
    server: String,
    transport: &'static str,
    peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, KigiClient>>>,
    process: tokio::sync::Mutex<Option<StdioProcess>>,
    pid: Option<u32>,
    tools_changed: Arc<ChangeFlag>,
    tools: RwLock<Arc<[McpToolInfo]>>,
    tool_timeout: Duration,
    request_timeout: Duration,
    cancellations_sent: AtomicU64,
    calls_in_flight: tokio::sync::watch::Sender<usize>,
    has_resources: bool,
    has_prompts: bool,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("server", &self.server)
            .field("transport", &self.transport)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

impl McpConnection {
    /// Starts the server (a stdio child, or a session with an HTTP endpoint), performs
    /// `initialize` and lists its tools, all within the entry's startup timeout.
    pub async fn connect(launch: &ServerLaunch) -> Result<Self, McpError> {
        let deadline = Instant::now() + launch.config.startup_timeout();
        let tools_changed = Arc::new(ChangeFlag::default());
        let handler = KigiClient {
            tools_changed: Arc::clone(&tools_changed),
        };
        let server = launch.name.clone();
        let (service, process) = match &launch.config.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let spec = StdioCommand {
                    server: &server,
                    command,
                    args,
                    env,
                    cwd: cwd.as_ref(),
                };
                let (mut process, stdout, stdin) = StdioProcess::spawn(&spec)?;
                match tokio::time::timeout_at(deadline, handler.serve((stdout, stdin))).await {
                    Ok(Ok(service)) => (service, Some(process)),
                    Ok(Err(e)) => {
                        let reason = match process.exit_status_within(EXIT_REPORT_CEILING).await {
                            Some(status) => {
                                format!("it exited ({status}) before answering initialize")
                            }
                            None => format!("initialize failed: {e}"),
                        };
                        let stderr_tail = process.terminate(false).await;
                        return Err(McpError::Startup {
                            server,
                            reason,
                            stderr_tail,
                        });
                    }
                    Err(_) => {
                        let stderr_tail = process.terminate(false).await;
                        return Err(McpError::Startup {
                            server,
                            reason: no_answer(launch.config.startup_timeout()),
                            stderr_tail,
                        });
                    }
                }
            }
            McpTransport::Http { url, headers, .. } => {
                let transport =
                    http_transport(&server, url, headers, launch.bearer_token.as_deref())?;
                match tokio::time::timeout_at(deadline, handler.serve(transport)).await {
                    Ok(Ok(service)) => (service, None),
                    Ok(Err(e)) => {
                        return Err(McpError::Startup {
                            server,
                            reason: format!("initialize failed at {url}: {e}"),
                            stderr_tail: String::new(),
                        });
                    }
                    Err(_) => {
                        return Err(McpError::Startup {
                            server,
                            reason: no_answer(launch.config.startup_timeout()),
                            stderr_tail: String::new(),
                        });
                    }
                }
            }
        };
        let capabilities = service
            .peer()
            .peer_info()
            .map(|info| info.capabilities.clone());
        let connection = Self {
            server,
            transport: launch.config.transport_name(),
            peer: service.peer().clone(),
            pid: process.as_ref().map(StdioProcess::pid),
            service: tokio::sync::Mutex::new(Some(service)),
            process: tokio::sync::Mutex::new(process),
            tools_changed,
            tools: RwLock::new(Arc::from(Vec::new())),
            tool_timeout: launch.config.tool_timeout(),
            request_timeout: launch.config.startup_timeout(),
            cancellations_sent: AtomicU64::new(0),
            calls_in_flight: tokio::sync::watch::Sender::new(0),
            has_resources: capabilities.as_ref().is_some_and(|c| c.resources.is_some()),
            has_prompts: capabilities.as_ref().is_some_and(|c| c.prompts.is_some()),
        };
        if capabilities.as_ref().is_none_or(|c| c.tools.is_some()) {
            let listed = match tokio::time::timeout_at(deadline, connection.list_tools()).await {
                Ok(listed) => listed,
                Err(_) => Err(McpError::RequestTimeout {
                    server: connection.server.clone(),
                    method: "tools/list",
                    timeout: launch.config.startup_timeout(),
                }),
            };
            if let Err(e) = listed {
                let stderr_tail = connection.shutdown().await;
                return Err(McpError::Startup {
                    server: connection.server.clone(),
                    reason: e.to_string(),
                    stderr_tail,
                });
            }
        }
        Ok(connection)
    }

    pub fn server(&self) -> &str {
        &self.server
    }

    /// `stdio` or `http`.
    pub fn transport(&self) -> &'static str {
        self.transport
    }

    /// The stdio server's process id (its process group's id too).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The tools as last listed.
    pub fn tools(&self) -> Arc<[McpToolInfo]> {
        match self.tools.read() {
            Ok(tools) => Arc::clone(&tools),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// True once the server sent `notifications/tools/list_changed` since the tools were last
    /// listed: the session refreshes them ([`Self::refresh_tools`]) at its next step.
    pub fn tools_changed(&self) -> bool {
        self.tools_changed.is_raised()
    }

    /// Resolves when [`Self::tools_changed`] becomes true.
    pub async fn tools_changed_signal(&self) {
        self.tools_changed.raised().await;
    }

    /// Lists the tools again and lowers the changed flag.
    pub async fn refresh_tools(&self) -> Result<Arc<[McpToolInfo]>, McpError> {
        self.bounded("tools/list", self.list_tools()).await??;
        Ok(self.tools())
    }

    async fn list_tools(&self) -> Result<(), McpError> {
        // Lowered before listing, so a change announced during the listing is not lost.
        self.tools_changed.take();
        let listed = self
            .peer
            .list_all_tools()
            .await
            .map_err(|e| self.request_error("tools/list", e))?;
        let tools: Vec<McpToolInfo> = listed
            .iter()
            .filter_map(|tool| {
                McpToolInfo::from_wire(&self.server, &serde_json::to_value(tool).ok()?)
            })
            .collect();
        match self.tools.write() {
            Ok(mut slot) => *slot = Arc::from(tools),
            Err(poisoned) => *poisoned.into_inner() = Arc::from(tools),
        }
        Ok(())
    }

    /// Whether the server declared resources / prompts in `initialize`.
    pub fn has_resources(&self) -> bool {
        self.has_resources
    }

    pub fn has_prompts(&self) -> bool {
        self.has_prompts
    }

    /// `resources/list` (every page); empty when the server has no resources.
    pub async fn list_resources(&self) -> Result<Vec<McpResource>, McpError> {
        if !self.has_resources {
            return Ok(Vec::new());
        }
        let listed = self
            .bounded("resources/list", self.peer.list_all_resources())
            .await?
            .map_err(|e| self.request_error("resources/list", e))?;
        Ok(listed
            .iter()
            .filter_map(|r| McpResource::from_wire(&serde_json::to_value(r).ok()?))
            .collect())
    }

    /// `prompts/list` (every page); empty when the server has no prompts.
    pub async fn list_prompts(&self) -> Result<Vec<McpPrompt>, McpError> {
        if !self.has_prompts {
            return Ok(Vec::new());
        }
        let listed = self
            .bounded("prompts/list", self.peer.list_all_prompts())
            .await?
            .map_err(|e| self.request_error("prompts/list", e))?;
        Ok(listed
            .iter()
            .filter_map(|p| McpPrompt::from_wire(&serde_json::to_value(p).ok()?))
            .collect())
    }

    /// `resources/read`: the resource's contents, as [`McpContent::Resource`] parts.
    pub async fn read_resource(&self, uri: &str) -> Result<McpCallResult, McpError> {
        let result = self
            .bounded(
                "resources/read",
                self.peer.read_resource(ReadResourceRequestParams::new(uri)),
            )
            .await?
            .map_err(|e| self.request_error("resources/read", e))?;
        let wire = serde_json::to_value(&result).unwrap_or(Value::Null);
        let content = wire
            .get("contents")
            .and_then(Value::as_array)
            .map(|contents| {
                contents
                    .iter()
                    .map(|c| {
                        let text =
                            |key: &str| c.get(key).and_then(Value::as_str).map(str::to_owned);
                        McpContent::Resource {
                            uri: text("uri").unwrap_or_default(),
                            mime_type: text("mimeType"),
                            text: text("text"),
                            blob: text("blob"),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(McpCallResult {
            content,
            structured: None,
            is_error: false,
        })
    }

    /// `tools/call` with the tool timeout. When the timeout passes or `cancel` fires first,
    /// `notifications/cancelled` is sent for the request and the call ends at once.
    pub async fn call_tool(
        &self,
        tool: &str,
        arguments: Value,
        cancel: &CancellationToken,
    ) -> Result<McpCallResult, McpError> {
        let arguments = match arguments {
            Value::Object(map) => Some(map),
            Value::Null => None,
            _ => {
                return Err(McpError::InvalidArguments {
                    server: self.server.clone(),
                    tool: tool.to_owned(),
                });
            }
        };
        if cancel.is_cancelled() {
            return Err(self.cancelled(tool));
        }
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = self
            .peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.call_error(tool, e))?;
        let id = handle.id.clone();
        let _in_flight = InFlight::enter(&self.calls_in_flight);
        tokio::select! {
            biased;
            () = cancel.cancelled() => {
                self.send_cancel(id, "interrupted by the user").await;
                Err(self.cancelled(tool))
            }
            response = handle.await_response() => match response {
                Ok(result) => Ok(McpCallResult::from_wire(
                    &serde_json::to_value(&result).unwrap_or(Value::Null),
                )),
                Err(e) => Err(self.call_error(tool, e)),
            },
            () = tokio::time::sleep(self.tool_timeout) => {
                self.send_cancel(id, "timed out").await;
                Err(McpError::CallTimeout {
                    server: self.server.clone(),
                    tool: tool.to_owned(),
                    timeout: self.tool_timeout,
                })
            }
        }
    }

    /// How many `notifications/cancelled` this connection has handed to its transport.
    pub fn cancellations_sent(&self) -> u64 {
        self.cancellations_sent.load(Ordering::SeqCst)
    }

    /// How many tool calls have been sent and not yet ended (for progress displays, and for
    /// tests that must act while a call runs).
    pub fn calls_in_flight(&self) -> tokio::sync::watch::Receiver<usize> {
        self.calls_in_flight.subscribe()
    }

    /// True once the session ended (shut down, or the server went away).
    pub fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }

    /// Ends the session and, for stdio, the server's whole process group (reaped). Returns the
    /// server's stderr tail. Calling it again does nothing.
    pub async fn shutdown(&self) -> String {
        if let Some(mut service) = self.service.lock().await.take() {
            // Closing the transport closes the server's stdin: the polite way to stop it.
            let _ = service.close_with_timeout(CLOSE_CEILING).await;
        }
        match self.process.lock().await.take() {
            Some(process) => process.terminate(true).await,
            None => String::new(),
        }
    }

    async fn send_cancel(&self, id: RequestId, reason: &str) {
        let notification = CancelledNotification::new(CancelledNotificationParam::new(
            Some(id),
            Some(reason.into()),
        ));
        match tokio::time::timeout(
            CANCEL_SEND_CEILING,
            self.peer.send_notification(notification.into()),
        )
        .await
        {
            Ok(Ok(())) => {
                self.cancellations_sent.fetch_add(1, Ordering::SeqCst);
            }
            Ok(Err(e)) => {
                tracing::debug!(server = %self.server, error = %e, "cancellation not sent")
            }
            Err(_) => tracing::debug!(server = %self.server, "cancellation not sent in time"),
        }
    }

    async fn bounded<T>(
        &self,
        method: &'static str,
        request: impl Future<Output = T>,
    ) -> Result<T, McpError> {
        tokio::time::timeout(self.request_timeout, request)
            .await
            .map_err(|_| McpError::RequestTimeout {
                server: self.server.clone(),
                method,
                timeout: self.request_timeout,
            })
    }

    fn cancelled(&self, tool: &str) -> McpError {
        McpError::Cancelled {
            server: self.server.clone(),
            tool: tool.to_owned(),
        }
    }

    fn request_error(&self, method: &'static str, error: ServiceError) -> McpError {
        match error {
            ServiceError::TransportClosed => McpError::Closed {
                server: self.server.clone(),
            },
            other => McpError::Request {
                server: self.server.clone(),
                method,
                detail: other.to_string(),
            },
        }
    }

    fn call_error(&self, tool: &str, error: ServiceError) -> McpError {
        match error {
            ServiceError::TransportClosed => McpError::Closed {
                server: self.server.clone(),
            },
            ServiceError::McpError(data) => McpError::Call {
                server: self.server.clone(),
                tool: tool.to_owned(),
                detail: data.message.to_string(),
            },
            other => McpError::Call {
                server: self.server.clone(),
                tool: tool.to_owned(),
                detail: other.to_string(),
            },
        }
    }
}

/// Counts a call in flight from its send to its end, however it ends.
struct InFlight<'a>(&'a tokio::sync::watch::Sender<usize>);

impl<'a> InFlight<'a> {
    fn enter(counter: &'a tokio::sync::watch::Sender<usize>) -> Self {
        counter.send_modify(|n| *n += 1);
        Self(counter)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

fn no_answer(timeout: Duration) -> String {
    format!(
        "no answer to initialize within {}s (startup_timeout_ms)",
        timeout.as_secs_f64()
    )
}
