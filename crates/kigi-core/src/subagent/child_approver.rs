//! A child's asks go to the same person as its parent's, but only while something waits for
//! the child in the foreground. A child that starts in the background, or moves there (past
//! the await budget, or continued by a message), never waits on a person: an ask already
//! waiting is withdrawn and the call is refused by policy, as if nobody could be asked.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::approval::{ApprovalFuture, ApprovalRequest, ApprovalVerdict, Approver};

/// A child's approver: the parent's person while `foreground` stands.
#[derive(Debug)]
pub(crate) struct ChildApprover {
    pub person: Arc<dyn Approver>,
    /// Cancelled once the child runs in the background.
    pub foreground: CancellationToken,
}

impl Approver for ChildApprover {
    fn ask(&self, request: ApprovalRequest, cancel: CancellationToken) -> ApprovalFuture {
        let foreground = self.foreground.clone();
        // Lazy: nothing is asked until this is polled, and dropping it withdraws the ask.
        let ask = self.person.ask(request, cancel);
        Box::pin(async move {
            if foreground.is_cancelled() {
                return ApprovalVerdict::NobodyToAsk;
            }
            tokio::select! {
                verdict = ask => verdict,
                () = foreground.cancelled() => ApprovalVerdict::NobodyToAsk,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{AgentEmitter, ApprovalBroker, event_channel};

    #[tokio::test]
    async fn a_child_moved_to_the_background_stops_waiting_on_a_person() {
        let (sink, _stream) = event_channel();
        let broker = Arc::new(ApprovalBroker::default());
        let child = ChildApprover {
            person: broker.approver_for(AgentEmitter::main(sink).child("sub-1")),
            foreground: CancellationToken::new(),
        };
        let request = ApprovalRequest {
            call_id: "c".into(),
            name: "run_terminal_cmd".into(),
            canonical: "run_terminal_cmd".into(),
            scope: "run_terminal_cmd: ls".into(),
            tool: None,
            summary: "ls".into(),
        };
        let waiting = tokio::spawn(child.ask(request.clone(), CancellationToken::new()));
        while broker.pending().is_empty() {
            tokio::task::yield_now().await;
        }
        child.foreground.cancel();
        assert_eq!(waiting.await.unwrap(), ApprovalVerdict::NobodyToAsk);
        assert!(broker.pending().is_empty(), "the ask was left waiting");
        assert_eq!(
            child.ask(request, CancellationToken::new()).await,
            ApprovalVerdict::NobodyToAsk
        );
    }
}
