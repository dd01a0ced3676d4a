//! kigi's interactive terminal: the conversation in the terminal's own scrollback (finished
//! blocks printed above, a live area at the bottom), driven only by the session host:
//! [`kigi_protocol::HostCommand`]s in, [`kigi_protocol::HostEvent`]s out.
//!
//! The rule: no session logic here. What the terminal does to a session is a host command;
//! what it shows is a host event. The views are pure functions of [`app::App`] (snapshot
//! tested); `inline_terminal` and `event_loop` are the only parts that touch the terminal.

pub mod agent_catalog;
pub mod agent_files;
mod agents_actions;
pub mod agents_modal;
pub mod app;
pub mod approval;
pub mod attachments;
pub mod background_commands;
pub mod child_transcript_files;
pub mod children;
pub mod code_highlight;
pub mod composer;
pub mod earlier_children;
mod error;
mod event_loop;
pub mod file_mention;
pub mod framed_view;
pub mod history_cell;
pub mod history_search;
pub mod inline_terminal;
pub mod input_history;
pub mod lifecycle_view;
pub mod markdown;
pub mod palette;
pub mod persona_toggles;
mod prompt_keys;
pub mod session_picker;
pub mod slash;
pub mod subagent_toggles;
pub mod tasks_pane;
pub mod theme;
pub mod todos;
pub mod tool_view;
pub mod transcript;
mod tree_events;
pub mod view;
pub mod wrap;

pub use error::TuiError;
pub use event_loop::{TuiOptions, run};
