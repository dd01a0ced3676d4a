//! `kigi-ui`: the same command line as `kigi`, with the interactive terminal and `kigi acp`
//! in this process. `kigi` execs it for those; it works when run directly too.

use std::process::ExitCode;

fn main() -> ExitCode {
    kigi_cli::run(&kigi_cli::FrontEnds::in_process())
}
