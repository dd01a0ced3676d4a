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
    /// The model: a `[models.<alias>]` name or, with a base URL, a model id (env KIGI_MODEL).
    #[arg(long, global = true)]
    model: Option<String>,
    /// The endpoint, e.g. http://127.0.0.1:11434/v1 (env KIGI_BASE_URL; config
    /// `[endpoints] api_base_url`). There is no default.
    #[arg(long, global = true)]
    base_url: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List, show, validate and create agent definitions.
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// Configured models and the one a run here would use.
    Models {
        #[command(subcommand)]
        command: Option<ModelsCommand>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serve a script file (YAML or JSON) as a model on 127.0.0.1, until Ctrl-C.
    MockModel {
        #[arg(long)]
        script: PathBuf,
        /// 0 picks a free port.
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
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
enum ModelsCommand {
    /// Send one short request to the chosen model and print the answer and usage.
    Ping,
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
    let model_flags = kigi_model::ModelFlags {
        model: cli.model,
        base_url: cli.base_url,
    };
    let result = match cli.command {
        Command::Models {
            command: None,
            json,
        } => commands::models::list(&model_flags, json),
        Command::Models {
            command: Some(ModelsCommand::Ping),
            ..
        } => commands::models::ping(&model_flags),
        Command::MockModel { script, port } => commands::models::mock_model(&script, port),
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
