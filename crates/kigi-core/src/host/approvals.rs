//! The host's approvals: asks from any agent of the session tree wait here for a person's
//! answer (`HostCommand::Approval`), each under its own request id.
//!
//! The rules: an ask ends exactly once (answered, cancelled with its turn, or dropped by its
//! caller) and either way the front end gets an `approval_resolved` notice, so no prompt is
//! left open. "Allow for this session" remembers the request's scope (the exact command line
//! for a shell call, the tool otherwise) for every agent of the tree, since the same person
//! answers for all of them, and settles the asks of that scope already waiting.

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

/// One waiting ask.
#[derive(Debug)]
struct Pending {
    scope: String,
    reply: oneshot::Sender<ApprovalAnswer>,
}

/// Pending asks of one session tree.
#[derive(Debug, Default)]
pub struct ApprovalBroker {
    pending: Mutex<HashMap<String, Pending>>,
    /// Scopes allowed for the rest of the session.
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
        let mut pending = lock(&self.pending);
        let Some(ask) = pending.remove(request_id) else {
            return Err(HostError::UnknownApproval {
                request_id: request_id.to_owned(),
            });
        };
        if answer == ApprovalAnswer::AllowForSession {
            lock(&self.allowed).insert(ask.scope.clone());
            let same: Vec<String> = pending
                .iter()
                .filter(|(_, other)| other.scope == ask.scope)
                .map(|(id, _)| id.clone())
                .collect();
            for id in same {
                if let Some(other) = pending.remove(&id) {
                    let _ = other.reply.send(ApprovalAnswer::AllowOnce);
                }
            }
        }
        // The asker may have been cancelled in the same instant: then nobody reads it.
        let _ = ask.reply.send(answer);
        Ok(())
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

/// Settles an ask however its future ends: dropped before an answer, it is withdrawn and
/// reported cancelled.
struct Settle {
    broker: Arc<ApprovalBroker>,
    agent: AgentEmitter,
    request_id: String,
    decision: Option<ApprovalDecision>,
}

impl Drop for Settle {
    fn drop(&mut self) {
        lock(&self.broker.pending).remove(&self.request_id);
        self.agent.notice(HostNotice::ApprovalResolved {
            request_id: std::mem::take(&mut self.request_id),
            decision: self.decision.unwrap_or(ApprovalDecision::Cancelled),
        });
    }
}

impl Approver for AgentApprover {
    fn ask(&self, request: ApprovalRequest, cancel: CancellationToken) -> ApprovalFuture {
        let broker = Arc::clone(&self.broker);
        let agent = self.agent.clone();
        Box::pin(async move {
            if lock(&broker.allowed).contains(&request.scope) {
                return ApprovalVerdict::Allowed;
            }
            let request_id = format!(
                "approval-{}",
                broker.next.fetch_add(1, Ordering::Relaxed) + 1
            );
            let (reply, answer) = oneshot::channel();
            lock(&broker.pending).insert(
                request_id.clone(),
                Pending {
                    scope: request.scope.clone(),
                    reply,
                },
            );
            let mut settle = Settle {
                broker: Arc::clone(&broker),
                agent: agent.clone(),
                request_id: request_id.clone(),
                decision: None,
            };
            agent.notice(HostNotice::ApprovalRequested {
                request_id,
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
                    Ok(ApprovalAnswer::AllowOnce | ApprovalAnswer::AllowForSession) => {
                        ApprovalVerdict::Allowed
                    }
                    Ok(ApprovalAnswer::Deny { reason }) => ApprovalVerdict::Denied(reason),
                    Err(_) => ApprovalVerdict::Cancelled,
                },
                () = cancel.cancelled() => ApprovalVerdict::Cancelled,
            };
            settle.decision = Some(match verdict {
                ApprovalVerdict::Allowed => ApprovalDecision::Allowed,
                ApprovalVerdict::Denied(_) => ApprovalDecision::Denied,
                ApprovalVerdict::Cancelled | ApprovalVerdict::NobodyToAsk => {
                    ApprovalDecision::Cancelled
                }
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

    fn request(canonical: &str, scope: &str) -> ApprovalRequest {
        ApprovalRequest {
            call_id: "c1".into(),
            name: canonical.into(),
            canonical: canonical.into(),
            scope: scope.into(),
            tool: None,
            summary: scope.into(),
        }
    }

    async fn wait_for_asks(broker: &ApprovalBroker, count: usize) -> Vec<String> {
        while broker.pending().len() < count {
            tokio::task::yield_now().await;
        }
        broker.pending()
    }

    fn decisions(stream: &mut crate::host::EventStream) -> Vec<ApprovalDecision> {
        stream
            .drain()
            .into_iter()
            .filter_map(|e| match e.body {
                HostEventBody::Notice(HostNotice::ApprovalResolved { decision, .. }) => {
                    Some(decision)
                }
                _ => None,
            })
            .collect()
    }

    #[tokio::test]
    async fn allow_for_session_covers_its_scope_only_and_settles_asks_already_waiting() {
        let (sink, mut stream) = event_channel();
        let broker = Arc::new(ApprovalBroker::default());
        let approver = broker.approver_for(AgentEmitter::main(sink));
        let ls = || request("run_terminal_cmd", "run_terminal_cmd: ls");
        let first = tokio::spawn(approver.ask(ls(), CancellationToken::new()));
        let twin = tokio::spawn(approver.ask(ls(), CancellationToken::new()));
        let ids = wait_for_asks(&broker, 2).await;
        broker
            .answer(&ids[0], ApprovalAnswer::AllowForSession)
            .unwrap();
        assert_eq!(first.await.unwrap(), ApprovalVerdict::Allowed);
        assert_eq!(twin.await.unwrap(), ApprovalVerdict::Allowed);
        assert!(broker.pending().is_empty());
        assert_eq!(
            approver.ask(ls(), CancellationToken::new()).await,
            ApprovalVerdict::Allowed
        );
        // Another command of the same tool still asks.
        let rm = tokio::spawn(approver.ask(
            request("run_terminal_cmd", "run_terminal_cmd: rm -rf x"),
            CancellationToken::new(),
        ));
        let ids = wait_for_asks(&broker, 1).await;
        assert!(matches!(
            broker.answer("approval-99", ApprovalAnswer::AllowOnce),
            Err(HostError::UnknownApproval { .. })
        ));
        broker
            .answer(
                &ids[0],
                ApprovalAnswer::Deny {
                    reason: Some("no".into()),
                },
            )
            .unwrap();
        assert_eq!(
            rm.await.unwrap(),
            ApprovalVerdict::Denied(Some("no".into()))
        );
        assert_eq!(
            decisions(&mut stream),
            [
                ApprovalDecision::Allowed,
                ApprovalDecision::Allowed,
                ApprovalDecision::Denied
            ]
        );
    }

    #[tokio::test]
    async fn a_cancelled_or_dropped_ask_is_withdrawn_and_resolved() {
        let (sink, mut stream) = event_channel();
        let broker = Arc::new(ApprovalBroker::default());
        let approver = broker.approver_for(AgentEmitter::main(sink));
        let cancel = CancellationToken::new();
        let ask = tokio::spawn(approver.ask(request("write_file", "write_file"), cancel.clone()));
        wait_for_asks(&broker, 1).await;
        cancel.cancel();
        assert_eq!(ask.await.unwrap(), ApprovalVerdict::Cancelled);
        assert!(broker.pending().is_empty());
        let dropped = tokio::spawn(approver.ask(
            request("write_file", "write_file"),
            CancellationToken::new(),
        ));
        wait_for_asks(&broker, 1).await;
        dropped.abort();
        assert!(dropped.await.unwrap_err().is_cancelled());
        assert!(broker.pending().is_empty());
        assert_eq!(
            decisions(&mut stream),
            [ApprovalDecision::Cancelled, ApprovalDecision::Cancelled]
        );
    }
}
