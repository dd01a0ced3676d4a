//! The `kigi` binary: flags and subcommands. Logic lives in the library crates; this crate
//! parses arguments, calls them, and prints.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod commands;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// kigi: a terminal coding agent for multi-agent work.
#[derive(Debug, Parser)]
#[command(name = "kigi", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List, show, validate and create agent definitions.
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// Trust a folder (default: this project) so its agents may start hooks and MCP servers.
    Trust {
        /// The folder to trust; default: the project root around the working directory.
        path: Option<PathBuf>,
        /// Stop trusting the folder instead.
        #[arg(long, conflicts_with = "list")]
        revoke: bool,
        /// List the trusted folders.
        #[arg(long)]
        list: bool,
    },
}

#[derive(Debug, Subcommand)]
enum AgentsCommand {
    /// Every agent visible here: name, scope, source, description, and shadowed definitions.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// One agent's resolved definition.
    Show {
        name: String,
        /// Also print the fully rendered system prompt.
        #[arg(long)]
        prompt: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check agent files (default: every agent directory kigi reads from here).
    Validate {
        paths: Vec<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write a commented starter definition (never overwrites).
    New {
        name: String,
        /// In $KIGI_HOME/agents/ instead of this project's .kigi/agents/.
        #[arg(long)]
        user: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Agents(AgentsCommand::List { json }) => commands::agents::list(json),
        Command::Agents(AgentsCommand::Show { name, prompt, json }) => {
            commands::agents::show(&name, prompt, json)
        }
        Command::Agents(AgentsCommand::Validate { paths, json }) => {
            commands::agents::validate(&paths, json)
        }
        Command::Agents(AgentsCommand::New { name, user }) => commands::agents::new(&name, user),
        Command::Trust { path, revoke, list } => commands::trust::run(path, revoke, list),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("kigi: {err:#}");
            ExitCode::FAILURE
        }
    }
}
