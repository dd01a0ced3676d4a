//! A running session: a runner task that owns the [`Session`] and runs its turns one after
//! another, a [`SessionControl`] any number of front-end tasks use to send commands, and the
//! [`EventStream`] one of them reads.
//!
//! The rules: commands never wait for the turn in flight. An interrupt cancels that turn's
//! token, a steer joins the queue the loop drains at its next step, an approval answer goes
//! to the ask that waits for it; only a user turn waits its place in line. The session ends
//! on `Shutdown`, when its [`HostedSession`] is dropped, or when the runner fails; however it
//! ends, every control then answers `SessionClosed` and the event stream ends.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kigi_model::ModelClient;
use kigi_protocol::{HostCommand, HostNotice};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::AgentEmitter;
use super::approvals::ApprovalBroker;
use super::event_stream::{EventSink, EventStream, event_channel};
use super::host_error::HostError;
use super::model_switch::{ModelResolver, ModelSwitch};
use crate::attachments::{AttachmentReader, ResolvedAttachments};
use crate::inbox::MessageQueue;
use crate::lock::lock;
use crate::session::{Session, TurnError, TurnSummary};
use crate::subagent::Coordinator;

/// How long `shutdown` waits for the runner to wind down.
const SHUTDOWN_CEILING: Duration = Duration::from_secs(10);

/// A turn waiting for the runner.
struct TurnOrder {
    text: String,
    attachments: ResolvedAttachments,
    reply: Option<oneshot::Sender<Result<TurnSummary, TurnError>>>,
}

/// What the host hands the runner and its controls.
pub(super) struct Controls {
    /// The session's token: shutdown cancels it, every turn's token descends from it.
    pub cancel: CancellationToken,
    pub steer: Arc<MessageQueue>,
    pub approvals: Option<Arc<ApprovalBroker>>,
    /// Closed when the runner ends, which ends the stream.
    pub sink: EventSink,
    /// `SessionStart`'s source: `startup` or `resume`.
    pub start_source: &'static str,
    /// The main agent's permission mode, which `SetPermissionMode` switches.
    pub mode: crate::shared_mode::SharedMode,
    /// Set by `Compact`; the session reads it at its next request.
    pub compact: Arc<std::sync::atomic::AtomicBool>,
    /// The session's children, for `KillSubagent`, `SendToSubagent` and
    /// `SetSubagentEnabled`.
    pub coordinator: Arc<Coordinator>,
    /// Reads and judges a user turn's attachments.
    pub attachments: AttachmentReader,
    /// Resolves `SetModel`'s name; the session takes the client at its next request.
    pub models: ModelResolver,
    pub model_switch: Arc<ModelSwitch>,
    /// The main agent's model now (what `SetModel` replaces).
    pub model: Mutex<ModelClient>,
    /// The main agent's notices (`model_changed`).
    pub main_events: AgentEmitter,
}

/// The turn in flight (or next), under one lock so an interrupt and the end of a turn
/// cannot cross: an interrupt never reaches a turn that had not started when it was sent.
struct Turns {
    /// The token of the turn running now, or of the next one if none runs.
    cancel: CancellationToken,
    /// Turns queued or running.
    busy: usize,
}

struct Shared {
    id: String,
    turns: Mutex<Turns>,
    closed: AtomicBool,
    controls: Controls,
}

impl Shared {
    /// Marks the session closed and cancels everything in it.
    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.controls.cancel.cancel();
    }
}

/// Sends commands to one session. Cheap to clone; usable from any task.
#[derive(Clone)]
pub struct SessionControl {
    shared: Arc<Shared>,
    /// Turns go to the runner through this; the runner also ends when every control (and so
    /// every sender) is gone.
    orders: mpsc::UnboundedSender<TurnOrder>,
}

impl std::fmt::Debug for SessionControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionControl")
            .field("session", &self.shared.id)
            .finish_non_exhaustive()
    }
}

impl SessionControl {
    pub fn session_id(&self) -> &str {
        &self.shared.id
    }

    /// Whether the session has ended (shut down, dropped, or its runner failed).
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// Takes one command; see [`HostCommand`] for what each does.
    pub fn submit(&self, command: HostCommand) -> Result<(), HostError> {
        if self.is_closed() && command != HostCommand::Shutdown {
            return Err(self.closed());
        }
        match command {
            HostCommand::UserTurn { text, attachments } => {
                let attachments = self.shared.controls.attachments.resolve(&attachments)?;
                self.queue(text, attachments, None)
            }
            HostCommand::Interrupt => {
                let turns = lock(&self.shared.turns);
                if turns.busy > 0 {
                    turns.cancel.cancel();
                }
                Ok(())
            }
            HostCommand::Steer { text } => {
                self.shared.controls.steer.push(None, text);
                Ok(())
            }
            HostCommand::Approval { request_id, answer } => match &self.shared.controls.approvals {
                Some(broker) => broker.answer(&request_id, answer),
                None => Err(HostError::UnknownApproval { request_id }),
            },
            HostCommand::SetPermissionMode { mode } => {
                let parsed = kigi_agent::PermissionMode::parse(&mode)
                    .ok_or(HostError::UnknownPermissionMode { mode })?;
                self.shared.controls.mode.set(parsed);
                Ok(())
            }
            HostCommand::SetModel { model } => {
                let controls = &self.shared.controls;
                let mut current = lock(&controls.model);
                let client = controls.models.client(&model, &current)?;
                *current = client.clone();
                controls.coordinator.set_parent_client(client.clone());
                controls.main_events.notice(HostNotice::ModelChanged {
                    model: client.endpoint().model.clone(),
                    context_window: client.endpoint().context_window,
                });
                controls.model_switch.request(client);
                Ok(())
            }
            HostCommand::SetSubagentEnabled {
                agent_type,
                enabled,
            } => {
                self.shared
                    .controls
                    .coordinator
                    .set_type_enabled(&agent_type, enabled)?;
                Ok(())
            }
            HostCommand::SetPersonaEnabled { persona, enabled } => {
                self.shared
                    .controls
                    .coordinator
                    .set_persona_enabled(&persona, enabled)?;
                Ok(())
            }
            HostCommand::Compact => {
                self.shared.controls.compact.store(true, Ordering::SeqCst);
                Ok(())
            }
            HostCommand::KillSubagent { id } => Ok(self.shared.controls.coordinator.kill(&id)?),
            HostCommand::SendToSubagent { id, text } => {
                self.shared.controls.coordinator.send(&id, &text)?;
                Ok(())
            }
            HostCommand::Shutdown => {
                self.shared.close();
                Ok(())
            }
        }
    }

    /// Runs a user turn (after any queued before it) and returns how it ended. A session that
    /// has ended, or ends first, ends it as cancelled.
    pub async fn run_turn(&self, text: &str) -> Result<TurnSummary, TurnError> {
        match self.start_turn(text.to_owned(), &[]) {
            Ok(outcome) => outcome.await,
            Err(_) => Err(TurnError::Cancelled),
        }
    }

    /// Queues a user turn with `attachments` and returns its outcome, to await. The
    /// attachments are read and judged now, so a bad one is an error (naming it) before
    /// anything is queued; a front end that answers each turn (ACP) needs both.
    pub fn start_turn(
        &self,
        text: String,
        attachments: &[kigi_protocol::Attachment],
    ) -> Result<impl Future<Output = Result<TurnSummary, TurnError>> + Send + 'static, HostError>
    {
        let attachments = self.shared.controls.attachments.resolve(attachments)?;
        let (reply, outcome) = oneshot::channel();
        self.queue(text, attachments, Some(reply))?;
        Ok(async move { outcome.await.unwrap_or(Err(TurnError::Cancelled)) })
    }

    /// The main agent's model now (`SetModel` replaces it): what a front end offers as the
    /// current choice.
    pub fn model(&self) -> kigi_model::ModelEndpoint {
        lock(&self.shared.controls.model).endpoint().clone()
    }

    /// The ids of the asks waiting for an answer now (a front end that reconnects shows
    /// them again).
    pub fn pending_approvals(&self) -> Vec<String> {
        self.shared
            .controls
            .approvals
            .as_ref()
            .map(|broker| broker.pending())
            .unwrap_or_default()
    }

    fn queue(
        &self,
        text: String,
        attachments: ResolvedAttachments,
        reply: Option<oneshot::Sender<Result<TurnSummary, TurnError>>>,
    ) -> Result<(), HostError> {
        if self.is_closed() {
            return Err(self.closed());
        }
        lock(&self.shared.turns).busy += 1;
        let order = TurnOrder {
            text,
            attachments,
            reply,
        };
        if self.orders.send(order).is_err() {
            lock(&self.shared.turns).busy -= 1;
            return Err(self.closed());
        }
        Ok(())
    }

    fn closed(&self) -> HostError {
        HostError::SessionClosed {
            session_id: self.shared.id.clone(),
        }
    }
}

/// An open session: its controls, its events, and the runner behind them. Dropping it shuts
/// the session down (its children too).
#[derive(Debug)]
pub struct HostedSession {
    control: SessionControl,
    events: EventStream,
    warnings: Vec<String>,
    coordinator: Arc<Coordinator>,
    runner: Option<tokio::task::JoinHandle<()>>,
}

impl HostedSession {
    pub(super) fn start(
        session: Session,
        events: EventStream,
        warnings: Vec<String>,
        coordinator: Arc<Coordinator>,
        controls: Controls,
    ) -> Self {
        let (orders, received) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            id: session.id().to_owned(),
            turns: Mutex::new(Turns {
                cancel: controls.cancel.child_token(),
                busy: 0,
            }),
            closed: AtomicBool::new(false),
            controls,
        });
        let runner = tokio::spawn(run(session, received, Arc::clone(&shared)));
        Self {
            control: SessionControl { shared, orders },
            events,
            warnings,
            coordinator,
            runner: Some(runner),
        }
    }

    pub fn id(&self) -> &str {
        self.control.session_id()
    }

    /// A handle to send commands with, from any task.
    pub fn control(&self) -> SessionControl {
        self.control.clone()
    }

    /// The session's events, every agent's, in order.
    pub fn events(&mut self) -> &mut EventStream {
        &mut self.events
    }

    /// Moves the event stream out, for a reader task of its own; `events()` has ended after.
    pub fn take_events(&mut self) -> EventStream {
        std::mem::replace(&mut self.events, ended_stream())
    }

    /// What a front end shows when the session starts: project definitions ignored because
    /// the folder is not trusted, and lines of a resumed session file that could not be read.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The main agent's permission mode now (a front end announces `bypassPermissions`).
    pub fn permission_mode(&self) -> kigi_agent::PermissionMode {
        self.control.shared.controls.mode.get()
    }

    /// The coordinator of this session's children (benchmarks and tests drive it directly).
    pub fn coordinator(&self) -> &Arc<Coordinator> {
        &self.coordinator
    }

    /// See [`SessionControl::run_turn`].
    pub async fn run_turn(&self, text: &str) -> Result<TurnSummary, TurnError> {
        self.control.run_turn(text).await
    }

    /// See [`SessionControl::submit`].
    pub fn submit(&self, command: HostCommand) -> Result<(), HostError> {
        self.control.submit(command)
    }

    /// Shuts the session down and waits (at most ten seconds) for its runner to end. Returns
    /// the event stream, which ends after the last event (at the ceiling at the latest).
    pub async fn shutdown(mut self) -> EventStream {
        self.control.shared.close();
        if let Some(runner) = self.runner.take()
            && tokio::time::timeout(SHUTDOWN_CEILING, runner)
                .await
                .is_err()
        {
            // The runner did not wind down in time: end the stream anyway.
            self.control.shared.controls.sink.close();
        }
        self.take_events()
    }
}

impl Drop for HostedSession {
    fn drop(&mut self) {
        self.control.shared.close();
    }
}

/// A stream that has already ended.
fn ended_stream() -> EventStream {
    let (sink, ended) = event_channel();
    sink.close();
    ended
}

/// Ends the session however the runner stops, a panic included: later commands get
/// `SessionClosed`, and the stream ends once it has been read.
struct EndOnDrop(Arc<Shared>);

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        self.0.close();
        self.0.controls.sink.close();
    }
}

/// The runner: turns one after another until the session ends.
async fn run(
    mut session: Session,
    mut orders: mpsc::UnboundedReceiver<TurnOrder>,
    shared: Arc<Shared>,
) {
    let _end = EndOnDrop(Arc::clone(&shared));
    let session_cancel = shared.controls.cancel.clone();
    if let Err(error) = session.start_hooks(shared.controls.start_source).await {
        tracing::warn!(%error, "SessionStart hooks");
    }
    loop {
        let order = tokio::select! {
            biased;
            () = session_cancel.cancelled() => None,
            order = orders.recv() => order,
        };
        // A turn queued before a shutdown is not started (its reply says cancelled).
        let Some(order) = order.filter(|_| !session_cancel.is_cancelled()) else {
            break;
        };
        let cancel = lock(&shared.turns).cancel.clone();
        let outcome = session
            .run_turn_with(&order.text, order.attachments, &cancel)
            .await;
        {
            let mut turns = lock(&shared.turns);
            turns.busy = turns.busy.saturating_sub(1);
            turns.cancel = session_cancel.child_token();
        }
        if let Some(reply) = order.reply {
            let _ = reply.send(outcome);
        }
    }
    // Queued turns end as cancelled: their reply channels close with `orders`.
    orders.close();
    if let Err(error) = session.end_hooks("shutdown").await {
        tracing::warn!(%error, "SessionEnd hooks");
    }
    if let Some(mcp) = session.mcp_session() {
        mcp.shutdown().await;
    }
    drop(session);
}
