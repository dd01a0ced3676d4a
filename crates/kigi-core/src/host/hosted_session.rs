//! A running session: a runner task that owns the [`Session`] and runs its turns one after
//! another, a [`SessionControl`] any number of front-end tasks use to send commands, and the
//! [`EventStream`] one of them reads.
//!
//! The rule: commands never wait for the turn in flight. An interrupt cancels that turn's
//! token, a steer joins the queue the loop drains at its next step, an approval answer goes
//! to the ask that waits for it; only a user turn waits its place in line.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kigi_protocol::HostCommand;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::approvals::ApprovalBroker;
use super::event_stream::{EventSink, EventStream};
use super::host_error::HostError;
use crate::inbox::MessageQueue;
use crate::lock::lock;
use crate::session::{Session, TurnError, TurnSummary};
use crate::subagent::Coordinator;

/// How long `shutdown` waits for the runner to wind down.
const SHUTDOWN_CEILING: Duration = Duration::from_secs(10);

/// A turn waiting for the runner.
struct TurnOrder {
    text: String,
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
}

struct Shared {
    id: String,
    turns: mpsc::UnboundedSender<TurnOrder>,
    /// The token of the turn running now, or of the next one if none runs.
    turn_cancel: Mutex<CancellationToken>,
    /// Turns queued or running.
    busy: AtomicUsize,
    closed: AtomicBool,
    controls: Controls,
}

/// Sends commands to one session. Cheap to clone; usable from any task.
#[derive(Clone)]
pub struct SessionControl {
    shared: Arc<Shared>,
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

    /// Takes one command; see [`HostCommand`] for what each does.
    pub fn submit(&self, command: HostCommand) -> Result<(), HostError> {
        if self.shared.closed.load(Ordering::Acquire) && command != HostCommand::Shutdown {
            return Err(self.closed());
        }
        match command {
            HostCommand::UserTurn { text } => self.queue(text, None),
            HostCommand::Interrupt => {
                if self.shared.busy.load(Ordering::Acquire) > 0 {
                    lock(&self.shared.turn_cancel).cancel();
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
            HostCommand::Shutdown => {
                self.shared.closed.store(true, Ordering::Release);
                self.shared.controls.cancel.cancel();
                Ok(())
            }
        }
    }

    /// Runs a user turn (after any queued before it) and returns how it ended. A session that
    /// shuts down first ends it as cancelled.
    pub async fn run_turn(&self, text: &str) -> Result<TurnSummary, TurnError> {
        let (reply, outcome) = oneshot::channel();
        if self.queue(text.to_owned(), Some(reply)).is_err() {
            return Err(TurnError::Cancelled);
        }
        outcome.await.unwrap_or(Err(TurnError::Cancelled))
    }

    fn queue(
        &self,
        text: String,
        reply: Option<oneshot::Sender<Result<TurnSummary, TurnError>>>,
    ) -> Result<(), HostError> {
        self.shared.busy.fetch_add(1, Ordering::AcqRel);
        if self.shared.turns.send(TurnOrder { text, reply }).is_err() {
            self.shared.busy.fetch_sub(1, Ordering::AcqRel);
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

/// An open session: its controls, its events, and the runner behind them.
#[derive(Debug)]
pub struct HostedSession {
    control: SessionControl,
    events: EventStream,
    warnings: Vec<String>,
    coordinator: Arc<Coordinator>,
    runner: tokio::task::JoinHandle<()>,
}

impl HostedSession {
    pub(super) fn start(
        session: Session,
        events: EventStream,
        warnings: Vec<String>,
        coordinator: Arc<Coordinator>,
        controls: Controls,
    ) -> Self {
        let (turns, orders) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            id: session.id().to_owned(),
            turns,
            turn_cancel: Mutex::new(controls.cancel.child_token()),
            busy: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
            controls,
        });
        let runner = tokio::spawn(run(session, orders, Arc::clone(&shared)));
        Self {
            control: SessionControl { shared },
            events,
            warnings,
            coordinator,
            runner,
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
        let (sink, ended) = super::event_stream::event_channel();
        sink.close();
        std::mem::replace(&mut self.events, ended)
    }

    /// Lines of the session file that could not be read when it was resumed.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
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
    /// the event stream, which ends after the last event.
    pub async fn shutdown(self) -> EventStream {
        let _ = self.control.submit(HostCommand::Shutdown);
        let _ = tokio::time::timeout(SHUTDOWN_CEILING, self.runner).await;
        self.events
    }
}

/// The runner: turns one after another until shutdown, or until every control is dropped.
async fn run(
    mut session: Session,
    mut orders: mpsc::UnboundedReceiver<TurnOrder>,
    shared: Arc<Shared>,
) {
    let session_cancel = shared.controls.cancel.clone();
    loop {
        let order = tokio::select! {
            order = orders.recv() => order,
            () = session_cancel.cancelled() => None,
        };
        let Some(order) = order else { break };
        let cancel = lock(&shared.turn_cancel).clone();
        let outcome = session.run_turn(&order.text, &cancel).await;
        *lock(&shared.turn_cancel) = session_cancel.child_token();
        shared.busy.fetch_sub(1, Ordering::AcqRel);
        if let Some(reply) = order.reply {
            let _ = reply.send(outcome);
        }
    }
    shared.closed.store(true, Ordering::Release);
    session_cancel.cancel();
    // Queued turns end as cancelled (their reply channels close with `orders`).
    orders.close();
    drop(session);
    shared.controls.sink.close();
}
