//! The session loop's compaction: before a request that would pass the policy's share of the
//! window (or after the provider refused one as too long, once), the model summarizes the
//! older part of the conversation and the agent goes on with the summary and its recent
//! messages. `PreCompact` hooks run first; `compaction_started` and `compaction` records mark
//! it in the transcript.

use kigi_agent::hooks::HookEvent;
use kigi_model::{ModelError, ModelEvent, ModelRequest};
use kigi_protocol::SessionEvent;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{Session, TurnError};
use crate::compaction::{
    COMPACTION_PROMPT, estimate_messages, estimate_text, next_request_tokens, split_point,
    summary_message, transcript_text,
};

impl Session {
    /// The estimated tokens of the next request. Without a provider's count, the estimate of
    /// the conversation is kept as it grows (all but the last message, which a tool result may
    /// still join), so a long session does not re-read itself at every step.
    pub(super) fn next_request_tokens(&mut self) -> u64 {
        if let Some(mark) = self.context_mark.filter(|m| m.input_tokens > 0) {
            return next_request_tokens(Some(mark), &self.messages, 0);
        }
        let fixed = estimate_text(&self.setup.system_prompt)
            + estimate_text(
                &serde_json::to_string(&self.setup.runtime.schemas()).unwrap_or_default(),
            );
        let (counted, tokens) = self.estimate_cache;
        let (counted, tokens) = if counted <= self.messages.len() {
            (counted, tokens)
        } else {
            (0, 0)
        };
        let settled = self.messages.len().saturating_sub(1).max(counted);
        let settled_tokens = tokens + estimate_messages(&self.messages[counted..settled]);
        self.estimate_cache = (settled, settled_tokens);
        fixed + settled_tokens + estimate_messages(&self.messages[settled..])
    }

    /// Whether the next request should be compacted first.
    pub(super) fn wants_compaction(&mut self) -> bool {
        let policy = self.setup.compaction;
        policy.enabled
            && self.next_request_tokens()
                > policy.limit(self.setup.client.endpoint().context_window)
    }

    /// Compacts the conversation; false when there was nothing older to summarize.
    pub(super) async fn compact(
        &mut self,
        trigger: &str,
        cancel: &CancellationToken,
    ) -> Result<bool, TurnError> {
        let policy = self.setup.compaction;
        let window = self.setup.client.endpoint().context_window;
        // Asked for by a person, everything before the turn in progress is summarized.
        let keep_turns = if trigger == "manual" {
            1
        } else {
            policy.keep_recent_turns
        };
        let Some(split) = split_point(&self.messages, keep_turns, policy.keep_tokens(window))
        else {
            return Ok(false);
        };
        let before = self.next_request_tokens();
        self.emit(SessionEvent::CompactionStarted {
            trigger: trigger.to_owned(),
            tokens: before,
        })?;
        if let Some(hooks) = self.setup.runtime.hooks().cloned() {
            let mut fields = Map::new();
            fields.insert("trigger".into(), Value::String(trigger.to_owned()));
            hooks
                .run(
                    HookEvent::PreCompact,
                    &[trigger],
                    fields,
                    self.permission_mode(),
                    cancel,
                )
                .await;
            self.flush_hook_runs()?;
        }
        // The summary request holds the older part as text, within half the window.
        let budget_chars =
            (window.unwrap_or(policy.default_context_window) as usize / 2).saturating_mul(4);
        let text = transcript_text(&self.messages[..split], budget_chars);
        let summary = self.summarize(&text, cancel).await?;
        if summary.trim().is_empty() {
            tracing::warn!("the model wrote an empty summary; the conversation is not compacted");
            return Ok(false);
        }
        let kept = self.messages.split_off(split);
        let kept_messages = kept.len() as u32;
        self.messages.clear();
        self.messages.push(summary_message(&summary));
        self.messages.extend(kept);
        self.context_mark = None;
        self.estimate_cache = (0, 0);
        let after = self.next_request_tokens();
        self.emit(SessionEvent::Compaction {
            summary,
            kept_messages,
            tokens_before: before,
            tokens_after: after,
        })?;
        Ok(true)
    }

    /// Asks the model for the summary of `older` (no tools, the compaction prompt).
    async fn summarize(
        &mut self,
        older: &str,
        cancel: &CancellationToken,
    ) -> Result<String, TurnError> {
        let request = ModelRequest {
            model: String::new(),
            system: COMPACTION_PROMPT.to_owned(),
            messages: vec![kigi_protocol::Message::user(format!(
                "<conversation>\n{older}\n</conversation>\n\nWrite the summary of the conversation above now."
            ))],
            tools: Vec::new(),
            reasoning: None,
            max_output_tokens: None,
            params: Map::new(),
        };
        let mut stream = self.setup.client.stream(&request, cancel.child_token());
        let mut summary = String::new();
        while let Some(event) = stream.next().await {
            match event {
                Ok(ModelEvent::TextDelta(text)) => summary.push_str(&text),
                Ok(_) => {}
                Err(ModelError::Cancelled) => return Err(TurnError::Cancelled),
                Err(error) => return Err(TurnError::Model(error)),
            }
        }
        Ok(summary)
    }
}
