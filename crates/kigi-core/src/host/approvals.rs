//! The host's approvals: asks from any agent of the session tree wait here for a person's
//! answer (`HostCommand::Approval`), each under its own request id.
//!
//! The rule: an ask ends exactly once, answered, or cancelled with its turn; either way the
//! front end gets an `approval_resolved` notice, so no prompt is left open. "Allow for this
//! session" remembers the canonical tool name for every agent of the tree, since the same
//! person answers for all of them.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use kigi_protocol::{ApprovalAnswer, ApprovalDecision, HostNotice};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::event_stream::AgentEmitter;
use super::host_error::HostError;
use crate::approval::{ApprovalFuture, ApprovalRequest, ApprovalVerdict, Approver};
use crate::lock::lock;

/// Pending asks of one session tree.
#[derive(Debug, Default)]
pub struct ApprovalBroker {
    pending: Mutex<HashMap<String, oneshot::Sender<ApprovalAnswer>>>,
    /// Canonical tool names allowed for the rest of the session.
    allowed: Mutex<HashSet<String>>,
    next: AtomicU64,
}

impl ApprovalBroker {
    /// The approver one agent's tool runtime asks through.
    pub fn approver_for(self: &Arc<Self>, agent: AgentEmitter) -> Arc<dyn Approver> {
        Arc::new(AgentApprover {
            broker: Arc::clone(self),
            agent,
        })
    }

    /// Delivers a person's answer to ask `request_id`.
    pub fn answer(&self, request_id: &str, answer: ApprovalAnswer) -> Result<(), HostError> {
        let reply = lock(&self.pending).remove(request_id);
        match reply {
            // The asker may have been cancelled in the same instant: then nobody reads it.
            Some(reply) => {
                let _ = reply.send(answer);
                Ok(())
            }
            None => Err(HostError::UnknownApproval {
                request_id: request_id.to_owned(),
            }),
        }
    }

    /// Ids of the asks waiting now.
    pub fn pending(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.pending).keys().cloned().collect();
        ids.sort();
        ids
    }
}

/// Asks for one agent: tags the request with that agent and says it is waiting.
#[derive(Debug)]
struct AgentApprover {
    broker: Arc<ApprovalBroker>,
    agent: AgentEmitter,
}

impl Approver for AgentApprover {
    fn ask(&self, request: ApprovalRequest, cancel: CancellationToken) -> ApprovalFuture {
        let broker = Arc::clone(&self.broker);
        let agent = self.agent.clone();
        Box::pin(async move {
            if lock(&broker.allowed).contains(&request.canonical) {
                return ApprovalVerdict::Allowed;
            }
            let request_id = format!(
                "approval-{}",
                broker.next.fetch_add(1, Ordering::Relaxed) + 1
            );
            let (reply, answer) = oneshot::channel();
            lock(&broker.pending).insert(request_id.clone(), reply);
            agent.notice(HostNotice::ApprovalRequested {
                request_id: request_id.clone(),
                call_id: request.call_id.clone(),
                name: request.name.clone(),
                tool: request.tool.clone(),
                summary: request.summary.clone(),
            });
            if agent.parent_id().is_some() {
                agent.activity("Waiting for approval".to_owned());
            }
            let verdict = tokio::select! {
                answer = answer => match answer {
                    Ok(ApprovalAnswer::AllowOnce) => ApprovalVerdict::Allowed,
                    Ok(ApprovalAnswer::AllowForSession) => {
                        lock(&broker.allowed).insert(request.canonical.clone());
                        ApprovalVerdict::Allowed
                    }
                    Ok(ApprovalAnswer::Deny { reason }) => ApprovalVerdict::Denied(reason),
                    Err(_) => ApprovalVerdict::Cancelled,
                },
                () = cancel.cancelled() => {
                    lock(&broker.pending).remove(&request_id);
                    ApprovalVerdict::Cancelled
                }
            };
            agent.notice(HostNotice::ApprovalResolved {
                request_id,
                decision: match verdict {
                    ApprovalVerdict::Allowed => ApprovalDecision::Allowed,
                    ApprovalVerdict::Denied(_) => ApprovalDecision::Denied,
                    ApprovalVerdict::Cancelled => ApprovalDecision::Cancelled,
                },
            });
            verdict
        })
    }
}

#[cfg(test)]
mod tests {
    use kigi_protocol::{HostEventBody, HostNotice};

    use super::*;
    use crate::host::event_stream::event_channel;

    fn request(canonical: &str) -> ApprovalRequest {
        ApprovalRequest {
            call_id: "c1".into(),
            name: canonical.into(),
            canonical: canonical.into(),
            tool: None,
            summary: "rm x".into(),
        }
    }

    #[tokio::test]
    async fn allow_for_session_stops_later_asks_of_that_tool_only() {
        let (sink, mut stream) = event_channel();
        let broker = Arc::new(ApprovalBroker::default());
        let approver = broker.approver_for(AgentEmitter::main(sink));
        let ask = tokio::spawn(approver.ask(request("run_terminal_cmd"), CancellationToken::new()));
        let id = match stream.next().await.unwrap().body {
            HostEventBody::Notice(HostNotice::ApprovalRequested { request_id, .. }) => request_id,
            other => panic!("{other:?}"),
        };
        broker.answer(&id, ApprovalAnswer::AllowForSession).unwrap();
        assert_eq!(ask.await.unwrap(), ApprovalVerdict::Allowed);
        let again = approver.ask(request("run_terminal_cmd"), CancellationToken::new());
        assert_eq!(again.await, ApprovalVerdict::Allowed);
        let other = tokio::spawn(approver.ask(request("write_file"), CancellationToken::new()));
        while broker.pending().is_empty() {
            tokio::task::yield_now().await;
        }
        assert!(matches!(
            broker.answer("approval-9", ApprovalAnswer::AllowOnce),
            Err(HostError::UnknownApproval { .. })
        ));
        let pending = broker.pending();
        broker
            .answer(
                &pending[0],
                ApprovalAnswer::Deny {
                    reason: Some("no".into()),
                },
            )
            .unwrap();
        assert_eq!(
            other.await.unwrap(),
            ApprovalVerdict::Denied(Some("no".into()))
        );
    }

    #[tokio::test]
    async fn a_cancelled_ask_is_resolved_and_forgotten() {
        let (sink, mut stream) = event_channel();
        let broker = Arc::new(ApprovalBroker::default());
        let approver = broker.approver_for(AgentEmitter::main(sink));
        let cancel = CancellationToken::new();
        let ask = tokio::spawn(approver.ask(request("write_file"), cancel.clone()));
        while broker.pending().is_empty() {
            tokio::task::yield_now().await;
        }
        cancel.cancel();
        assert_eq!(ask.await.unwrap(), ApprovalVerdict::Cancelled);
        assert!(broker.pending().is_empty());
        let decisions: Vec<ApprovalDecision> = stream
            .drain()
            .into_iter()
            .filter_map(|e| match e.body {
                HostEventBody::Notice(HostNotice::ApprovalResolved { decision, .. }) => {
                    Some(decision)
                }
                _ => None,
            })
            .collect();
        assert_eq!(decisions, [ApprovalDecision::Cancelled]);
    }
}
