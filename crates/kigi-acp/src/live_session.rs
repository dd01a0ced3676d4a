//! One ACP session while it runs: a driver task that owns the hosted session, reads its one
//! event stream, sends what the editor sees, runs prompts one after another, and answers
//! each prompt once the updates of its turn have gone out.
//!
//! The rule: a prompt's answer is sent after every update of its turn. The host pushes a
//! turn's events before it reports the turn's end, so the driver drains the stream when the
//! turn ends and only then answers.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use agent_client_protocol::v1::schema::{
    PromptResponse, SessionId, SessionNotification, SessionUpdate, StopReason, ToolCallId,
    ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, UntypedMessage};
use kigi_core::host::{HostedSession, SessionControl};
use kigi_core::{TurnError, TurnSummary};
use kigi_protocol::{ApprovalAnswer, HostCommand, HostEvent, MAIN_AGENT_ID};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::extension_methods::SUBAGENT_UPDATE_METHOD;
use crate::permission::{approval_answer, permission_request};
use crate::turn_outcome::stop_reason;
use crate::update_translation::{ApprovalAsk, Outgoing, UpdateTranslator};

/// A prompt waiting for its turn.
pub(crate) struct PromptOrder {
    pub text: String,
    pub responder: Responder<PromptResponse>,
}

type TurnFuture = Pin<Box<dyn Future<Output = Result<TurnSummary, TurnError>> + Send>>;

/// The turn running now, and who waits for its end.
struct Turn {
    outcome: TurnFuture,
    responder: Responder<PromptResponse>,
}

/// Sends one session's messages to the editor.
#[derive(Clone)]
pub(crate) struct Outbox {
    pub connection: ConnectionTo<Client>,
    pub session_id: String,
    pub control: SessionControl,
}

/// Runs the session until it shuts down or the connection ends (which drops this future,
/// and with it the session).
pub(crate) async fn drive(
    mut hosted: HostedSession,
    mut prompts: mpsc::UnboundedReceiver<PromptOrder>,
    outbox: Outbox,
    cwd: PathBuf,
) -> Result<(), agent_client_protocol::Error> {
    let mut events = hosted.take_events();
    let mut translator = UpdateTranslator::new(cwd);
    let mut turn: Option<Turn> = None;
    loop {
        tokio::select! {
            biased;
            event = events.next() => match event {
                Some(event) => outbox.forward(&mut translator, &event),
                None => break,
            },
            outcome = running(&mut turn) => {
                for event in events.drain() {
                    outbox.forward(&mut translator, &event);
                }
                if let Some(done) = turn.take() {
                    answer(done.responder, stop_reason(&outcome));
                }
            }
            order = prompts.recv(), if turn.is_none() => match order {
                Some(order) => {
                    let control = outbox.control.clone();
                    turn = Some(Turn {
                        outcome: Box::pin(async move { control.run_turn(&order.text).await }),
                        responder: order.responder,
                    });
                }
                None => break,
            },
        }
    }
    // The session ended under a running turn: it ended as cancelled.
    if let Some(done) = turn.take() {
        answer(done.responder, Ok(StopReason::Cancelled));
    }
    while let Ok(order) = prompts.try_recv() {
        answer(order.responder, Ok(StopReason::Cancelled));
    }
    drop(hosted.shutdown().await);
    Ok(())
}

/// The end of the running turn; never, when none runs.
async fn running(turn: &mut Option<Turn>) -> Result<TurnSummary, TurnError> {
    match turn {
        Some(turn) => turn.outcome.as_mut().await,
        None => std::future::pending().await,
    }
}

fn answer(
    responder: Responder<PromptResponse>,
    outcome: Result<StopReason, agent_client_protocol::Error>,
) {
    if let Err(error) = responder.respond_with_result(outcome.map(PromptResponse::new)) {
        tracing::debug!(%error, "session/prompt answer not sent");
    }
}

impl Outbox {
    /// Sends what `event` shows the editor.
    pub(crate) fn forward(&self, translator: &mut UpdateTranslator, event: &HostEvent) {
        for outgoing in translator.translate(event) {
            match outgoing {
                Outgoing::Update(update) => self.update(update),
                Outgoing::Extension(params) => self.extension(params),
                Outgoing::Approval(ask) => self.ask(ask),
            }
        }
    }

    /// Sends one `session/update`.
    pub(crate) fn update(&self, update: SessionUpdate) {
        let notification =
            SessionNotification::new(SessionId::new(self.session_id.as_str()), update);
        if let Err(error) = self.connection.send_notification(notification) {
            tracing::debug!(%error, "session/update not sent");
        }
    }

    fn extension(&self, mut params: Value) {
        if let Some(object) = params.as_object_mut() {
            object.insert("sessionId".into(), Value::String(self.session_id.clone()));
        }
        let sent = UntypedMessage::new(SUBAGENT_UPDATE_METHOD, params)
            .and_then(|message| self.connection.send_notification(message));
        if let Err(error) = sent {
            tracing::debug!(%error, "{SUBAGENT_UPDATE_METHOD} not sent");
        }
    }

    /// Asks the editor, off the driver (the person may take their time), and passes the
    /// answer to the host. An allowed call of the main agent is shown running first, so its
    /// result can never arrive before that.
    fn ask(&self, ask: ApprovalAsk) {
        let request = permission_request(&self.session_id, &ask);
        let outbox = self.clone();
        let spawned = self.connection.spawn(async move {
            let response = outbox.connection.send_request(request).block_task().await;
            let answer = approval_answer(response);
            let allowed = matches!(
                answer,
                ApprovalAnswer::AllowOnce | ApprovalAnswer::AllowForSession
            );
            if allowed && ask.agent_id == MAIN_AGENT_ID {
                outbox.update(SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                    ToolCallId::new(ask.call_id.as_str()),
                    ToolCallUpdateFields::new().status(ToolCallStatus::InProgress),
                )));
            }
            let command = HostCommand::Approval {
                request_id: ask.request_id.clone(),
                answer,
            };
            // An ask whose turn ended meanwhile is no longer waiting: nothing to do.
            if let Err(error) = outbox.control.submit(command) {
                tracing::debug!(%error, request = ask.request_id, "approval answer not taken");
            }
            Ok(())
        });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot ask the editor for permission");
        }
    }
}
