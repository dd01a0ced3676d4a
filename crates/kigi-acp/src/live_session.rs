//! One ACP session while it runs: a driver task that owns the hosted session, reads its one
//! event stream, sends what the editor sees, runs prompts one after another, and answers
//! each prompt once the updates of its turn have gone out.
//!
//! The rule: a prompt's answer is sent after every update of its turn. The host pushes a
//! turn's events before it reports the turn's end, so the driver drains the stream when the
//! turn ends and only then answers.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    ConfigOptionUpdate, ContentBlock, ContentChunk, PromptResponse, SessionId, SessionNotification,
    SessionUpdate, StopReason, TextContent, ToolCallId, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, UntypedMessage};
use kigi_core::host::{HostedSession, SessionControl};
use kigi_core::{TurnError, TurnSummary};
use kigi_protocol::{
    ApprovalAnswer, HostCommand, HostEvent, HostEventBody, HostNotice, MAIN_AGENT_ID,
};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::extension_methods::SUBAGENT_UPDATE_METHOD;
use crate::model_menu::ModelMenu;
use crate::permission::{approval_answer, permission_request};
use crate::prompt_input::PromptInput;
use crate::rpc_error::{host_error, invalid_params};
use crate::slash_commands;
use crate::turn_outcome::stop_reason;
use crate::update_translation::{ApprovalAsk, Outgoing, UpdateTranslator};

/// A prompt waiting for its turn.
pub(crate) struct PromptOrder {
    pub input: PromptInput,
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
    /// The model choices, for the `config_option_update` a model change sends.
    pub models: Arc<ModelMenu>,
}

/// Runs the session until it shuts down or the connection ends (which drops this future,
/// and with it the session).
pub(crate) async fn drive(
    mut hosted: HostedSession,
    mut prompts: mpsc::UnboundedReceiver<PromptOrder>,
    outbox: Outbox,
    mut translator: UpdateTranslator,
) -> Result<(), agent_client_protocol::Error> {
    let mut events = hosted.take_events();
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
                Some(order) => match begin(&outbox, order) {
                    Begun::Turn(started) => turn = Some(started),
                    Begun::Answered(responder, outcome) => {
                        // What its commands caused (`model_changed`) goes out first.
                        for event in events.drain() {
                            outbox.forward(&mut translator, &event);
                        }
                        answer(responder, outcome);
                    }
                },
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

/// What taking a prompt came to.
enum Begun {
    Turn(Turn),
    /// No turn runs (a command alone, or a prompt refused): the answer to send.
    Answered(
        Responder<PromptResponse>,
        Result<StopReason, agent_client_protocol::Error>,
    ),
}

/// Takes one prompt: a turn that runs, or the answer it gets at once.
fn begin(outbox: &Outbox, order: PromptOrder) -> Begun {
    let PromptOrder { input, responder } = order;
    match start(outbox, input) {
        Ok(Some(outcome)) => Begun::Turn(Turn { outcome, responder }),
        Ok(None) => Begun::Answered(responder, Ok(StopReason::EndTurn)),
        Err(error) => Begun::Answered(responder, Err(error)),
    }
}

/// Starts what a prompt asks: its slash command's host commands, then its turn, if any. A
/// bad attachment or command is this prompt's error; the session carries on.
fn start(
    outbox: &Outbox,
    input: PromptInput,
) -> Result<Option<TurnFuture>, agent_client_protocol::Error> {
    let plan = slash_commands::plan(input).map_err(invalid_params)?;
    for command in plan.commands {
        outbox.control.submit(command).map_err(|e| host_error(&e))?;
    }
    let Some(PromptInput { text, attachments }) = plan.turn else {
        if let Some(note) = plan.note {
            outbox.update(SessionUpdate::AgentMessageChunk(ContentChunk::new(
                ContentBlock::Text(TextContent::new(note)),
            )));
        }
        return Ok(None);
    };
    let outcome = outbox
        .control
        .start_turn(text, &attachments)
        .map_err(|e| host_error(&e))?;
    Ok(Some(Box::pin(outcome)))
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
        if event.is_main()
            && let HostEventBody::Notice(HostNotice::ModelChanged { .. }) = &event.body
        {
            self.update(SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(
                self.models.options(&self.control.model()),
            )));
        }
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
