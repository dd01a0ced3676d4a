//! A child turn on an ACP agent (`kind = "acp"`): kigi-core owns the process (its own
//! process group, the time limit, the kill), an [`AcpDriver`] owns the protocol over its
//! stdin and stdout. The driver lives in `kigi-acp`, which depends on this crate; the host is
//! handed one by its front end (`SessionHost::set_acp_driver`), so kigi-core never depends on
//! the ACP SDK.
//!
//! The rule: when the turn is cancelled or runs out of time the driver is told first (it
//! sends `session/cancel`), given a bounded grace, and then the whole group is killed;
//! nothing the agent started outlives the turn.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::process::{ChildStdin, ChildStdout};
use tokio_util::sync::CancellationToken;

use super::command_line::CommandLine;
use super::engine_event::EngineEvent;
use super::engine_process::{EngineEnd, StartError, start_engine};
use crate::approval::Approver;

/// How long a cancelled driver may take to send `session/cancel` and see the prompt end.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// What one turn asks of the agent.
#[derive(Debug)]
pub struct AcpTurn {
    /// The executor's id, for messages.
    pub executor: String,
    /// The child's working directory: `session/new`'s cwd, and the only place the agent's
    /// `fs/*` requests may read or write.
    pub cwd: PathBuf,
    /// The first user message (with the profile preamble unless it goes as an override).
    pub prompt: String,
    /// `_meta.systemPromptOverride` of `session/new` (`profile_delivery =
    /// "system_prompt_override"`).
    pub system_prompt_override: Option<String>,
    /// Where the agent's `session/request_permission` goes; `None` rejects every request.
    pub approver: Option<Arc<dyn Approver>>,
    /// Fires on cancel, kill and timeout: the driver sends `session/cancel` and returns.
    pub cancel: CancellationToken,
}

/// The agent's end of the pipes.
#[derive(Debug)]
pub struct AcpPipes {
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// How the driver's session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcpOutcome {
    /// The prompt returned a stop reason; the driver has sent [`EngineEvent::Finished`].
    Stopped,
    /// The turn's cancel fired (or the agent answered `cancelled`).
    Cancelled,
    /// The connection failed, or `initialize` / `session/new` / the prompt was refused.
    Failed(String),
}

/// The future a driver returns.
pub type AcpFuture<'a> = Pin<Box<dyn Future<Output = AcpOutcome> + Send + 'a>>;

/// Speaks ACP as the client to one agent process for one turn.
pub trait AcpDriver: Send + Sync + std::fmt::Debug {
    /// `initialize`, `session/new`, `session/prompt`; each `session/update` becomes events
    /// for `on_event`, in order, all of them before this returns.
    fn run<'a>(
        &'a self,
        turn: AcpTurn,
        pipes: AcpPipes,
        on_event: &'a mut (dyn FnMut(EngineEvent) + Send),
    ) -> AcpFuture<'a>;
}

/// Starts `line` in `cwd` and drives one turn through `driver`, at most `timeout`.
pub(super) async fn run_acp_engine(
    driver: &dyn AcpDriver,
    line: &CommandLine,
    mut turn: AcpTurn,
    timeout: Duration,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(EngineEvent) + Send),
) -> Result<EngineEnd, StartError> {
    let mut engine = start_engine(line, &turn.cwd, Stdio::piped())?;
    let pipes = engine.child.stdin.take().zip(engine.child.stdout.take());
    let turn_cancel = cancel.child_token();
    turn.cancel = turn_cancel.clone();
    let ended = match pipes {
        None => Some(AcpOutcome::Failed("its pipes could not be opened".into())),
        Some((stdin, stdout)) => {
            let run = driver.run(turn, AcpPipes { stdin, stdout }, on_event);
            tokio::pin!(run);
            let deadline = tokio::time::sleep(timeout);
            tokio::pin!(deadline);
            let stopped = tokio::select! {
                outcome = &mut run => Ok(outcome),
                () = &mut deadline => Err(true),
                () = cancel.cancelled() => Err(false),
            };
            match stopped {
                Ok(outcome) => Some(outcome),
                Err(timed_out) => {
                    turn_cancel.cancel();
                    let _ = tokio::time::timeout(CANCEL_GRACE, &mut run).await;
                    if timed_out {
                        None
                    } else {
                        Some(AcpOutcome::Cancelled)
                    }
                }
            }
        }
    };
    // The agent and whatever it left behind (its own cancel already had its grace).
    let stderr_tail = engine.end(false).await;
    Ok(match ended {
        None => EngineEnd::TimedOut,
        Some(AcpOutcome::Stopped) => EngineEnd::Answered,
        Some(AcpOutcome::Cancelled) => EngineEnd::Cancelled,
        Some(AcpOutcome::Failed(reason)) => EngineEnd::Disconnected {
            reason,
            stderr_tail,
        },
    })
}

/// A turn for [`run_acp_engine`], which gives it the turn's own cancel token.
pub(super) fn acp_turn(
    executor: &str,
    cwd: &Path,
    prompt: String,
    system_prompt_override: Option<String>,
    approver: Option<Arc<dyn Approver>>,
) -> AcpTurn {
    AcpTurn {
        executor: executor.to_owned(),
        cwd: cwd.to_path_buf(),
        prompt,
        system_prompt_override,
        approver,
        cancel: CancellationToken::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A driver that never answers: only cancellation ends it.
    #[derive(Debug)]
    struct Silent;

    impl AcpDriver for Silent {
        fn run<'a>(
            &'a self,
            turn: AcpTurn,
            _pipes: AcpPipes,
            _on_event: &'a mut (dyn FnMut(EngineEvent) + Send),
        ) -> AcpFuture<'a> {
            Box::pin(async move {
                turn.cancel.cancelled().await;
                AcpOutcome::Cancelled
            })
        }
    }

    #[tokio::test]
    async fn a_cancelled_turn_tells_the_driver_and_kills_the_group() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let line = CommandLine {
            program: "sh".into(),
            args: vec![
                "-c".into(),
                format!("sleep 300 & echo $! > {}; wait", pid_file.display()),
            ],
            env: BTreeMap::new(),
        };
        let cancel = CancellationToken::new();
        let turn = acp_turn("x", dir.path(), "hi".into(), None, None);
        let mut on_event = |_: EngineEvent| {};
        let run = run_acp_engine(
            &Silent,
            &line,
            turn,
            Duration::from_secs(600),
            &cancel,
            &mut on_event,
        );
        tokio::pin!(run);
        // The grandchild's pid is written once the shell runs; then cancel.
        let mut pid = None;
        for _ in 0..1000 {
            tokio::select! {
                _ = &mut run => panic!("ended before it was cancelled"),
                () = tokio::time::sleep(Duration::from_millis(10)) => {}
            }
            if let Some(read) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok())
            {
                pid = Some(read);
                break;
            }
        }
        let pid = pid.expect("the shell never started its grandchild");
        cancel.cancel();
        let end = tokio::time::timeout(Duration::from_secs(30), run)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(end, EngineEnd::Cancelled);
        assert!(
            super::super::engine_process::tests::gone(pid).await,
            "the grandchild {pid} still runs"
        );
    }
}
