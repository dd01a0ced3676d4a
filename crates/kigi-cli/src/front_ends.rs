//! How the interactive front ends are reached: run in this process (`kigi-ui`), or by
//! replacing this process with `kigi-ui` installed beside it (`kigi`), with the same
//! arguments, so the person sees one program.

use std::process::ExitCode;

use anyhow::Context;

use crate::commands;

/// The terminal and `kigi acp`.
#[derive(Debug, Clone, Copy)]
pub struct FrontEnds {
    pub terminal: fn(commands::tui::TuiArgs) -> anyhow::Result<ExitCode>,
    pub acp: fn(kigi_acp::AcpOptions) -> anyhow::Result<ExitCode>,
}

/// The binary that holds the front ends.
pub const UI_BINARY: &str = "kigi-ui";

impl FrontEnds {
    /// Both run here (`kigi-ui`).
    pub fn in_process() -> Self {
        Self {
            terminal: commands::tui::run,
            acp: commands::acp::run,
        }
    }

    /// Both run in `kigi-ui`, which replaces this process (`kigi`).
    pub fn in_ui_binary() -> Self {
        Self {
            terminal: |_| exec_ui(),
            acp: |_| exec_ui(),
        }
    }
}

/// Replaces this process with `kigi-ui` beside it, with the same arguments. Returns only
/// when that cannot happen.
fn exec_ui() -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe().context("cannot find the kigi binary")?;
    let ui = exe.with_file_name(UI_BINARY);
    let mut command = std::process::Command::new(&ui);
    command.args(std::env::args_os().skip(1));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let error = command.exec();
        Err(anyhow::anyhow!(
            "cannot start {}: {error} (the terminal and `kigi acp` run in {UI_BINARY}, beside kigi: `cargo install --path crates/kigi-cli` installs both, `cargo build -p kigi-cli` builds both)",
            ui.display()
        ))
    }
    #[cfg(not(unix))]
    {
        let status = command
            .status()
            .with_context(|| format!("cannot start {}", ui.display()))?;
        Ok(status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .map_or(ExitCode::FAILURE, ExitCode::from))
    }
}
