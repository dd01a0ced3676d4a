//! One child turn on an external engine: the prompt goes to the engine's process, each line
//! it prints becomes the child's session events (written to its `wire.jsonl` and shown to
//! front ends like a native child's), and the engine's final text is the child's answer.
//!
//! The rule: the engine's tool calls are recorded under the `external` namespace with the
//! engine's own names; kigi never runs them, never asks about them, and grants nothing for
//! them (a call titled Bash gains no native permission).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use kigi_agent::{ExecutorConfig, ExecutorKind, ExecutorOutputFormat};
use kigi_protocol::{
    CanonicalToolMeta, SessionEvent, ToolCall, ToolCallMeta, ToolKind, ToolNamespace, ToolStatus,
};
use tokio_util::sync::CancellationToken;

use super::acp_engine::{AcpDriver, acp_turn, run_acp_engine};
use super::claude_stream::ClaudeStream;
use super::codex_jsonl::CodexJsonl;
use super::command_line::{TurnInput, command_line};
use super::engine_event::{EngineEvent, LineParser};
use super::engine_process::{EngineEnd, run_engine};
use super::kigi_stream::KigiStream;
use crate::session::{Session, TurnError, TurnSummary};
use crate::session_store::StoreError;

/// The executor a child runs on, resolved at spawn time.
#[derive(Debug, Clone)]
pub struct ExternalEngine {
    /// Its `[agent_executors.<id>]` id.
    pub id: String,
    pub config: ExecutorConfig,
    /// `{model}`: what the spawn or the agent file names, as written.
    pub model: Option<String>,
    /// `kind = "acp"`: the client that speaks to it (a spawn without one is refused).
    pub acp: Option<Arc<dyn AcpDriver>>,
    /// `kind = "acp"` with `profile_delivery = "system_prompt_override"`: the profile, sent
    /// as `_meta.systemPromptOverride` instead of in the prompt.
    pub system_prompt_override: Option<String>,
}

/// What a turn on an engine did, besides the session's own record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineReport {
    /// The model the engine said it runs.
    pub model: Option<String>,
}

/// The parser of a format.
fn parser(format: ExecutorOutputFormat) -> Box<dyn LineParser> {
    match format {
        ExecutorOutputFormat::KigiStreamJson => Box::new(KigiStream),
        ExecutorOutputFormat::ClaudeStreamJson => Box::new(ClaudeStream),
        ExecutorOutputFormat::CodexJsonl => Box::<CodexJsonl>::default(),
    }
}

/// Runs one turn of `session` on `engine`; `limit` is the child's own time limit, used when
/// the executor sets none.
pub(crate) async fn run_external_turn(
    session: &mut Session,
    engine: &Arc<ExternalEngine>,
    prompt: &str,
    cwd: &Path,
    limit: Duration,
    cancel: &CancellationToken,
) -> (Result<TurnSummary, TurnError>, EngineReport) {
    let mut report = EngineReport::default();
    if let Err(error) = session.record(SessionEvent::UserMessage {
        text: prompt.to_owned(),
    }) {
        return (Err(TurnError::Store(error)), report);
    }
    let line = command_line(
        &engine.config,
        &TurnInput {
            prompt,
            cwd,
            model: engine.model.as_deref(),
            member: session.agent_id(),
            session: session.id(),
        },
    );
    let timeout = engine
        .config
        .timeout_secs
        .map_or(limit, Duration::from_secs)
        .min(limit);
    // Read before the recorder borrows the session: an ACP agent's permission requests go
    // to the child's approver (the parent's person while it waits in the foreground).
    let approver = session.approver();
    let mut recorder = Recorder {
        session: &mut *session,
        summary: TurnSummary::default(),
        names: HashMap::new(),
        thinking: String::new(),
        finished: None,
        rate_limited: false,
        store_error: None,
        model: None,
    };
    let ran = match (engine.config.kind, &engine.acp, engine.config.output_format) {
        (ExecutorKind::Command, _, Some(format)) => {
            let mut parse = parser(format);
            run_engine(&line, cwd, timeout, cancel, &mut |text| {
                for event in parse.line(text) {
                    recorder.apply(event);
                }
            })
            .await
        }
        (ExecutorKind::Acp, Some(driver), _) => {
            let turn = acp_turn(
                &engine.id,
                cwd,
                prompt.to_owned(),
                engine.system_prompt_override.clone(),
                approver,
            );
            run_acp_engine(&**driver, &line, turn, timeout, cancel, &mut |event| {
                recorder.apply(event);
            })
            .await
        }
        // Refused when the spawn was resolved; kept an error rather than a fallback.
        _ => Ok(EngineEnd::Disconnected {
            reason: "this front end cannot run it".into(),
            stderr_tail: String::new(),
        }),
    };
    let Recorder {
        summary,
        finished,
        rate_limited,
        store_error,
        model,
        ..
    } = recorder;
    report.model = model;
    let id = &engine.id;
    let outcome = match (store_error, ran) {
        (Some(error), _) => Err(TurnError::Store(error)),
        (None, Err(error)) => Err(TurnError::Executor(format!("executor `{id}`: {error}"))),
        (None, Ok(EngineEnd::Cancelled)) => Err(TurnError::Cancelled),
        (None, Ok(EngineEnd::TimedOut)) => Err(TurnError::Executor(format!(
            "executor `{id}` ran past its {}s limit and was killed",
            timeout.as_secs()
        ))),
        (
            None,
            Ok(EngineEnd::Disconnected {
                reason,
                stderr_tail,
            }),
        ) => Err(TurnError::Executor(format!(
            "executor `{id}`: {reason}{}",
            stderr_said(&stderr_tail)
        ))),
        (None, Ok(end @ (EngineEnd::Exited { .. } | EngineEnd::Answered))) => {
            let (exit, said) = match end {
                EngineEnd::Exited { code, stderr_tail } => (
                    code.map_or("a signal".to_owned(), |c| format!("exit code {c}")),
                    stderr_said(&stderr_tail),
                ),
                _ => ("its prompt ended".to_owned(), String::new()),
            };
            match finished {
                Some(Ok(text)) if !text.trim().is_empty() => Ok(TurnSummary {
                    text,
                    ..summary.clone()
                }),
                Some(Ok(_)) => Err(TurnError::EmptyCompletion),
                Some(Err(reason)) if rate_limited => Err(TurnError::ExecutorRateLimited(format!(
                    "executor `{id}`: {reason} ({exit}){said}"
                ))),
                Some(Err(reason)) => Err(TurnError::Executor(format!(
                    "executor `{id}` failed: {reason} ({exit}){said}"
                ))),
                None => Err(TurnError::Executor(format!(
                    "executor `{id}` ended ({exit}) without a result{said}"
                ))),
            }
        }
    };
    (session.end_external_turn(outcome, &summary), report)
}

/// `; stderr: …` when the engine said something there.
fn stderr_said(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr: {tail}")
    }
}

/// Writes engine events into the child's session as they arrive.
struct Recorder<'a> {
    session: &'a mut Session,
    summary: TurnSummary,
    /// Call id → the engine's tool name, for its result.
    names: HashMap<String, String>,
    /// Reasoning waiting for the next assistant message.
    thinking: String,
    finished: Option<Result<String, String>>,
    /// The engine said its provider throttled it.
    rate_limited: bool,
    /// The first write that failed: the turn fails with it.
    store_error: Option<StoreError>,
    model: Option<String>,
}

impl Recorder<'_> {
    fn apply(&mut self, event: EngineEvent) {
        if self.store_error.is_some() {
            return;
        }
        let written = match event {
            EngineEvent::Model(model) => {
                self.model = Some(model);
                Ok(())
            }
            EngineEvent::Thinking(text) => {
                self.thinking.push_str(&text);
                Ok(())
            }
            EngineEvent::Assistant { text, calls } => {
                self.summary.steps += 1;
                self.summary.tool_calls += u32::try_from(calls.len()).unwrap_or(u32::MAX);
                let tool_calls: Vec<ToolCall> = calls
                    .into_iter()
                    .map(|call| ToolCall {
                        id: call.id,
                        name: call.name,
                        arguments: call.input,
                    })
                    .collect();
                let message = SessionEvent::AssistantMessage {
                    text,
                    thinking: std::mem::take(&mut self.thinking),
                    thinking_signature: None,
                    tool_calls: tool_calls.clone(),
                };
                let mut written = self.session.record(message);
                for call in tool_calls {
                    self.names.insert(call.id.clone(), call.name.clone());
                    let meta = Some(ToolCallMeta {
                        tool: external_meta(&call.name),
                    });
                    written = written.and_then(|()| {
                        self.session.record(SessionEvent::ToolCall {
                            call_id: call.id,
                            name: call.name,
                            raw_input: call.arguments,
                            meta,
                        })
                    });
                }
                written
            }
            EngineEvent::ToolResult {
                id,
                output,
                is_error,
            } => {
                let name = self.names.get(&id).cloned().unwrap_or_default();
                self.session.record(SessionEvent::ToolResult {
                    call_id: id,
                    name,
                    status: if is_error {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Completed
                    },
                    output,
                })
            }
            EngineEvent::Usage {
                input_tokens,
                output_tokens,
                cached_input_tokens,
            } => {
                let usage = &mut self.summary.usage;
                usage.input_tokens += input_tokens;
                usage.output_tokens += output_tokens;
                usage.cached_input_tokens += cached_input_tokens;
                self.session.record(SessionEvent::Usage {
                    input_tokens,
                    output_tokens,
                    cached_input_tokens,
                    context_window: None,
                })
            }
            EngineEvent::RateLimited => {
                self.rate_limited = true;
                Ok(())
            }
            EngineEvent::Finished(outcome) => {
                self.finished = Some(outcome);
                Ok(())
            }
        };
        if let Err(error) = written {
            self.store_error = Some(error);
        }
    }
}

/// The envelope of an engine's tool call: its own name as name and label, namespace
/// `external`, and a kind guessed from the name for display only (it grants nothing).
pub fn external_meta(name: &str) -> CanonicalToolMeta {
    let lower = name.to_ascii_lowercase();
    let kind = match lower.as_str() {
        "bash" | "shell" | "command_execution" | "run_terminal_cmd" | "exec_command" => {
            ToolKind::Execute
        }
        "read" | "read_file" | "notebookread" => ToolKind::Read,
        "edit" | "multiedit" | "file_change" | "edit_file" | "notebookedit" | "apply_patch" => {
            ToolKind::Edit
        }
        "write" | "write_file" => ToolKind::Write,
        "grep" | "glob" | "search" | "ls" => ToolKind::Search,
        "webfetch" | "web_fetch" => ToolKind::WebFetch,
        "websearch" | "web_search" => ToolKind::WebSearch,
        "task" | "agent" => ToolKind::Task,
        "todowrite" | "update_plan" => ToolKind::Plan,
        _ => ToolKind::Other,
    };
    CanonicalToolMeta {
        version: kigi_protocol::TOOL_META_VERSION,
        name: name.to_owned(),
        kind,
        namespace: ToolNamespace::External,
        label: name.to_owned(),
        read_only: matches!(kind, ToolKind::Read | ToolKind::Search),
        input: None,
        server: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engines_bash_is_external_and_keeps_its_name() {
        let meta = external_meta("Bash");
        assert_eq!(meta.namespace, ToolNamespace::External);
        assert_eq!((meta.name.as_str(), meta.label.as_str()), ("Bash", "Bash"));
        assert_eq!(meta.kind, ToolKind::Execute);
        assert!(!meta.read_only);
        assert_eq!(
            serde_json::to_value(&meta).unwrap()["namespace"],
            serde_json::json!("external")
        );
    }
}
