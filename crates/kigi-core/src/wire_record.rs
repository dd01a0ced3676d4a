//! One line of `wire.jsonl`: a session-update notification wrapping one [`SessionEvent`].
//!
//! The rule: the writer emits only `_kigi/session/update`; the reader also accepts the legacy
//! `_x.ai/session/update`, so histories written before the rename still load.

use kigi_protocol::SessionEvent;
use serde::{Deserialize, Serialize};

/// The method every record is written with.
pub const UPDATE_METHOD: &str = "_kigi/session/update";
/// The legacy method still accepted on read.
pub const LEGACY_UPDATE_METHOD: &str = "_x.ai/session/update";

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    jsonrpc: String,
    method: String,
    params: Params,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Params {
    session_id: String,
    /// `main`, or the subagent id of a child's transcript.
    #[serde(default = "main_agent")]
    agent_id: String,
    timestamp: String,
    update: SessionEvent,
}

fn main_agent() -> String {
    MAIN_AGENT.to_owned()
}

/// The agent id of a session's main agent.
pub const MAIN_AGENT: &str = "main";

/// A record read back.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    pub session_id: String,
    pub agent_id: String,
    pub timestamp: String,
    pub event: SessionEvent,
}

/// Why a line is not a record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("not a JSON record: {0}")]
    Json(String),
    #[error("unknown method `{0}`")]
    Method(String),
}

/// The line (without newline) for `event`.
pub fn encode(session_id: &str, agent_id: &str, timestamp: &str, event: &SessionEvent) -> String {
    let record = Record {
        jsonrpc: "2.0".into(),
        method: UPDATE_METHOD.into(),
        params: Params {
            session_id: session_id.into(),
            agent_id: agent_id.into(),
            timestamp: timestamp.into(),
            update: event.clone(),
        },
    };
    serde_json::to_string(&record).unwrap_or_default()
}

/// Reads one line.
pub fn decode(line: &str) -> Result<StoredEvent, RecordError> {
    let record: Record =
        serde_json::from_str(line).map_err(|e| RecordError::Json(e.to_string()))?;
    if record.method != UPDATE_METHOD && record.method != LEGACY_UPDATE_METHOD {
        return Err(RecordError::Method(record.method));
    }
    Ok(StoredEvent {
        session_id: record.params.session_id,
        agent_id: record.params.agent_id,
        timestamp: record.params.timestamp,
        event: record.params.update,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_new_method_and_reads_both() {
        let event = SessionEvent::UserMessage { text: "hi".into() };
        let line = encode("s1", MAIN_AGENT, "2026-11-30T00:00:00Z", &event);
        assert!(
            line.contains("\"method\":\"_kigi/session/update\""),
            "{line}"
        );
        assert_eq!(decode(&line).unwrap().event, event);
        let legacy = line.replace(UPDATE_METHOD, LEGACY_UPDATE_METHOD);
        assert_eq!(decode(&legacy).unwrap().event, event);
        let other = line.replace(UPDATE_METHOD, "session/other");
        assert_eq!(
            decode(&other).unwrap_err(),
            RecordError::Method("session/other".into())
        );
    }
}
