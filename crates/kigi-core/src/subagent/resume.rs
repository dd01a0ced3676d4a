//! `resume_from`: a new child that carries on a finished one, with its model, tool state and
//! transcript. Only a completed child of this session, of the same type, can be resumed.

use kigi_model::ModelClient;
use kigi_protocol::SessionEvent;

use super::coordinator::Coordinator;
use super::result::ChildStatus;
use super::spawn_error::SpawnError;
use crate::lock::lock;

/// What a resumed child inherits.
pub(crate) struct ResumeSource {
    pub client: ModelClient,
    pub tools: kigi_tools::ToolContext,
    pub events: Vec<SessionEvent>,
    /// The prompt it ran with: a resumed child keeps it even if its type's file changed
    /// (edited, made private) since.
    pub system_prompt: String,
}

impl Coordinator {
    /// What a resumed child takes from its source: checked to be a completed child of this
    /// session, of the same type.
    pub(super) fn resume_source(
        &self,
        source: &str,
        agent_type: &str,
    ) -> Result<ResumeSource, SpawnError> {
        let source_id = source.to_owned();
        let child = self
            .child(source)
            .ok_or_else(|| SpawnError::ResumeUnknown {
                source_id: source_id.clone(),
            })?;
        if !child.finished() {
            return Err(SpawnError::ResumeRunning { source_id });
        }
        let status = lock(&child.result).as_ref().map(|r| r.status);
        if status != Some(ChildStatus::Completed) {
            let what = status.map_or("did not finish", ChildStatus::label);
            return Err(SpawnError::ResumeNotCompleted { source_id, what });
        }
        if child.meta.agent_type != agent_type {
            return Err(SpawnError::ResumeWrongType {
                source_id,
                actual: child.meta.agent_type.clone(),
                wanted: agent_type.to_owned(),
            });
        }
        let session = lock(&child.session);
        let Some(session) = session.as_ref() else {
            return Err(SpawnError::ResumeBusy { source_id });
        };
        let events = self
            .setup
            .store
            .load_child(&self.setup.session_id, &child.id)
            .map_err(|error| SpawnError::ResumeLoad {
                source_id,
                source: error,
            })?
            .events
            .into_iter()
            .map(|e| e.event)
            .collect();
        Ok(ResumeSource {
            client: session.client().clone(),
            tools: session.tool_context().clone(),
            events,
            system_prompt: session.system_prompt().to_owned(),
        })
    }
}
