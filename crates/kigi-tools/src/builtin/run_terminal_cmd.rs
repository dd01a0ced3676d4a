//! `run_terminal_cmd`: a shell command in the working directory, with the definition's
//! timeout, output limit and command prefix, inside the context's sandbox; or started in the
//! background as a task.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::editor_terminal::TerminalCommand;
use crate::sandbox::sandbox_denial_note;
use crate::schema::parameters_of;
use crate::shell::{self, Ending, OutputBuffer};
use crate::tool::{Tool, ToolError, ToolFuture, ToolOutput, parse_arguments};

/// The longest timeout a call may ask for.
const MAX_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    command: String,
    /// Start it and return a task id at once (for servers and long builds).
    #[serde(default)]
    background: bool,
    /// Seconds; default from the agent (120), at most 600.
    #[serde(default)]
    timeout_secs: Option<f64>,
}

/// The tool.
#[derive(Debug)]
pub struct RunTerminalCmd;

impl Tool for RunTerminalCmd {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("run_terminal_cmd")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("run_terminal_cmd", arguments)?;
            if args.command.trim().is_empty() {
                return Err(ToolError::InvalidArguments {
                    tool: "run_terminal_cmd".into(),
                    detail: "command is empty".into(),
                });
            }
            let command = match &context.bash.prefix {
                Some(prefix) if !prefix.is_empty() => format!("{prefix} {}", args.command),
                _ => args.command.clone(),
            };
            if args.background {
                return Ok(
                    match context
                        .tasks
                        .start(
                            &command,
                            &context.cwd,
                            &context.sandbox,
                            context.bash.output_limit,
                        )
                        .await
                    {
                        Ok(id) => ToolOutput::ok(format!(
                            "started background task {id}; read it with get_task_output, stop it with kill_task"
                        )),
                        Err(e) => ToolOutput::error(format!("cannot start `{command}`: {e}")),
                    },
                );
            }
            let timeout = args
                .timeout_secs
                .filter(|s| s.is_finite() && *s > 0.0)
                .map_or(context.bash.timeout, Duration::from_secs_f64)
                .min(MAX_TIMEOUT);
            let (output, ending) = match &context.editor_terminal {
                // The editor's terminal is outside the sandbox: only an unconfined command
                // may run there.
                Some(terminal) if !context.sandbox.is_confined() => {
                    let request = TerminalCommand {
                        line: &command,
                        cwd: &context.cwd,
                        output_limit: context.bash.output_limit,
                        timeout,
                        cancel: &context.cancel,
                        call_id: context.call_id.as_deref(),
                    };
                    match terminal.run(request).await {
                        Ok(run) => (run.output, run.ending),
                        Err(e) => {
                            return Ok(ToolOutput::error(format!(
                                "cannot run `{command}` in the editor's terminal: {e}"
                            )));
                        }
                    }
                }
                _ => match run_here(&command, context, timeout).await {
                    Ok(ran) => ran,
                    Err(e) => {
                        return Ok(ToolOutput::error(format!("cannot start `{command}`: {e}")));
                    }
                },
            };
            Ok(match ending {
                Ending::Exited(0) => ToolOutput::ok(if output.is_empty() {
                    "(no output)".into()
                } else {
                    output
                }),
                Ending::Exited(code) => {
                    let note = sandbox_denial_note(&context.sandbox, &command, code, &output);
                    ToolOutput::error(format!(
                        "exit code {code}\n{output}{}",
                        note.unwrap_or_default()
                    ))
                }
                Ending::Signalled => ToolOutput::error(format!("killed by a signal\n{output}")),
                Ending::TimedOut(after) => ToolOutput::error(format!(
                    "timed out after {}s and was killed; for long commands use background: true\n{output}",
                    after.as_secs_f64()
                )),
                Ending::Cancelled => {
                    return Err(ToolError::Cancelled {
                        tool: "run_terminal_cmd".into(),
                    });
                }
            })
        })
    }
}

/// Runs `command` in kigi, inside the context's sandbox: its output and how it ended.
async fn run_here(
    command: &str,
    context: &ToolContext,
    timeout: Duration,
) -> Result<(String, Ending), crate::sandbox::SandboxError> {
    let buffer = Arc::new(Mutex::new(OutputBuffer::new(context.bash.output_limit)));
    let spawned =
        shell::spawn(command, &context.cwd, &context.sandbox, Arc::clone(&buffer)).await?;
    let ending = shell::wait(spawned, Some(timeout), &context.cancel).await;
    let output = buffer.lock().map(|b| b.text()).unwrap_or_default();
    Ok((output, ending))
}
