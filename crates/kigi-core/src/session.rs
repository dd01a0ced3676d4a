//! A session: one agent, one model, one conversation, one transcript on disk. `run_turn` is
//! the loop: request → stream → tool calls → results → next request, until the model answers
//! without tool calls (and has met its completion requirement) or a limit stops it.
//!
//! The rule: every event is written to `wire.jsonl` (and shown to the front end) as it
//! happens, before the next step starts, so a crash loses at most the step in flight.

use std::sync::Arc;

use kigi_agent::CompletionRequirement;
use kigi_model::{ErrorClass, ModelClient, ModelError, ReasoningEffort, Usage};
use kigi_protocol::{
    ErrorCode, Message, ReminderSource, SessionEvent, ToolCallMeta, ToolResult, ToolStatus,
    TurnEndReason,
};
use tokio_util::sync::CancellationToken;

use crate::attachments::ResolvedAttachments;
use crate::completion::{CompletionCheck, CompletionTracker};
use crate::host::AgentEmitter;
use crate::inbox::{Inbox, MessageQueue};
use crate::session_store::{SessionStore, SessionWriter, StoreError};
use crate::token_budget::TokenBudget;
use crate::tool_runtime::ToolRuntime;
use crate::transcript::{messages_from, push_result};
use agent_resources::watch_background_commands;

mod agent_resources;
mod model_request;
mod session_compaction;
mod session_hooks;
mod turn_input;

/// Model requests per user turn when the definition sets no `maxTurns`.
pub const DEFAULT_MAX_TURNS: u32 = 100;

/// What a session runs with.
#[derive(Debug)]
pub struct SessionSetup {
    pub agent_name: String,
    pub system_prompt: String,
    pub client: ModelClient,
    pub runtime: ToolRuntime,
    pub max_turns: u32,
    pub reasoning: Option<ReasoningEffort>,
    pub completion: Option<CompletionRequirement>,
    pub token_budget: TokenBudget,
    pub inbox: Option<Arc<dyn Inbox>>,
    /// Text a person sent while a turn runs (`HostCommand::Steer`): the model reads it as a
    /// user message at its next step.
    pub steer: Option<Arc<MessageQueue>>,
    /// When the conversation is compacted.
    pub compaction: crate::compaction::CompactionPolicy,
    /// Set by `HostCommand::Compact`: the next turn compacts before its first request.
    pub compact_requested: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Set by `HostCommand::SetModel`: the next request goes to this client.
    pub model_switch: Option<Arc<crate::host::ModelSwitch>>,
    /// The browser an agent with browser tools drives (started at its first call).
    pub browser: Option<Arc<kigi_browser::BrowserSession>>,
}

/// A running session. Opened only by the session host (and, for children, its coordinator).
pub struct Session {
    setup: SessionSetup,
    messages: Vec<Message>,
    writer: SessionWriter,
    events: AgentEmitter,
    /// What the last turn did, also when it failed (its steps, calls and tokens so far).
    last_turn: TurnSummary,
    /// The provider's token count at the last response (compaction's measure).
    context_mark: Option<crate::compaction::ContextMark>,
    /// Messages already estimated, and their tokens (when the provider gives no count).
    estimate_cache: (usize, u64),
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.writer.session_id())
            .field("agent", &self.setup.agent_name)
            .field("messages", &self.messages.len())
            .finish_non_exhaustive()
    }
}

/// What a completed turn produced (or, for a failed one, what it did before it stopped).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnSummary {
    /// The final answer.
    pub text: String,
    /// Model requests made.
    pub steps: u32,
    pub tool_calls: u32,
    /// Summed over the turn's requests.
    pub usage: Usage,
}

/// Why a turn did not complete.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error("model error: {0}")]
    Model(ModelError),
    #[error("loop.empty_completion: the model answered with no text and no tool calls")]
    EmptyCompletion,
    #[error("loop.max_turns: stopped after {0} model requests without a final answer")]
    MaxTurns(u32),
    #[error(
        "loop.completion_requirement: the model stopped {reminders} times without calling `{tool}`"
    )]
    CompletionRequirement { tool: String, reminders: u32 },
    #[error("the turn was cancelled")]
    Cancelled,
    #[error("budget.tokens: {scope} token budget spent ({spent} of {limit})")]
    TokenBudget {
        scope: &'static str,
        spent: u64,
        limit: u64,
    },
    #[error("cannot write the session file: {0}")]
    Store(#[from] StoreError),
    /// A user's hook blocked the prompt, or said `continue: false`.
    #[error("hook.blocked: {0}")]
    HookBlocked(String),
    /// An executor child's engine failed, timed out or ended without a result.
    #[error("executor.failed: {0}")]
    Executor(String),
    /// An executor child's engine said its provider throttled it.
    #[error("model.rate_limited: {0}")]
    ExecutorRateLimited(String),
}

impl TurnError {
    /// The stable code recorded in the session file.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Model(error) => match error.class() {
                ErrorClass::RateLimited => ErrorCode::ModelRateLimited,
                ErrorClass::ContextLength => ErrorCode::ModelContextLength,
                ErrorClass::Retryable => ErrorCode::ModelUnavailable,
                ErrorClass::Fatal => ErrorCode::ModelRefused,
                ErrorClass::Cancelled => ErrorCode::TurnCancelled,
            },
            Self::EmptyCompletion => ErrorCode::LoopEmptyCompletion,
            Self::MaxTurns(_) => ErrorCode::LoopMaxTurns,
            Self::CompletionRequirement { .. } => ErrorCode::LoopCompletionRequirement,
            Self::Cancelled => ErrorCode::TurnCancelled,
            Self::TokenBudget { .. } => ErrorCode::BudgetTokens,
            Self::Store(_) => ErrorCode::SessionStore,
            Self::HookBlocked(_) => ErrorCode::HookBlocked,
            Self::Executor(_) => ErrorCode::Other("executor.failed".to_owned()),
            Self::ExecutorRateLimited(_) => ErrorCode::ModelRateLimited,
        }
    }
}

impl Session {
    /// Starts session `id` (made with `new_session_id` beforehand, so the coordinator can
    /// know it first).
    pub(crate) fn start_as(
        store: &SessionStore,
        id: &str,
        setup: SessionSetup,
        events: AgentEmitter,
    ) -> Result<Self, StoreError> {
        Self::open(store.create(id)?, setup, events)
    }

    /// Starts subagent `agent_id`'s transcript inside session `parent_id`'s folder.
    pub(crate) fn start_child(
        store: &SessionStore,
        parent_id: &str,
        agent_id: &str,
        setup: SessionSetup,
        events: AgentEmitter,
    ) -> Result<Self, StoreError> {
        Self::open(store.create_child(parent_id, agent_id)?, setup, events)
    }

    /// A session on a fresh transcript, its first record written.
    fn open(
        writer: SessionWriter,
        setup: SessionSetup,
        events: AgentEmitter,
    ) -> Result<Self, StoreError> {
        watch_background_commands(&setup, &events);
        let mut session = Self {
            setup,
            messages: Vec::new(),
            writer,
            events,
            last_turn: TurnSummary::default(),
            context_mark: None,
            estimate_cache: (0, 0),
        };
        let start = session.writer.start_event(
            &session.setup.agent_name,
            &session.setup.client.endpoint().model,
            &session.setup.runtime.context().cwd,
        );
        session.emit(start)?;
        Ok(session)
    }

    /// Carries on session `id` from its file. Returns the load warnings (skipped lines).
    pub(crate) fn resume(
        store: &SessionStore,
        id: &str,
        setup: SessionSetup,
        events: AgentEmitter,
    ) -> Result<(Self, Vec<String>), StoreError> {
        let (loaded, writer) = store.reopen(id)?;
        watch_background_commands(&setup, &events);
        let messages = messages_from(loaded.events.iter().map(|e| &e.event));
        Ok((
            Self {
                setup,
                messages,
                writer,
                events,
                last_turn: TurnSummary::default(),
                context_mark: None,
                estimate_cache: (0, 0),
            },
            loaded.warnings,
        ))
    }

    pub fn id(&self) -> &str {
        self.writer.session_id()
    }

    /// `main`, or the child's id (`sub-3`).
    pub fn agent_id(&self) -> &str {
        self.writer.agent_id()
    }

    /// What the last turn did: its summary when it completed, its steps, calls and tokens so
    /// far when it failed.
    pub fn last_turn(&self) -> &TurnSummary {
        &self.last_turn
    }

    /// The conversation so far.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The permission mode its tools run under.
    pub fn permission_mode(&self) -> kigi_agent::PermissionMode {
        self.setup.runtime.mode()
    }

    /// The model client this session talks to.
    pub fn client(&self) -> &ModelClient {
        &self.setup.client
    }

    /// Takes a model a person picked (`HostCommand::SetModel`), at a turn's start or between
    /// steps, never in the middle of a request.
    fn take_model_switch(&mut self) {
        if let Some(client) = self.setup.model_switch.as_ref().and_then(|s| s.take()) {
            self.setup.client = client;
        }
    }

    /// The system prompt it runs with.
    pub fn system_prompt(&self) -> &str {
        &self.setup.system_prompt
    }

    /// Carries on from `events` (another agent's transcript): they are written to this
    /// session's file and become its conversation.
    pub fn inherit(&mut self, events: &[SessionEvent]) -> Result<(), StoreError> {
        for event in events
            .iter()
            .filter(|e| !matches!(e, SessionEvent::SessionStart { .. }))
        {
            self.writer.append(event)?;
        }
        self.messages = messages_from(events);
        Ok(())
    }

    /// Writes and shows an event another engine reported (an executor child's turn).
    pub(crate) fn record(&mut self, event: SessionEvent) -> Result<(), StoreError> {
        self.emit(event)
    }

    /// Ends an executor child's turn as the native loop ends one: the turn's end (and its
    /// error) in the file, `last_turn` set.
    pub(crate) fn end_external_turn(
        &mut self,
        outcome: Result<TurnSummary, TurnError>,
        so_far: &TurnSummary,
    ) -> Result<TurnSummary, TurnError> {
        match outcome {
            Ok(summary) => {
                self.emit(SessionEvent::TurnEnd {
                    reason: TurnEndReason::Completed,
                    steps: summary.steps,
                })?;
                self.last_turn = summary.clone();
                Ok(summary)
            }
            Err(error) => Err(self.fail(error, so_far)),
        }
    }

    fn emit(&mut self, event: SessionEvent) -> Result<(), StoreError> {
        self.writer.append(&event)?;
        self.events.session(&event);
        Ok(())
    }

    /// Records the failure and the end of the turn, then returns the error.
    fn fail(&mut self, error: TurnError, so_far: &TurnSummary) -> TurnError {
        self.last_turn = so_far.clone();
        let steps = so_far.steps;
        let reason = match error {
            TurnError::Cancelled => TurnEndReason::Cancelled,
            TurnError::MaxTurns(_) => TurnEndReason::MaxTurns,
            _ => TurnEndReason::Error,
        };
        if !matches!(error, TurnError::Cancelled | TurnError::Store(_)) {
            let _ = self.emit(SessionEvent::Error {
                code: error.code(),
                message: error.to_string(),
            });
        }
        let _ = self.emit(SessionEvent::TurnEnd { reason, steps });
        error
    }

    /// Runs one user turn to its end.
    pub async fn run_turn(
        &mut self,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> Result<TurnSummary, TurnError> {
        self.run_turn_with(prompt, ResolvedAttachments::default(), cancel)
            .await
    }

    /// [`Self::run_turn`] with what the person attached, quoted after the prompt.
    pub async fn run_turn_with(
        &mut self,
        prompt: &str,
        attachments: ResolvedAttachments,
        cancel: &CancellationToken,
    ) -> Result<TurnSummary, TurnError> {
        let mut summary = TurnSummary {
            text: String::new(),
            steps: 0,
            tool_calls: 0,
            usage: Usage::default(),
        };
        // Runs of hooks fired before this turn (a child's SubagentStart) join the transcript.
        self.flush_hook_runs()?;
        // A model picked since the last turn counts from this one (its attachments too).
        self.take_model_switch();
        // A blocked prompt never reaches the model, nor the conversation a resume rebuilds.
        let context = match self.prompt_hooks(prompt, cancel).await? {
            Ok(context) => context,
            Err(reason) => {
                let error = TurnError::HookBlocked(format!(
                    "a UserPromptSubmit hook blocked the prompt: {reason}"
                ));
                return Err(self.fail(error, &summary));
            }
        };
        self.emit(SessionEvent::UserMessage {
            text: prompt.to_owned(),
        })?;
        self.messages.push(Message::user(prompt));
        self.add_attachments(attachments)?;
        self.add_prompt_context(&context)?;
        let mut tracker = CompletionTracker::new(self.setup.completion.clone());
        let mut stop_continuations = 0;
        loop {
            if summary.steps >= self.setup.max_turns {
                return Err(self.fail(TurnError::MaxTurns(summary.steps), &summary));
            }
            summary.steps += 1;
            self.deliver_inbox()?;
            self.deliver_steering()?;
            // The tree's budget may have been spent by a sibling since this agent's last step.
            if let Some(tree) = &self.setup.token_budget.tree
                && tree.spent() >= tree.limit()
            {
                let error = TurnError::TokenBudget {
                    scope: "session tree",
                    spent: tree.spent(),
                    limit: tree.limit(),
                };
                return Err(self.fail(error, &summary));
            }
            for report in self.setup.runtime.sync_mcp().await {
                self.emit(SessionEvent::Error {
                    code: ErrorCode::McpServerUnavailable,
                    message: report,
                })?;
            }
            self.take_model_switch();
            let manual = self
                .setup
                .compact_requested
                .as_ref()
                .is_some_and(|flag| flag.swap(false, std::sync::atomic::Ordering::SeqCst));
            if manual || self.wants_compaction() {
                let trigger = if manual { "manual" } else { "auto" };
                if let Err(error) = self.compact(trigger, cancel).await {
                    return Err(self.fail(error, &summary));
                }
            }
            let response = match self.request(cancel).await {
                Ok(response) => response,
                // Too long for the provider after all: compact once, then send again.
                Err(TurnError::Model(error)) if error.class() == ErrorClass::ContextLength => {
                    let retried = match self.compact("context_length", cancel).await {
                        Ok(true) => self.request(cancel).await,
                        Ok(false) => Err(TurnError::Model(error)),
                        Err(compact_error) => Err(compact_error),
                    };
                    match retried {
                        Ok(response) => response,
                        Err(error) => return Err(self.fail(error, &summary)),
                    }
                }
                Err(error) => return Err(self.fail(error, &summary)),
            };
            self.context_mark = Some(crate::compaction::ContextMark {
                input_tokens: response.usage.input_tokens,
                output_tokens: response.usage.output_tokens,
                // The answer is not in the conversation yet: these are the messages sent.
                messages: self.messages.len(),
            });
            summary.usage.input_tokens += response.usage.input_tokens;
            summary.usage.output_tokens += response.usage.output_tokens;
            summary.usage.cached_input_tokens += response.usage.cached_input_tokens;
            if let Some(error) = self.over_budget(&summary, &response) {
                return Err(self.fail(error, &summary));
            }
            if response.tool_calls.is_empty() && response.text.trim().is_empty() {
                return Err(self.fail(TurnError::EmptyCompletion, &summary));
            }
            self.emit(SessionEvent::AssistantMessage {
                text: response.text.clone(),
                thinking: response.thinking.clone(),
                thinking_signature: response.thinking_signature.clone(),
                tool_calls: response.tool_calls.clone(),
            })?;
            self.emit(SessionEvent::Usage {
                input_tokens: response.usage.input_tokens,
                output_tokens: response.usage.output_tokens,
                cached_input_tokens: response.usage.cached_input_tokens,
                context_window: self.setup.client.endpoint().context_window,
            })?;
            self.messages.push(response.to_message());
            if response.tool_calls.is_empty() && self.steering_waits() {
                // A person steered while the model was answering: it reads that next.
                continue;
            }
            if response.tool_calls.is_empty() {
                match tracker.check() {
                    CompletionCheck::Done => {
                        if self.stop_hooks(stop_continuations, cancel).await?.is_some() {
                            stop_continuations += 1;
                            continue;
                        }
                        summary.text = response.text;
                        self.emit(SessionEvent::TurnEnd {
                            reason: TurnEndReason::Completed,
                            steps: summary.steps,
                        })?;
                        self.last_turn = summary.clone();
                        return Ok(summary);
                    }
                    CompletionCheck::Remind { reminder, delay } => {
                        tokio::select! {
                            () = cancel.cancelled() => return Err(self.fail(TurnError::Cancelled, &summary)),
                            () = tokio::time::sleep(delay) => {}
                        }
                        self.emit(SessionEvent::Reminder {
                            text: reminder.clone(),
                            source: ReminderSource::Completion,
                        })?;
                        self.messages.push(Message::user(reminder));
                        continue;
                    }
                    CompletionCheck::GiveUp { tool, reminders } => {
                        return Err(self.fail(
                            TurnError::CompletionRequirement { tool, reminders },
                            &summary,
                        ));
                    }
                }
            }
            summary.tool_calls += response.tool_calls.len() as u32;
            for call in &response.tool_calls {
                let meta = self
                    .setup
                    .runtime
                    .envelope(call)
                    .map(|tool| ToolCallMeta { tool });
                self.emit(SessionEvent::ToolCall {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    raw_input: call.arguments.clone(),
                    meta,
                })?;
            }
            let outcomes = self.setup.runtime.run(&response.tool_calls, cancel).await;
            self.flush_hook_runs()?;
            let accepts_images = self.setup.client.endpoint().accepts_images;
            let mut images = Vec::new();
            for outcome in outcomes {
                if outcome.status == ToolStatus::Completed
                    && let Some(canonical) = &outcome.canonical
                {
                    tracker.called(canonical);
                }
                self.emit(SessionEvent::ToolResult {
                    call_id: outcome.call_id.clone(),
                    name: outcome.name.clone(),
                    status: outcome.status,
                    output: outcome.output,
                })?;
                if accepts_images && !outcome.images.is_empty() {
                    images.push(SessionEvent::ToolImages {
                        call_id: outcome.call_id.clone(),
                        name: outcome.name.clone(),
                        images: outcome
                            .images
                            .iter()
                            .map(|image| kigi_protocol::ImagePart {
                                media_type: image.media_type.clone(),
                                data: image.data.clone(),
                            })
                            .collect(),
                    });
                }
                push_result(
                    &mut self.messages,
                    ToolResult {
                        call_id: outcome.call_id,
                        content: outcome.model_output,
                        is_error: outcome.status != ToolStatus::Completed,
                    },
                );
            }
            // After all results (providers want results right after their calls), the images
            // for a model that reads them.
            for event in images {
                if let Some(message) = crate::transcript::image_message(&event) {
                    self.messages.push(message);
                }
                self.emit(event)?;
            }
            if cancel.is_cancelled() {
                return Err(self.fail(TurnError::Cancelled, &summary));
            }
            if let Some(reason) = self.setup.runtime.hooks().and_then(|h| h.take_stop()) {
                let error = TurnError::HookBlocked(format!("a hook stopped the turn: {reason}"));
                return Err(self.fail(error, &summary));
            }
        }
    }
}
