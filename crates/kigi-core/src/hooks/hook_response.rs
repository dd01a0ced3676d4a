//! What a hook said, read as Claude Code reads it: exit 0 is fine (its stdout is context where
//! context is taken), exit 2 blocks (its stderr is the reason), any other exit is a warning;
//! JSON on stdout (`decision`, `reason`, `continue`, `stopReason`, `suppressOutput`,
//! `hookSpecificOutput.{permissionDecision, permissionDecisionReason, updatedInput,
//! additionalContext}`) says more. Pure: a function of the exit and the output.

use kigi_agent::hooks::HookEvent;
use kigi_protocol::HookOutcome;
use serde_json::Value;

/// What a `PreToolUse` hook decided about the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PermissionDecision {
    Deny,
    Ask,
    Allow,
}

/// One hook run, as its process ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookExit {
    /// `None`: killed (timeout, cancellation) or never started.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    /// Why it could not start.
    pub failed: Option<String>,
}

/// What one hook run means.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookResponse {
    pub outcome: Option<HookOutcome>,
    /// Blocked, with the reason the agent (or person) is given.
    pub block: Option<String>,
    /// Text for the model (`UserPromptSubmit`, `SessionStart`, `additionalContext`).
    pub context: Option<String>,
    /// `PreToolUse`'s decision and its reason.
    pub permission: Option<(PermissionDecision, String)>,
    /// `PreToolUse`'s replacement input.
    pub updated_input: Option<Value>,
    /// `continue: false`: stop the turn, with `stopReason`.
    pub stop: Option<String>,
    /// What the transcript records beside the outcome.
    pub message: String,
}

impl HookResponse {
    pub fn read(event: HookEvent, exit: &HookExit) -> Self {
        if let Some(reason) = &exit.failed {
            return Self::recorded(HookOutcome::Failed, reason.clone());
        }
        if exit.timed_out {
            return Self::recorded(HookOutcome::TimedOut, "killed at its timeout".to_owned());
        }
        let stderr = exit.stderr.trim().to_owned();
        match exit.code {
            Some(2) => {
                let reason = if stderr.is_empty() {
                    format!("blocked by a {event} hook")
                } else {
                    stderr
                };
                Self {
                    outcome: Some(HookOutcome::Blocked),
                    block: Some(reason.clone()),
                    message: reason,
                    ..Self::default()
                }
            }
            Some(0) => Self::from_stdout(event, exit.stdout.trim()),
            Some(_) | None => Self::recorded(HookOutcome::Warning, stderr),
        }
    }

    fn recorded(outcome: HookOutcome, message: String) -> Self {
        Self {
            outcome: Some(outcome),
            message,
            ..Self::default()
        }
    }

    /// Exit 0: JSON says what to do; plain text is context where the event takes it.
    fn from_stdout(event: HookEvent, stdout: &str) -> Self {
        let takes_context = matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart);
        let Some(json) = serde_json::from_str::<Value>(stdout)
            .ok()
            .filter(Value::is_object)
        else {
            return Self {
                outcome: Some(HookOutcome::Ok),
                context: (takes_context && !stdout.is_empty()).then(|| stdout.to_owned()),
                ..Self::default()
            };
        };
        let text =
            |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let specific = json
            .get("hookSpecificOutput")
            .cloned()
            .unwrap_or(Value::Null);
        let reason = text(&json, "reason").unwrap_or_default();
        let mut response = Self {
            outcome: Some(HookOutcome::Ok),
            context: text(&specific, "additionalContext"),
            ..Self::default()
        };
        if json.get("decision").and_then(Value::as_str) == Some("block") {
            let reason = if reason.is_empty() {
                format!("blocked by a {event} hook")
            } else {
                reason.clone()
            };
            response.outcome = Some(HookOutcome::Blocked);
            response.block = Some(reason.clone());
            response.message = reason;
        }
        if json.get("continue").and_then(Value::as_bool) == Some(false) {
            let why =
                text(&json, "stopReason").unwrap_or_else(|| format!("stopped by a {event} hook"));
            response.outcome = Some(HookOutcome::Blocked);
            response.message = why.clone();
            response.stop = Some(why);
        }
        if event == HookEvent::PreToolUse {
            let decision = match specific.get("permissionDecision").and_then(Value::as_str) {
                Some("deny") => Some(PermissionDecision::Deny),
                Some("ask") => Some(PermissionDecision::Ask),
                Some("allow") => Some(PermissionDecision::Allow),
                _ => None,
            };
            let why = text(&specific, "permissionDecisionReason").unwrap_or(reason);
            response.permission = decision.map(|d| (d, why));
            response.updated_input = specific
                .get("updatedInput")
                .filter(|v| v.is_object())
                .cloned();
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exit(code: i32, stdout: &str, stderr: &str) -> HookExit {
        HookExit {
            code: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            ..HookExit::default()
        }
    }

    #[test]
    fn exit_codes_mean_what_they_mean_in_claude_code() {
        let blocked = HookResponse::read(HookEvent::PreToolUse, &exit(2, "", "no rm -rf here\n"));
        assert_eq!(blocked.block.as_deref(), Some("no rm -rf here"));
        assert_eq!(blocked.outcome, Some(HookOutcome::Blocked));
        let warning = HookResponse::read(HookEvent::PreToolUse, &exit(1, "", "oops"));
        assert_eq!(
            (warning.outcome, warning.block),
            (Some(HookOutcome::Warning), None)
        );
        let context = HookResponse::read(
            HookEvent::UserPromptSubmit,
            &exit(0, "today is Tuesday\n", ""),
        );
        assert_eq!(context.context.as_deref(), Some("today is Tuesday"));
        let ignored = HookResponse::read(HookEvent::PostToolUse, &exit(0, "formatted", ""));
        assert_eq!(ignored.context, None);
        let timed_out = HookExit {
            timed_out: true,
            ..HookExit::default()
        };
        assert_eq!(
            HookResponse::read(HookEvent::Stop, &timed_out).outcome,
            Some(HookOutcome::TimedOut)
        );
    }

    #[test]
    fn json_output_decides_permission_rewrites_input_and_stops() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "not on main", "updatedInput": {"command": "ls"}}}"#;
        let response = HookResponse::read(HookEvent::PreToolUse, &exit(0, out, ""));
        assert_eq!(
            response.permission,
            Some((PermissionDecision::Deny, "not on main".into()))
        );
        assert_eq!(
            response.updated_input,
            Some(serde_json::json!({"command": "ls"}))
        );
        let stop = HookResponse::read(
            HookEvent::PostToolUse,
            &exit(0, r#"{"continue": false, "stopReason": "enough"}"#, ""),
        );
        assert_eq!(stop.stop.as_deref(), Some("enough"));
        let block = HookResponse::read(
            HookEvent::Stop,
            &exit(0, r#"{"decision": "block", "reason": "tests fail"}"#, ""),
        );
        assert_eq!(block.block.as_deref(), Some("tests fail"));
    }
}
