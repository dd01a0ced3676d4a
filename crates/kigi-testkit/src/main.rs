//! `kigi-testkit serve --script FILE [--port N]`: the scripted model server, standalone.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "kigi-testkit", version, about = "kigi's scripted model server")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve a script file (YAML or JSON) on 127.0.0.1.
    Serve {
        #[arg(long)]
        script: PathBuf,
        /// 0 picks a free port.
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let Command::Serve { script, port } = Cli::parse().command;
    kigi_testkit::standalone::serve(&script, port, &mut std::io::stdout()).await
}
