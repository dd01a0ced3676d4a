//! A swarm opened by the host without a main agent (`kigi swarm`): its transcript, its
//! coordinator, and the event stream its members report on. Dropping it cancels the members
//! still running and ends the stream.

use std::sync::Arc;

use kigi_protocol::{SessionEvent, TurnEndReason};
use tokio_util::sync::CancellationToken;

use super::event_stream::{EventSink, EventStream};
use crate::session_store::{SessionWriter, StoreError};
use crate::subagent::Coordinator;
use crate::swarm::SwarmReport;

/// How long `wind_down` waits for cancelled members.
const WIND_DOWN: std::time::Duration = std::time::Duration::from_secs(10);

/// An open swarm session.
#[derive(Debug)]
pub struct HostedSwarm {
    id: String,
    writer: SessionWriter,
    coordinator: Arc<Coordinator>,
    events: Option<EventStream>,
    sink: EventSink,
    cancel: CancellationToken,
}

impl HostedSwarm {
    pub(super) fn new(
        id: String,
        writer: SessionWriter,
        coordinator: Arc<Coordinator>,
        events: EventStream,
        sink: EventSink,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            id,
            writer,
            coordinator,
            events: Some(events),
            sink,
            cancel,
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its `swarm.jsonl`, beside its `wire.jsonl`.
    pub fn record_path(&self) -> std::path::PathBuf {
        self.writer.path().with_file_name(crate::swarm::RECORD_FILE)
    }

    pub fn coordinator(&self) -> &Arc<Coordinator> {
        &self.coordinator
    }

    /// Cancelling it cancels every member.
    pub fn cancel(&self) -> &CancellationToken {
        &self.cancel
    }

    /// The members' events (taken once: whoever reads them must keep reading, or they queue).
    pub fn take_events(&mut self) -> Option<EventStream> {
        self.events.take()
    }

    /// Cancels the members still running and waits (at most ten seconds) for them to wind
    /// down, so their transcripts end with `turn_end`. Returns the ids that were running.
    pub async fn wind_down(&self) -> Vec<String> {
        let running = self.coordinator.running();
        if !running.is_empty() {
            self.cancel.cancel();
            self.coordinator.wait_all(WIND_DOWN).await;
        }
        running
    }

    /// Records the aggregate and the end of the swarm. The event stream ends with `self`.
    /// `members_streamed`: each member's end went out (and to `swarm.jsonl`) as it happened,
    /// so the record keeps the totals.
    pub fn finish(
        mut self,
        report: &SwarmReport,
        members_streamed: bool,
    ) -> Result<(), StoreError> {
        self.writer.append(&SessionEvent::AssistantMessage {
            text: if members_streamed {
                report.render_totals()
            } else {
                report.render()
            },
            thinking: String::new(),
            thinking_signature: None,
            tool_calls: Vec::new(),
        })?;
        self.writer.append(&SessionEvent::TurnEnd {
            reason: if self.cancel.is_cancelled() {
                TurnEndReason::Cancelled
            } else {
                TurnEndReason::Completed
            },
            steps: 0,
        })?;
        Ok(())
    }
}

impl Drop for HostedSwarm {
    /// However the swarm ends (finished, an error, a panic), its members stop and its event
    /// stream ends.
    fn drop(&mut self) {
        self.cancel.cancel();
        self.sink.close();
    }
}
