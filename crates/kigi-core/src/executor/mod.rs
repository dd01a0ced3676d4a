//! Executors: a child's turn run on another harness (Claude Code, Codex, kigi itself, any
//! headless CLI), its events streamed back into the child's transcript (seed 002, "Direct
//! external execution").
//!
//! `command_line` fills the configured template; `engine_process` runs the process; each
//! output format has its own pure line parser (`kigi_stream`, `claude_stream`,
//! `codex_jsonl`) producing [`EngineEvent`]s; `acp_engine` runs an ACP agent's process for
//! an [`AcpDriver`] (implemented in `kigi-acp`) that produces them; `external_turn` writes
//! them into the child's session.
//!
//! The rule: an executor never falls back to kigi's own loop, and nothing it reports is
//! run or approved by kigi (an ACP agent's permission requests go to a person through the
//! child's approver, and are refused when nobody answers).

mod acp_engine;
mod claude_stream;
mod codex_jsonl;
mod command_line;
mod engine_event;
mod engine_process;
mod external_turn;
mod kigi_stream;

pub use acp_engine::{AcpDriver, AcpFuture, AcpOutcome, AcpPipes, AcpTurn};
pub use command_line::{CommandLine, TurnInput, command_line};
pub use engine_event::{EngineCall, EngineEvent, LineParser};
pub use engine_process::{EngineEnd, LINE_CAP, StartError, next_line};
pub(crate) use external_turn::run_external_turn;
pub use external_turn::{EngineReport, ExternalEngine, external_meta};
