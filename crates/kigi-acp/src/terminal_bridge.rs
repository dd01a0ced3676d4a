//! Commands in the editor's terminal: an [`EditorTerminal`] over the ACP connection
//! (`terminal/create`, `wait_for_exit`, `output`, `kill`, `release`), the terminal shown in
//! its tool call while it runs and after.
//!
//! The rule: kigi's sandbox is not escaped through the editor. Only `run_terminal_cmd` of a
//! context whose sandbox is `danger-full-access` reaches this (the tool checks it where the
//! command runs); a confined session's commands run in kigi as always. Every request to the
//! editor has a ceiling, and the terminal is released however the command ends.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, KillTerminalRequest, ReleaseTerminalRequest, SessionId,
    SessionNotification, SessionUpdate, Terminal, TerminalId, TerminalOutputRequest,
    ToolCallContent, ToolCallId, ToolCallUpdate, ToolCallUpdateFields, WaitForTerminalExitRequest,
};
use kigi_tools::shell::Ending;
use kigi_tools::{EditorFileError, EditorFuture, EditorTerminal, TerminalCommand, TerminalRun};

/// The longest kigi waits for the editor to answer one terminal request (the command's own
/// run is bounded by its timeout instead).
const EDITOR_ANSWER_CEILING: Duration = Duration::from_secs(30);

/// Which terminal each tool call ran in, so the call's final update keeps showing it.
#[derive(Debug, Clone, Default)]
pub(crate) struct TerminalLinks(Arc<Mutex<HashMap<String, String>>>);

impl TerminalLinks {
    fn link(&self, call_id: &str, terminal_id: &str) {
        crate::acp_agent::lock(&self.0).insert(call_id.to_owned(), terminal_id.to_owned());
    }

    /// The terminal `call_id` ran in, once (its call has ended).
    pub(crate) fn take(&self, call_id: &str) -> Option<String> {
        crate::acp_agent::lock(&self.0).remove(call_id)
    }
}

/// The editor's terminal for one ACP session.
pub(crate) struct TerminalBridge {
    connection: ConnectionTo<Client>,
    /// Set once the host has named the session (before its first turn).
    session_id: Arc<OnceLock<String>>,
    links: TerminalLinks,
}

impl std::fmt::Debug for TerminalBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminalBridge")
            .field("session_id", &self.session_id.get())
            .finish_non_exhaustive()
    }
}

impl TerminalBridge {
    pub(crate) fn new(
        connection: ConnectionTo<Client>,
        session_id: Arc<OnceLock<String>>,
        links: TerminalLinks,
    ) -> Self {
        Self {
            connection,
            session_id,
            links,
        }
    }

    fn session(&self) -> Result<SessionId, EditorFileError> {
        self.session_id
            .get()
            .map(|id| SessionId::new(id.as_str()))
            .ok_or_else(|| EditorFileError::new("the session has no id yet"))
    }

    /// Shows `terminal` in the tool call `call_id`, live.
    fn show(&self, session: &SessionId, call_id: &str, terminal: &TerminalId) {
        let update = ToolCallUpdate::new(
            ToolCallId::new(call_id),
            ToolCallUpdateFields::new().content(vec![ToolCallContent::Terminal(Terminal::new(
                terminal.clone(),
            ))]),
        );
        let notification =
            SessionNotification::new(session.clone(), SessionUpdate::ToolCallUpdate(update));
        if let Err(error) = self.connection.send_notification(notification) {
            tracing::debug!(%error, "terminal not shown in its tool call");
        }
    }

    /// Kills, reads and releases a terminal whose command has ended (or must end).
    async fn finish(
        &self,
        session: &SessionId,
        terminal: &TerminalId,
        kill: bool,
    ) -> Result<String, EditorFileError> {
        if kill {
            let request = KillTerminalRequest::new(session.clone(), terminal.clone());
            if let Err(error) = answered(self.connection.send_request(request).block_task()).await {
                tracing::debug!(%error, "terminal/kill");
            }
        }
        let request = TerminalOutputRequest::new(session.clone(), terminal.clone());
        let output = answered(self.connection.send_request(request).block_task()).await;
        let release = ReleaseTerminalRequest::new(session.clone(), terminal.clone());
        if let Err(error) = answered(self.connection.send_request(release).block_task()).await {
            tracing::debug!(%error, "terminal/release");
        }
        let output = output?;
        Ok(if output.truncated {
            format!(
                "[… earlier output dropped by the editor …]\n{}",
                output.output
            )
        } else {
            output.output
        })
    }
}

/// An editor's answer within [`EDITOR_ANSWER_CEILING`].
async fn answered<T>(
    request: impl Future<Output = Result<T, agent_client_protocol::Error>>,
) -> Result<T, EditorFileError> {
    match tokio::time::timeout(EDITOR_ANSWER_CEILING, request).await {
        Ok(answer) => answer.map_err(|e| EditorFileError::new(e.message)),
        Err(_) => Err(EditorFileError::new(format!(
            "no answer within {}s",
            EDITOR_ANSWER_CEILING.as_secs()
        ))),
    }
}

impl EditorTerminal for TerminalBridge {
    fn run<'a>(&'a self, command: TerminalCommand<'a>) -> EditorFuture<'a, TerminalRun> {
        Box::pin(async move {
            let session = self.session()?;
            let create = CreateTerminalRequest::new(session.clone(), "sh")
                .args(vec!["-c".to_owned(), command.line.to_owned()])
                .cwd(command.cwd.to_path_buf())
                .output_byte_limit(u64::try_from(command.output_limit).unwrap_or(u64::MAX));
            let terminal = answered(self.connection.send_request(create).block_task())
                .await?
                .terminal_id;
            // Killed and released even when this future is dropped (a cancelled turn).
            let mut guard = ReleaseOnDrop {
                connection: self.connection.clone(),
                session: session.clone(),
                terminal: Some(terminal.clone()),
            };
            if let Some(call_id) = command.call_id {
                self.links.link(call_id, &terminal.0);
                self.show(&session, call_id, &terminal);
            }
            let wait = WaitForTerminalExitRequest::new(session.clone(), terminal.clone());
            let exit = self.connection.send_request(wait).block_task();
            let ending = tokio::select! {
                exit = exit => match exit {
                    Ok(exit) => exit
                        .exit_status
                        .exit_code
                        .and_then(|code| i32::try_from(code).ok())
                        .map_or(Ending::Signalled, Ending::Exited),
                    Err(error) => return Err(EditorFileError::new(error.message)),
                },
                () = tokio::time::sleep(command.timeout) => Ending::TimedOut(command.timeout),
                // The guard kills and releases it; nobody reads the output of a cancelled call.
                () = command.cancel.cancelled() => {
                    return Ok(TerminalRun { output: String::new(), ending: Ending::Cancelled });
                }
            };
            let killed = matches!(ending, Ending::TimedOut(_));
            let output = self.finish(&session, &terminal, killed).await?;
            // Read and released: only now may the guard stand down (a cancel during `finish`
            // still releases the terminal).
            guard.terminal = None;
            Ok(TerminalRun { output, ending })
        })
    }
}

/// Kills and releases a terminal whose command was left running (an error, a cancel, a
/// dropped call), off the caller, with the same ceilings.
struct ReleaseOnDrop {
    connection: ConnectionTo<Client>,
    session: SessionId,
    /// `None` once the command has ended and is read and released normally.
    terminal: Option<TerminalId>,
}

impl Drop for ReleaseOnDrop {
    fn drop(&mut self) {
        let Some(terminal) = self.terminal.take() else {
            return;
        };
        let (connection, session) = (self.connection.clone(), self.session.clone());
        let spawned = connection.clone().spawn(async move {
            let kill = KillTerminalRequest::new(session.clone(), terminal.clone());
            if let Err(error) = answered(connection.send_request(kill).block_task()).await {
                tracing::debug!(%error, "terminal/kill");
            }
            let release = ReleaseTerminalRequest::new(session, terminal);
            if let Err(error) = answered(connection.send_request(release).block_task()).await {
                tracing::debug!(%error, "terminal/release");
            }
            Ok(())
        });
        if let Err(error) = spawned {
            tracing::debug!(%error, "terminal left to the editor");
        }
    }
}
