//! An executor's `session/request_permission`, asked through kigi's approvals: the request
//! becomes an [`ApprovalRequest`] for the child's approver (the parent's person while the
//! child runs in the foreground), and the verdict picks the agent's option.
//!
//! The rule: only an explicit allow picks an allow option, and only a once-option (a person
//! who allowed one call did not allow the agent to stop asking); anything else (a refusal, no
//! approver, a cancelled ask, no fitting option) rejects.

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, ToolCallContent, ToolKind as AcpKind,
};
use kigi_core::executor::external_meta;
use kigi_core::{ApprovalRequest, ApprovalVerdict};
use kigi_protocol::ToolKind;

/// What the person is asked about the agent's call.
pub(crate) fn approval_request(
    executor: &str,
    request: &RequestPermissionRequest,
) -> ApprovalRequest {
    let call = &request.tool_call;
    let fields = &call.fields;
    let title = fields
        .title
        .clone()
        .or_else(|| fields.name.clone())
        .unwrap_or_else(|| "a tool call".to_owned());
    let name = fields.name.clone().unwrap_or_else(|| title.clone());
    let mut summary = format!("executor `{executor}` asks: {title}");
    if let Some(input) = &fields.raw_input {
        summary.push('\n');
        summary.push_str(&input.to_string());
    }
    for item in fields.content.iter().flatten() {
        if let ToolCallContent::Diff(diff) = item {
            summary.push_str(&format!("\n{}", diff.path.display()));
        }
    }
    let mut tool = external_meta(&name);
    // The agent's own kind, for display: it is still an external call and grants nothing.
    if let Some(kind) = fields.kind.as_ref().and_then(kind_of) {
        tool.kind = kind;
        tool.read_only = matches!(kind, ToolKind::Read | ToolKind::Search);
    }
    ApprovalRequest {
        call_id: call.tool_call_id.0.to_string(),
        name: name.clone(),
        canonical: name.clone(),
        // "Allow for this session" remembers this executor's tool, never kigi's own.
        scope: format!("executor:{executor}: {name}"),
        tool: Some(tool),
        summary,
    }
}

/// kigi's display kind for an ACP tool kind; `None` keeps the one guessed from the name.
fn kind_of(kind: &AcpKind) -> Option<ToolKind> {
    Some(match kind {
        AcpKind::Read => ToolKind::Read,
        AcpKind::Edit | AcpKind::Delete | AcpKind::Move => ToolKind::Edit,
        AcpKind::Search => ToolKind::Search,
        AcpKind::Execute => ToolKind::Execute,
        AcpKind::Fetch => ToolKind::WebFetch,
        _ => return None,
    })
}

/// The agent's option for `verdict` (`None`: nobody could be asked).
pub(crate) fn permission_response(
    verdict: Option<&ApprovalVerdict>,
    options: &[PermissionOption],
) -> RequestPermissionResponse {
    let pick = |kind: PermissionOptionKind| {
        options
            .iter()
            .find(|option| option.kind == kind)
            .map(|option| option.option_id.clone())
    };
    let chosen = match verdict {
        Some(ApprovalVerdict::Allowed) => pick(PermissionOptionKind::AllowOnce),
        _ => pick(PermissionOptionKind::RejectOnce)
            .or_else(|| pick(PermissionOptionKind::RejectAlways)),
    };
    RequestPermissionResponse::new(match chosen {
        Some(id) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id)),
        None => RequestPermissionOutcome::Cancelled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(options: serde_json::Value) -> RequestPermissionRequest {
        serde_json::from_value(json!({
            "sessionId": "s",
            "toolCall": {"toolCallId": "c1", "title": "Write a.txt", "rawInput": {"path": "a.txt"}},
            "options": options,
        }))
        .unwrap()
    }

    fn chosen(response: &RequestPermissionResponse) -> serde_json::Value {
        serde_json::to_value(&response.outcome).unwrap()
    }

    #[test]
    fn the_request_names_the_executor_and_its_tool_as_external() {
        let asked = approval_request("inner", &request(json!([])));
        assert_eq!(asked.call_id, "c1");
        assert_eq!(asked.scope, "executor:inner: Write a.txt");
        assert_eq!(
            asked.summary,
            "executor `inner` asks: Write a.txt\n{\"path\":\"a.txt\"}"
        );
        assert_eq!(
            asked.tool.unwrap().namespace,
            kigi_protocol::ToolNamespace::External
        );
    }

    #[test]
    fn only_an_allow_picks_allow_once_and_everything_else_rejects() {
        let all = request(json!([
            {"optionId": "always", "name": "Always", "kind": "allow_always"},
            {"optionId": "once", "name": "Once", "kind": "allow_once"},
            {"optionId": "no", "name": "No", "kind": "reject_once"},
        ]))
        .options;
        let allowed = permission_response(Some(&ApprovalVerdict::Allowed), &all);
        assert_eq!(
            chosen(&allowed),
            json!({"outcome": "selected", "optionId": "once"})
        );
        for verdict in [
            Some(ApprovalVerdict::Denied(None)),
            Some(ApprovalVerdict::Cancelled),
            Some(ApprovalVerdict::NobodyToAsk),
            None,
        ] {
            let rejected = permission_response(verdict.as_ref(), &all);
            assert_eq!(
                chosen(&rejected),
                json!({"outcome": "selected", "optionId": "no"})
            );
        }
        let only_always =
            request(json!([{"optionId": "always", "name": "Always", "kind": "allow_always"}]))
                .options;
        let allowed = permission_response(Some(&ApprovalVerdict::Allowed), &only_always);
        assert_eq!(chosen(&allowed), json!({"outcome": "cancelled"}));
    }
}
