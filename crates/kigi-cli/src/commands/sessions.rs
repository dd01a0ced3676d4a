//! `kigi sessions list` and `kigi sessions show ID`.

use std::process::ExitCode;

use crate::terminal_text::safe_for_terminal;
use kigi_agent::KigiPaths;
use kigi_core::SessionStore;
use kigi_protocol::SessionEvent;
use serde_json::json;

pub fn list(as_json: bool) -> anyhow::Result<ExitCode> {
    let store = SessionStore::new(KigiPaths::from_env().sessions_dir());
    let sessions = store.list()?;
    if as_json {
        let rows: Vec<_> = sessions
            .iter()
            .map(|s| json!({"id": s.id, "started": s.started, "last_used": s.last_used, "agent": s.agent, "cwd": s.cwd, "first_prompt": s.first_prompt, "turns": s.turns}))
            .collect();
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    if sessions.is_empty() {
        outln!("no sessions in {}", store.root().display());
    }
    // The last used first, as `--continue` picks them.
    for s in sessions {
        let used = s
            .last_used
            .get(..16)
            .unwrap_or(&s.last_used)
            .replace('T', " ");
        outln!(
            "{}  {used}  {:<16} {:>3} turn(s)  {}  {}",
            s.id,
            s.agent,
            s.turns,
            s.cwd,
            s.first_prompt
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A readable transcript, or with `as_json` its stored events.
pub fn show(id: &str, agent: Option<&str>, as_json: bool) -> anyhow::Result<ExitCode> {
    let store = SessionStore::new(KigiPaths::from_env().sessions_dir());
    let loaded = match agent {
        Some(agent) => store.load_child(id, agent)?,
        None => store.load(id)?,
    };
    let children = store.child_ids(id);
    if as_json {
        let events: Vec<_> = loaded
            .events
            .iter()
            .map(|stored| json!({"timestamp": stored.timestamp, "event": stored.event}))
            .collect();
        let warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
        let out = json!({"id": id, "agent": agent.unwrap_or("main"), "subagents": children,
                         "events": events, "warnings": warnings});
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    if agent.is_none() && !children.is_empty() {
        outln!(
            "subagents: {} (show one with --agent ID)",
            children.join(", ")
        );
    }
    for warning in &loaded.warnings {
        errln!("kigi: warning: {warning}");
    }
    // Transcript text is shown, not obeyed: a model or tool could have written escapes.
    let say = |line: String| outln!("{}", safe_for_terminal(&line));
    for stored in &loaded.events {
        let time = stored.timestamp.get(11..19).unwrap_or("");
        match &stored.event {
            SessionEvent::SessionStart {
                agent,
                model,
                cwd,
                kigi_version,
                ..
            } => {
                say(format!(
                    "session {id}: agent {agent}, model {model}, in {cwd} (kigi {kigi_version})"
                ));
            }
            SessionEvent::UserMessage { text } => say(format!("\n[{time}] user:\n{text}")),
            SessionEvent::Reminder { text, .. } => say(format!("\n[{time}] reminder:\n{text}")),
            SessionEvent::UserAttachments { files, images } => {
                for file in files {
                    say(format!(
                        "  attached {} ({} lines)",
                        file.source,
                        file.text.lines().count()
                    ));
                }
                for image in images {
                    say(format!("  attached an image ({})", image.media_type));
                }
            }
            SessionEvent::AssistantMessage { text, thinking, .. } => {
                if !thinking.is_empty() {
                    say(format!("\n[{time}] thinking:\n{thinking}"));
                }
                if !text.is_empty() {
                    say(format!("\n[{time}] assistant:\n{text}"));
                }
            }
            SessionEvent::ToolCall {
                name, raw_input, ..
            } => say(format!("[{time}] → {name} {raw_input}")),
            SessionEvent::ToolResult {
                name,
                status,
                output,
                ..
            } => {
                let lines = output.lines().count();
                let first = output.lines().next().unwrap_or("");
                say(format!(
                    "[{time}] ← {name} {status:?} ({lines} lines): {first}"
                ));
            }
            SessionEvent::Usage {
                input_tokens,
                output_tokens,
                cached_input_tokens,
                context_window,
            } => {
                let share = context_share(*input_tokens + *output_tokens, *context_window);
                say(format!(
                    "[{time}]   tokens: {input_tokens} in ({cached_input_tokens} cached), {output_tokens} out{share}"
                ));
            }
            SessionEvent::Retrying {
                attempt, reason, ..
            } => say(format!("[{time}]   retry {attempt}: {reason}")),
            SessionEvent::TurnEnd { reason, steps } => say(format!(
                "[{time}] turn ended: {reason:?} after {steps} step(s)"
            )),
            SessionEvent::Error { code, message } => {
                say(format!("[{time}] error {code}: {message}"))
            }
            SessionEvent::HookRun {
                event,
                command,
                exit_code,
                outcome,
                message,
                ..
            } => say(format!(
                "[{time}]   hook {event} `{command}`: {outcome:?}{}{}",
                exit_code
                    .map(|c| format!(" (exit {c})"))
                    .unwrap_or_default(),
                if message.is_empty() {
                    String::new()
                } else {
                    format!(": {message}")
                }
            )),
            SessionEvent::CompactionStarted { trigger, tokens } => say(format!(
                "[{time}]   compacting ({trigger}, about {tokens} tokens)"
            )),
            SessionEvent::Compaction {
                kept_messages,
                tokens_before,
                tokens_after,
                ..
            } => say(format!(
                "[{time}]   compacted: about {tokens_before} → {tokens_after} tokens, {kept_messages} recent message(s) kept"
            )),
            SessionEvent::ToolImages { name, images, .. } => {
                say(format!("[{time}]   {} image(s) from {name}", images.len()))
            }
            SessionEvent::TextDelta { .. } | SessionEvent::ThinkingDelta { .. } => {}
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `, context 12% of 128000` when the window is known: how full the model's context was.
fn context_share(tokens: u64, window: Option<u64>) -> String {
    match window.filter(|w| *w > 0) {
        Some(window) => format!(", context {}% of {window}", tokens * 100 / window),
        None => String::new(),
    }
}
