//! The session loop's hook points: `SessionStart` and `SessionEnd` around the session,
//! `UserPromptSubmit` before a person's prompt reaches the model (it may block it or add
//! context), and `Stop` / `SubagentStop` when the agent would end its turn (exit 2 makes it go
//! on, with the hook's reason as its next message). Every run lands in the transcript.

use kigi_agent::hooks::HookEvent;
use kigi_protocol::{Message, ReminderSource, SessionEvent};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::Session;
use crate::session_store::StoreError;

/// How many times in one turn a `Stop` hook may send the agent back to work: hooks see
/// `stop_hook_active` and should stop themselves; this ends a hook that never does.
pub(super) const MAX_STOP_CONTINUATIONS: u32 = 8;

impl Session {
    /// Writes the hook runs waiting in this agent's hooks to the transcript.
    pub(super) fn flush_hook_runs(&mut self) -> Result<(), StoreError> {
        let Some(hooks) = self.setup.runtime.hooks().cloned() else {
            return Ok(());
        };
        for record in hooks.take_records() {
            self.emit(record)?;
        }
        Ok(())
    }

    /// Hands context a hook gave to the model, as a reminder.
    fn add_hook_context(&mut self, event: HookEvent, context: &[String]) -> Result<(), StoreError> {
        for text in context.iter().filter(|t| !t.trim().is_empty()) {
            let text = format!("<system-reminder>\n{event} hook:\n{text}\n</system-reminder>");
            self.emit(SessionEvent::Reminder {
                text: text.clone(),
                source: ReminderSource::Hook,
            })?;
            self.messages.push(Message::user(text));
        }
        Ok(())
    }

    /// `UserPromptSubmit`, for a person's prompt to the main agent: `Err(reason)` when a hook
    /// blocked it (or said `continue: false`); its context is added after the prompt.
    pub(super) async fn prompt_hooks(
        &mut self,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> Result<Result<Vec<String>, String>, StoreError> {
        let Some(hooks) = self.setup.runtime.hooks().cloned() else {
            return Ok(Ok(Vec::new()));
        };
        if self.setup.runtime.depth() > 0 || !hooks.wants(HookEvent::UserPromptSubmit, &[]) {
            return Ok(Ok(Vec::new()));
        }
        let mut fields = Map::new();
        fields.insert("prompt".into(), Value::String(prompt.to_owned()));
        let verdict = hooks
            .run(
                HookEvent::UserPromptSubmit,
                &[],
                fields,
                self.permission_mode(),
                cancel,
            )
            .await;
        self.flush_hook_runs()?;
        Ok(match verdict.block.or(verdict.stop) {
            Some(reason) => Err(reason),
            None => Ok(verdict.context),
        })
    }

    /// Adds the context `prompt_hooks` returned, once the prompt is in the conversation.
    pub(super) fn add_prompt_context(&mut self, context: &[String]) -> Result<(), StoreError> {
        self.add_hook_context(HookEvent::UserPromptSubmit, context)
    }

    /// `Stop` (the main agent) or `SubagentStop` (a child): the reason to go on, when a hook
    /// blocks the end of the turn.
    pub(super) async fn stop_hooks(
        &mut self,
        continuations: u32,
        cancel: &CancellationToken,
    ) -> Result<Option<String>, StoreError> {
        let Some(hooks) = self.setup.runtime.hooks().cloned() else {
            return Ok(None);
        };
        let event = if self.setup.runtime.depth() == 0 {
            HookEvent::Stop
        } else {
            HookEvent::SubagentStop
        };
        if !hooks.wants(event, &[]) {
            return Ok(None);
        }
        let mut fields = Map::new();
        fields.insert("stop_hook_active".into(), Value::Bool(continuations > 0));
        let verdict = hooks
            .run(event, &[], fields, self.permission_mode(), cancel)
            .await;
        self.flush_hook_runs()?;
        // `continue: false` ends the agent whatever a `decision: block` asked.
        if continuations >= MAX_STOP_CONTINUATIONS || verdict.stop.is_some() {
            return Ok(None);
        }
        let Some(reason) = verdict.block else {
            return Ok(None);
        };
        let text = format!(
            "<system-reminder>\nA {event} hook asks you to go on:\n{reason}\n</system-reminder>"
        );
        self.emit(SessionEvent::Reminder {
            text: text.clone(),
            source: ReminderSource::Hook,
        })?;
        self.messages.push(Message::user(text));
        Ok(Some(reason))
    }

    /// `SessionStart` (`source` is `startup` or `resume`): its context waits for the model
    /// at the start of the conversation.
    pub async fn start_hooks(&mut self, source: &str) -> Result<(), StoreError> {
        let Some(hooks) = self.setup.runtime.hooks().cloned() else {
            return Ok(());
        };
        if !hooks.wants(HookEvent::SessionStart, &[source]) {
            return Ok(());
        }
        let mut fields = Map::new();
        fields.insert("source".into(), Value::String(source.to_owned()));
        let verdict = hooks
            .run(
                HookEvent::SessionStart,
                &[source],
                fields,
                self.permission_mode(),
                &CancellationToken::new(),
            )
            .await;
        self.flush_hook_runs()?;
        self.add_hook_context(HookEvent::SessionStart, &verdict.context)
    }

    /// `SessionEnd`, as the session closes.
    pub async fn end_hooks(&mut self, reason: &str) -> Result<(), StoreError> {
        let Some(hooks) = self.setup.runtime.hooks().cloned() else {
            return Ok(());
        };
        if hooks.wants(HookEvent::SessionEnd, &[]) {
            let mut fields = Map::new();
            fields.insert("reason".into(), Value::String(reason.to_owned()));
            hooks
                .run(
                    HookEvent::SessionEnd,
                    &[],
                    fields,
                    self.permission_mode(),
                    &CancellationToken::new(),
                )
                .await;
        }
        self.flush_hook_runs()
    }
}
