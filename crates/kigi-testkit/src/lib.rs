//! kigi's scripted model server. It speaks the real wire formats (OpenAI chat completions,
//! Anthropic Messages, OpenAI Responses) over loopback and answers from scripts, so every
//! test, benchmark and `kigi demo` runs without a paid API.
//!
//! The rule: answers depend on the conversation, never on arrival order, so concurrent
//! subagents and swarms get deterministic answers.

mod channel_body;
mod page_server;
pub mod process_probe;
mod request_log;
mod routing;
pub mod script;
mod server;
pub mod standalone;
pub mod wire;

pub use page_server::{Page, PageServer};
pub use request_log::RecordedRequest;
pub use routing::route;
pub use script::{Fault, Script, ScriptError, ScriptSet, ScriptedToolCall, ScriptedUsage, Step};
pub use server::{MODEL_ID, ScriptedServer};
