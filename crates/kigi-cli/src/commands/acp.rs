//! `kigi acp`: kigi as an Agent Client Protocol agent on stdin and stdout, for editors (Zed's
//! `agent_servers`, JetBrains, Neovim plugins). The protocol work is `kigi-acp`'s; this
//! reads the flags, opens the session host and runs it.
//!
//! The rule: stdout is the protocol. Nothing here prints to it; warnings go to stderr and
//! everything else to the log file (`$KIGI_HOME/logs/kigi.log`).

use std::process::ExitCode;

use kigi_acp::AcpOptions;

/// The agent `--agent` or `--agent-file` names.
pub use super::session_flags::agent_choice;

/// Serves ACP until the editor closes stdin (or a signal ends kigi).
pub fn run(options: AcpOptions) -> anyhow::Result<ExitCode> {
    let host = super::session_host()?;
    // An editor stops its agent with a signal: end the commands kigi started, then exit.
    super::signals::on_ending_signal(|| {
        kigi_tools::process_group::kill_all();
        std::process::exit(143);
    });
    let runtime = super::runtime()?;
    let served = runtime.block_on(kigi_acp::serve_stdio(host, options));
    runtime.shutdown_timeout(super::RUNTIME_SHUTDOWN);
    served?;
    Ok(ExitCode::SUCCESS)
}
