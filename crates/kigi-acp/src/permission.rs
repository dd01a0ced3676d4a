//! Asks as `session/request_permission`: allow once, allow for the session, or reject; and
//! the editor's choice as kigi's approval answer.
//!
//! The rule: anything but an explicit allow is a denial (a cancelled request, an unknown
//! option, an editor that failed to answer), and the reason says which.

use agent_client_protocol::v1::schema::{
    ContentBlock, Meta, PermissionOption, PermissionOptionKind, RequestPermissionOutcome,
    RequestPermissionRequest, RequestPermissionResponse, SessionId, TextContent, ToolCallContent,
    ToolCallId, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use kigi_protocol::{ApprovalAnswer, TOOL_META_KEY};
use serde_json::{Value, json};

use crate::update_translation::ApprovalAsk;

const ALLOW_ONCE: &str = "allow_once";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT: &str = "reject_once";

/// The `_meta` key naming the agent that asks (`main`, `sub-2`).
pub const AGENT_META_KEY: &str = "kigi/agentId";

/// The request for `ask` in session `session_id`.
pub(crate) fn permission_request(session_id: &str, ask: &ApprovalAsk) -> RequestPermissionRequest {
    let mut meta = Meta::new();
    meta.insert(AGENT_META_KEY.into(), json!(ask.agent_id));
    meta.insert("kigi/approvalId".into(), json!(ask.request_id));
    if let Some(tool) = &ask.tool {
        meta.insert(
            TOOL_META_KEY.into(),
            serde_json::to_value(tool).unwrap_or(Value::Null),
        );
    }
    let mut fields = ToolCallUpdateFields::new()
        .title(ask.title.clone())
        .kind(ask.kind)
        .status(ToolCallStatus::Pending)
        .content(vec![ToolCallContent::from(ContentBlock::Text(
            TextContent::new(ask.summary.clone()),
        ))]);
    if let Some(input) = &ask.raw_input {
        fields = fields.raw_input(input.clone());
    }
    RequestPermissionRequest::new(
        SessionId::new(session_id),
        ToolCallUpdate::new(ToolCallId::new(ask.call_id.as_str()), fields).meta(meta),
        vec![
            PermissionOption::new(ALLOW_ONCE, "Allow once", PermissionOptionKind::AllowOnce),
            PermissionOption::new(
                ALLOW_ALWAYS,
                "Allow for this session",
                PermissionOptionKind::AllowAlways,
            ),
            PermissionOption::new(REJECT, "Reject", PermissionOptionKind::RejectOnce),
        ],
    )
}

/// kigi's answer for the editor's `response`, or for its failure to give one.
pub(crate) fn approval_answer(
    response: Result<RequestPermissionResponse, agent_client_protocol::Error>,
) -> ApprovalAnswer {
    let deny = |reason: String| ApprovalAnswer::Deny {
        reason: Some(reason),
    };
    match response {
        Ok(response) => match response.outcome {
            RequestPermissionOutcome::Selected(selected) => match &*selected.option_id.0 {
                ALLOW_ONCE => ApprovalAnswer::AllowOnce,
                ALLOW_ALWAYS => ApprovalAnswer::AllowForSession,
                REJECT => deny("the user rejected this call in the editor".into()),
                other => deny(format!("the editor chose an unknown option `{other}`")),
            },
            RequestPermissionOutcome::Cancelled => {
                deny("the editor cancelled the permission request".into())
            }
            _ => deny("the editor gave an outcome kigi does not know".into()),
        },
        Err(error) => deny(format!(
            "the editor did not answer the permission request: {}",
            error.message
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use agent_client_protocol::v1::schema::{SelectedPermissionOutcome, ToolKind};

    fn ask() -> ApprovalAsk {
        ApprovalAsk {
            request_id: "approval-1".into(),
            call_id: "c1".into(),
            agent_id: "main".into(),
            title: "Bash make".into(),
            kind: ToolKind::Execute,
            summary: "make".into(),
            tool: None,
            raw_input: Some(json!({"command": "make"})),
        }
    }

    #[test]
    fn offers_allow_once_allow_always_and_reject() {
        let json = serde_json::to_value(permission_request("s1", &ask())).unwrap();
        let kinds: Vec<&str> = json["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
        assert_eq!(json["toolCall"]["toolCallId"], "c1");
        assert_eq!(json["toolCall"]["title"], "Bash make");
        assert_eq!(json["toolCall"]["_meta"][AGENT_META_KEY], "main");
    }

    #[test]
    fn only_an_explicit_allow_allows() {
        let selected = |id: &str| {
            Ok(RequestPermissionResponse::new(
                RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_owned())),
            ))
        };
        assert_eq!(
            approval_answer(selected(ALLOW_ONCE)),
            ApprovalAnswer::AllowOnce
        );
        assert_eq!(
            approval_answer(selected(ALLOW_ALWAYS)),
            ApprovalAnswer::AllowForSession
        );
        assert!(matches!(
            approval_answer(selected(REJECT)),
            ApprovalAnswer::Deny { .. }
        ));
        assert!(matches!(
            approval_answer(selected("yes")),
            ApprovalAnswer::Deny { .. }
        ));
        assert!(matches!(
            approval_answer(Ok(RequestPermissionResponse::new(
                RequestPermissionOutcome::Cancelled
            ))),
            ApprovalAnswer::Deny { .. }
        ));
        assert!(matches!(
            approval_answer(Err(agent_client_protocol::Error::internal_error())),
            ApprovalAnswer::Deny { .. }
        ));
    }
}
