//! `kigi`: print mode and every subcommand; the terminal and `kigi acp` run in `kigi-ui`.

use std::process::ExitCode;

fn main() -> ExitCode {
    kigi_cli::run(&kigi_cli::FrontEnds::in_ui_binary())
}
