//! kigi's command line, shared by its two binaries: `kigi` (print mode, every subcommand)
//! and `kigi-ui` (the interactive terminal and `kigi acp`), which `kigi` execs for those.
//!
//! Why two binaries: most of `kigi -p`'s resident memory is its own code pages, which the
//! kernel maps 64 KiB at a time around every page touched; without the terminal and the ACP
//! agent linked in, the code print mode runs sits closer together (about 0.8 MB less at
//! peak). The rule: `kigi` must never call into `kigi-tui` or `kigi-acp`'s agent side
//! itself, only through [`FrontEnds`].

#[macro_use]
mod closed_pipe;
mod cli;
mod commands;
mod error_chain;
mod front_ends;
mod logging;
mod terminal_text;

pub use cli::run;
pub use front_ends::FrontEnds;
