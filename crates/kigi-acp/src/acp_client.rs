//! kigi as an ACP client, for `kind = "acp"` executors: one connection per child turn over
//! the agent's stdin and stdout (kigi-core started the process), `initialize`,
//! `session/new` in the child's cwd, one `session/prompt`, and the agent's updates as
//! [`EngineEvent`]s for the child's transcript.
//!
//! The rule: handlers never wait inside the SDK's dispatch loop (a permission ask runs in its
//! own task, so `session/update` and the prompt's answer keep flowing), and nothing is
//! allowed that a person did not allow (see `client_permission`); `fs/*` stays inside the
//! child's cwd (see `client_files`).

use std::path::PathBuf;
use std::sync::Arc;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CancelNotification, ClientCapabilities, ContentBlock, FileSystemCapabilities,
    InitializeRequest, Meta, NewSessionRequest, PromptRequest, ReadTextFileRequest,
    ReadTextFileResponse, RequestPermissionRequest, SessionId, SessionNotification, SessionUpdate,
    StopReason, TextContent, WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::{Agent, Client, Lines};
use kigi_core::executor::{
    AcpDriver, AcpFuture, AcpOutcome, AcpPipes, AcpTurn, EngineEvent, next_line,
};
use serde_json::json;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::client_files::{read_text, write_text};
use crate::client_permission::{approval_request, permission_response};
use crate::engine_updates::EngineUpdates;
use crate::rpc_error::invalid_params;

/// The `session/new` `_meta` key that carries the profile as the system prompt.
pub const SYSTEM_PROMPT_OVERRIDE_KEY: &str = "systemPromptOverride";

/// The ACP client the session host runs `kind = "acp"` executors through.
#[derive(Debug, Default, Clone, Copy)]
pub struct AcpClient;

impl AcpDriver for AcpClient {
    fn run<'a>(
        &'a self,
        turn: AcpTurn,
        pipes: AcpPipes,
        on_event: &'a mut (dyn FnMut(EngineEvent) + Send),
    ) -> AcpFuture<'a> {
        Box::pin(run_turn(turn, pipes, on_event))
    }
}

/// The agent's pipes as the SDK's line transport; each incoming line is capped
/// (`executor::LINE_CAP`), a longer one skipped.
fn transport(
    pipes: AcpPipes,
) -> Lines<
    impl futures::Sink<String, Error = std::io::Error> + Send + 'static,
    impl futures::Stream<Item = std::io::Result<String>> + Send + 'static,
> {
    let incoming = Box::pin(futures::stream::unfold(
        BufReader::new(pipes.stdout),
        async |mut reader| next_line(&mut reader).await.map(|line| (Ok(line), reader)),
    ));
    let outgoing = Box::pin(futures::sink::unfold(
        pipes.stdin,
        async |mut writer, line: String| {
            writer.write_all(line.as_bytes()).await?;
            writer.write_all(b"\n").await?;
            writer.flush().await?;
            Ok::<_, std::io::Error>(writer)
        },
    ));
    Lines::new(outgoing, incoming)
}

async fn run_turn(
    turn: AcpTurn,
    pipes: AcpPipes,
    on_event: &mut (dyn FnMut(EngineEvent) + Send),
) -> AcpOutcome {
    let AcpTurn {
        executor,
        cwd,
        prompt,
        system_prompt_override,
        approver,
        cancel,
    } = turn;
    // Asks still waiting when the turn ends are withdrawn with it.
    let asks = cancel.child_token();
    let _withdraw = asks.clone().drop_guard();
    let (updates_tx, updates) = mpsc::unbounded_channel::<SessionUpdate>();
    let files_cwd: Arc<PathBuf> = Arc::new(cwd.clone());
    let write_cwd = Arc::clone(&files_cwd);
    let connected = Client
        .v1()
        .name("kigi")
        .on_receive_notification(
            async move |notification: SessionNotification, _cx| {
                // The receiver lives as long as the turn; after it, updates have no reader.
                let _ = updates_tx.send(notification.update);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: RequestPermissionRequest, responder, _cx| {
                let approver = approver.clone();
                let executor = executor.clone();
                let asks = asks.clone();
                tokio::spawn(async move {
                    let verdict = match &approver {
                        Some(approver) => Some(
                            approver
                                .ask(approval_request(&executor, &request), asks.child_token())
                                .await,
                        ),
                        None => None,
                    };
                    let _ =
                        responder.respond(permission_response(verdict.as_ref(), &request.options));
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ReadTextFileRequest, responder, _cx| {
                let cwd = Arc::clone(&files_cwd);
                tokio::spawn(async move {
                    let read = read_text(&cwd, &request.path, request.line, request.limit).await;
                    let _ = match read {
                        Ok(text) => responder.respond(ReadTextFileResponse::new(text)),
                        Err(refusal) => {
                            responder.respond_with_error(invalid_params(refusal.to_string()))
                        }
                    };
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: WriteTextFileRequest, responder, _cx| {
                let cwd = Arc::clone(&write_cwd);
                tokio::spawn(async move {
                    let _ = match write_text(&cwd, &request.path, &request.content).await {
                        Ok(()) => responder.respond(WriteTextFileResponse::new()),
                        Err(refusal) => {
                            responder.respond_with_error(invalid_params(refusal.to_string()))
                        }
                    };
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(transport(pipes), async |connection: ConnectionTo<Agent>| {
            Ok(converse(
                &connection,
                cwd,
                prompt,
                system_prompt_override,
                &cancel,
                updates,
                on_event,
            )
            .await)
        })
        .await;
    match connected {
        Ok(outcome) => outcome,
        Err(error) => AcpOutcome::Failed(format!("the ACP connection failed: {}", error.message)),
    }
}

/// Runs `fut` unless `cancel` fires first.
async fn unless_cancelled<T>(
    cancel: &CancellationToken,
    fut: impl Future<Output = Result<T, agent_client_protocol::Error>>,
) -> Result<T, AcpOutcome> {
    tokio::select! {
        result = fut => result.map_err(|error| AcpOutcome::Failed(error.message)),
        () = cancel.cancelled() => Err(AcpOutcome::Cancelled),
    }
}

/// `initialize`, `session/new`, the prompt and its updates.
async fn converse(
    connection: &ConnectionTo<Agent>,
    cwd: PathBuf,
    prompt: String,
    system_prompt_override: Option<String>,
    cancel: &CancellationToken,
    mut updates: mpsc::UnboundedReceiver<SessionUpdate>,
    on_event: &mut (dyn FnMut(EngineEvent) + Send),
) -> AcpOutcome {
    let capabilities = ClientCapabilities::new().fs(FileSystemCapabilities::new()
        .read_text_file(true)
        .write_text_file(true));
    let initialize = InitializeRequest::new(ProtocolVersion::V1).client_capabilities(capabilities);
    if let Err(outcome) =
        unless_cancelled(cancel, connection.send_request(initialize).block_task()).await
    {
        return named(outcome, "initialize");
    }
    let new_session = new_session_request(cwd, system_prompt_override);
    let session_id: SessionId =
        match unless_cancelled(cancel, connection.send_request(new_session).block_task()).await {
            Ok(response) => response.session_id,
            Err(outcome) => return named(outcome, "session/new"),
        };
    let request = PromptRequest::new(
        session_id.clone(),
        vec![ContentBlock::Text(TextContent::new(prompt))],
    );
    let answer = connection.send_request(request).block_task();
    tokio::pin!(answer);
    let mut reading = EngineUpdates::default();
    let mut cancelled = false;
    loop {
        tokio::select! {
            biased;
            Some(update) = updates.recv() => {
                for event in reading.update(update) {
                    on_event(event);
                }
            }
            answered = &mut answer => {
                // Updates sent before the answer are all queued by now: record them first.
                while let Ok(update) = updates.try_recv() {
                    for event in reading.update(update) {
                        on_event(event);
                    }
                }
                return match answered {
                    Ok(response) if response.stop_reason == StopReason::Cancelled || cancelled => {
                        AcpOutcome::Cancelled
                    }
                    Ok(response) => {
                        for event in reading.finish(response.stop_reason) {
                            on_event(event);
                        }
                        AcpOutcome::Stopped
                    }
                    Err(_) if cancelled => AcpOutcome::Cancelled,
                    Err(error) => AcpOutcome::Failed(format!("session/prompt: {}", error.message)),
                };
            }
            () = cancel.cancelled(), if !cancelled => {
                cancelled = true;
                // The agent answers the prompt with `cancelled`; kigi-core bounds the wait.
                let _ = connection.send_notification(CancelNotification::new(session_id.clone()));
            }
        }
    }
}

/// `session/new` in `cwd`, with the profile as `_meta.systemPromptOverride` when it goes
/// there (no MCP servers: the agent's own configuration applies).
fn new_session_request(cwd: PathBuf, system_prompt_override: Option<String>) -> NewSessionRequest {
    let request = NewSessionRequest::new(cwd);
    match system_prompt_override {
        Some(profile) => {
            let mut meta = Meta::new();
            meta.insert(SYSTEM_PROMPT_OVERRIDE_KEY.into(), json!(profile));
            request.meta(meta)
        }
        None => request,
    }
}

/// `outcome` with the step it failed at.
fn named(outcome: AcpOutcome, step: &str) -> AcpOutcome {
    match outcome {
        AcpOutcome::Failed(reason) => AcpOutcome::Failed(format!("{step}: {reason}")),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_override_travels_in_session_new_meta_only_when_opted_in() {
        let with = serde_json::to_value(new_session_request(
            PathBuf::from("/w"),
            Some("Be terse.".into()),
        ))
        .unwrap();
        assert_eq!(
            with,
            json!({"cwd": "/w", "mcpServers": [], "_meta": {"systemPromptOverride": "Be terse."}})
        );
        let without = serde_json::to_value(new_session_request(PathBuf::from("/w"), None)).unwrap();
        assert_eq!(without, json!({"cwd": "/w", "mcpServers": []}));
    }
}
