//! One model request of the loop, streamed (deltas and retries reach the front end as they
//! arrive), and the token budgets a response is counted against.

use kigi_model::{ModelError, ModelEvent, ModelRequest, ModelResponse};
use kigi_protocol::SessionEvent;
use tokio_util::sync::CancellationToken;

use super::{Session, TurnError, TurnSummary};

impl Session {
    /// Counts the response against the budgets; the error when one is spent.
    pub(super) fn over_budget(
        &self,
        summary: &TurnSummary,
        response: &ModelResponse,
    ) -> Option<TurnError> {
        let budget = &self.setup.token_budget;
        let used = response.usage.input_tokens + response.usage.output_tokens;
        if let Some(tree) = &budget.tree {
            let spent = tree.add(used);
            if spent > tree.limit() {
                return Some(TurnError::TokenBudget {
                    scope: "session tree",
                    spent,
                    limit: tree.limit(),
                });
            }
        }
        let own = summary.usage.input_tokens + summary.usage.output_tokens;
        match budget.own {
            Some(limit) if own > limit => Some(TurnError::TokenBudget {
                scope: "subagent",
                spent: own,
                limit,
            }),
            _ => None,
        }
    }

    /// One model request, streamed; deltas and retries go to the front end as they arrive.
    pub(super) async fn request(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, TurnError> {
        let request = ModelRequest {
            model: String::new(),
            system: self.setup.system_prompt.clone(),
            messages: self.messages.clone(),
            tools: self.setup.runtime.schemas(),
            reasoning: self.setup.reasoning,
            max_output_tokens: None,
            params: serde_json::Map::new(),
        };
        let mut stream = self.setup.client.stream(&request, cancel.child_token());
        let mut response = ModelResponse::default();
        while let Some(event) = stream.next().await {
            let event = match event {
                Ok(event) => event,
                Err(ModelError::Cancelled) => return Err(TurnError::Cancelled),
                Err(error) => return Err(TurnError::Model(error)),
            };
            match &event {
                ModelEvent::TextDelta(text) => self
                    .events
                    .session(&SessionEvent::TextDelta { text: text.clone() }),
                ModelEvent::ThinkingDelta(text) => self
                    .events
                    .session(&SessionEvent::ThinkingDelta { text: text.clone() }),
                ModelEvent::Retrying {
                    attempt,
                    delay,
                    reason,
                } => self.emit(SessionEvent::Retrying {
                    attempt: *attempt,
                    delay_ms: delay.as_millis() as u64,
                    reason: reason.clone(),
                })?,
                _ => {}
            }
            response.apply(event);
        }
        if cancel.is_cancelled() {
            return Err(TurnError::Cancelled);
        }
        Ok(response)
    }
}
