//! Running the calls that passed their checks: a batch side by side, each in its own task
//! (a panicking tool is a failed call, not a crashed session), each waiting for its own
//! approval first when it needed one.

use std::sync::Arc;

use kigi_protocol::{ToolCall, ToolStatus};
use kigi_tools::ToolError;
use tokio_util::sync::CancellationToken;

use super::{CallOutcome, Ran, Ready, ToolRuntime};
use crate::approval::ApprovalVerdict;

impl ToolRuntime {
    /// Runs a batch concurrently; each call in its own task, so a panicking tool is reported
    /// as a failed call and the session goes on.
    pub(super) async fn run_batch(
        &self,
        batch: Vec<Ready>,
        calls: &[ToolCall],
        cancel: &CancellationToken,
        outcomes: &mut [Option<CallOutcome>],
    ) {
        let mut running = Vec::new();
        for ready in batch {
            let mut context = self.context.clone();
            context.cancel = cancel.child_token();
            context.call_id = Some(calls[ready.index].id.clone());
            let tool = Arc::clone(&ready.tool);
            let arguments = ready.arguments;
            let approval = ready.approval;
            let checked_target = ready.checked_target;
            running.push((
                ready.index,
                tokio::spawn(async move {
                    if let Some((approval, refusal)) = approval {
                        match approval.await {
                            Ok(ApprovalVerdict::Allowed) => {}
                            Ok(ApprovalVerdict::Denied(reason)) => return Ran::Denied(reason),
                            Ok(ApprovalVerdict::NobodyToAsk) => return Ran::NotAsked(refusal),
                            Ok(ApprovalVerdict::Cancelled) | Err(_) => return Ran::Unanswered,
                        }
                    }
                    // An earlier call of the same response (a command, a checkout) may have
                    // planted a symlink since the check: the write must still lead where it
                    // was judged to.
                    if let Some(expected) = checked_target
                        && let Some(path) = arguments.get("path").and_then(serde_json::Value::as_str)
                    {
                        let now = context.resolve(path);
                        if now != expected {
                            return Ran::Output(Ok(kigi_tools::ToolOutput::error(format!(
                                "not written: {path} now leads to {}, not to {} where it led when the call was checked; look at it and call again",
                                now.display(),
                                expected.display()
                            ))));
                        }
                    }
                    Ran::Output(tool.execute(arguments, &context).await)
                }),
            ));
        }
        for (index, handle) in running {
            let call = &calls[index];
            let abort = handle.abort_handle();
            let joined = tokio::select! {
                joined = handle => joined,
                () = cancel.cancelled() => {
                    abort.abort();
                    outcomes[index] = Some(self.outcome(call, ToolStatus::Cancelled, "cancelled".into()));
                    continue;
                }
            };
            let mut images = Vec::new();
            let (status, output) = match joined {
                Ok(Ran::Output(Ok(output))) if output.is_error => {
                    (ToolStatus::Failed, output.content)
                }
                Ok(Ran::Output(Ok(output))) => {
                    images = output.images;
                    (ToolStatus::Completed, output.content)
                }
                Ok(Ran::Output(Err(error @ ToolError::InvalidArguments { .. }))) => {
                    (ToolStatus::Refused, error.to_string())
                }
                Ok(Ran::Output(Err(ToolError::Cancelled { .. }))) | Ok(Ran::Unanswered) => {
                    (ToolStatus::Cancelled, "cancelled".into())
                }
                Ok(Ran::Denied(reason)) => (ToolStatus::Refused, denial(&call.name, reason)),
                Ok(Ran::NotAsked(refusal)) => (ToolStatus::Refused, refusal),
                Err(join) if join.is_panic() => (
                    ToolStatus::Failed,
                    format!("`{}` crashed; the call did not complete", call.name),
                ),
                Err(_) => (ToolStatus::Cancelled, "cancelled".into()),
            };
            let mut outcome = self.outcome(call, status, output);
            outcome.images = images;
            outcomes[index] = Some(outcome);
        }
    }
}

/// What the model reads when a person said no.
fn denial(name: &str, reason: Option<String>) -> String {
    match reason.filter(|r| !r.trim().is_empty()) {
        Some(reason) => format!("`{name}` was not run: the user denied it: {reason}"),
        None => format!(
            "`{name}` was not run: the user denied it. Do not retry it unchanged; ask the user how to proceed."
        ),
    }
}
