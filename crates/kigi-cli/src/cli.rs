//! Flags and subcommands, shared by both binaries. Logic lives in the library crates; this
//! module parses arguments, calls them, and prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::commands;
use crate::error_chain;
use crate::front_ends::FrontEnds;

/// kigi: a terminal coding agent for multi-agent work.
#[derive(Debug, Parser)]
#[command(
    name = "kigi",
    version,
    about = "kigi: a terminal coding agent that reads, edits and runs code in this folder, and hands focused work to subagents",
    long_about = None
)]
struct Cli {
    /// The model: a `[models.<alias>]` name or, with a base URL, a model id (env KIGI_MODEL).
    #[arg(long, global = true)]
    model: Option<String>,
    /// The endpoint, e.g. http://127.0.0.1:11434/v1 (env KIGI_BASE_URL; config
    /// `[endpoints] api_base_url`). There is no default.
    #[arg(long, global = true)]
    base_url: Option<String>,
    /// Run one headless turn with this prompt and print the answer. Without PROMPT, or with
    /// `-`, the prompt is read from stdin; text piped in with a PROMPT is appended to it.
    #[arg(short = 'p', long = "print", value_name = "PROMPT", num_args = 0..=1)]
    print: Option<Option<String>>,
    /// With -p: text (answer on stdout, progress on stderr; the default), json (one object)
    /// or stream-json (one event per line).
    #[arg(long, value_enum)]
    output_format: Option<commands::progress::OutputFormat>,
    /// The agent to run (default: kigi).
    #[arg(long, conflicts_with = "agent_file")]
    agent: Option<String>,
    /// An agent definition file to run.
    #[arg(long, value_name = "PATH")]
    agent_file: Option<PathBuf>,
    /// default, acceptEdits, plan, dontAsk or bypassPermissions (Claude Code's meanings);
    /// overrides the agent's. Nothing waits for approval in print mode: what the mode does
    /// not allow is refused.
    #[arg(long, value_parser = parse_permission_mode)]
    permission_mode: Option<kigi_agent::PermissionMode>,
    /// Rules for calls that run without asking, in Claude Code's syntax: "Bash(cargo test:*)",
    /// "Edit(src/**)", Read, mcp__server__*. Repeat the flag, or separate rules with commas
    /// or spaces.
    #[arg(
        long = "allowedTools",
        visible_alias = "allowed-tools",
        value_name = "RULES",
        global = true
    )]
    allowed_tools: Vec<String>,
    /// Rules for calls that never run (same syntax); they win over every allow rule.
    #[arg(
        long = "disallowedTools",
        visible_alias = "disallowed-tools",
        value_name = "RULES",
        global = true
    )]
    disallowed_tools: Vec<String>,
    /// How shell commands are confined: read-only, workspace-write (writes only below this
    /// folder and the temp dir, no network) or danger-full-access; overrides `[sandbox] mode`.
    #[arg(long, value_name = "MODE", value_parser = parse_sandbox_mode, global = true)]
    sandbox: Option<kigi_tools::sandbox::SandboxMode>,
    /// Carry on session ID.
    #[arg(long, value_name = "ID", conflicts_with = "continue_last")]
    resume: Option<String>,
    /// Carry on the session used last in this folder.
    #[arg(long = "continue")]
    continue_last: bool,
    /// With no model endpoint configured, run the offline demo on the bundled scripted model
    /// instead of failing (and say so).
    #[arg(long)]
    or_demo: bool,
    /// Do not wait for background subagents still running when the answer is ready: they are
    /// cancelled (and their transcripts say so). By default `-p` waits for them.
    #[arg(long)]
    no_wait: bool,
    /// Open the interactive terminal and send this first prompt (without -p).
    #[arg(value_name = "PROMPT")]
    prompt: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

fn parse_permission_mode(value: &str) -> Result<kigi_agent::PermissionMode, String> {
    kigi_agent::PermissionMode::parse(value).ok_or_else(|| {
        format!(
            "unknown permission mode `{value}` (expected default, acceptEdits, plan, dontAsk or bypassPermissions)"
        )
    })
}

fn parse_sandbox_mode(value: &str) -> Result<kigi_tools::sandbox::SandboxMode, String> {
    kigi_tools::sandbox::SandboxMode::parse(value).map_err(|e| e.to_string())
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the Agent Client Protocol on stdin/stdout for editors (Zed, JetBrains, Neovim):
    /// every editor session is a kigi session in the folder the editor names.
    Acp,
    /// List, show, validate and create agent definitions.
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// The effective configuration: every value with where it came from (file and line,
    /// environment, flag, default), then warnings. Never prints a secret.
    Config {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A real session in this folder on the bundled scripted model (no API key needed). Its
    /// answers are scripted: it takes the same steps whatever the prompt says.
    Demo {
        /// Sent as the user's message, but the scripted model ignores it.
        prompt: Option<String>,
        /// text (the default), json or stream-json, as with -p.
        #[arg(long, value_enum)]
        output_format: Option<commands::progress::OutputFormat>,
    },
    /// Personas a subagent can take on, with their sources.
    Personas {
        #[command(subcommand)]
        command: OverlayCommand,
    },
    /// Roles (subagent types defined in TOML), with their sources.
    Roles {
        #[command(subcommand)]
        command: OverlayCommand,
    },
    /// Print a shell completion script: `kigi completions bash > ~/.local/share/bash-completion/completions/kigi`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Branches and worktrees of subagents that ran with `isolation: worktree`.
    #[command(subcommand)]
    Worktree(WorktreeCommand),
    /// Run one prompt template over the items of a file, one subagent per item (no main agent).
    Swarm(commands::swarm::SwarmOptions),
    /// Ask the model to survey this repository and write its AGENTS.md (read-only survey;
    /// kigi writes the file, never over an existing one without --force).
    Init(commands::init::InitOptions),
    /// Sessions on disk.
    #[command(subcommand)]
    Sessions(SessionsCommand),
    /// Configured models and the one a run here would use.
    Models {
        #[command(subcommand)]
        command: Option<ModelsCommand>,
        /// Print JSON.
        #[arg(long, global = true)]
        json: bool,
    },
    /// MCP servers: list them (connected, with their status), show one's tools, add, remove.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Hooks: the user's commands at each step of every agent (Claude Code compatible).
    #[command(subcommand)]
    Hooks(HooksCommand),
    /// The permission rules a session here runs under (built in, config.toml, this project's
    /// .kigi/settings.toml, --allowedTools/--disallowedTools), each with its source.
    Permissions {
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
enum McpCommand {
    /// Every server a session here starts: source, transport, status after connecting.
    List {
        #[arg(long)]
        json: bool,
    },
    /// One server's tools (with kinds), resources and prompts.
    Get {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Add a server: `kigi mcp add NAME -- COMMAND ARGS…`, or `--transport http NAME URL`.
    Add {
        name: String,
        /// stdio (default) or http.
        #[arg(long, default_value = "stdio", value_parser = ["stdio", "http"])]
        transport: String,
        /// An environment variable for a stdio server, KEY=VALUE (repeatable).
        #[arg(long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// A header for an HTTP server, "Name: value" (repeatable).
        #[arg(long = "header", value_name = "NAME: VALUE")]
        headers: Vec<String>,
        /// user ($KIGI_HOME/config.toml) or project (.kigi/mcp.toml).
        #[arg(long, value_enum, default_value = "user")]
        scope: commands::mcp::McpScope,
        /// The command and its arguments (after `--`), or the URL.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        target: Vec<String>,
    },
    /// Remove a server from the user's or the project's file.
    Remove {
        name: String,
        #[arg(long, value_enum, default_value = "user")]
        scope: commands::mcp::McpScope,
    },
}

#[derive(Debug, Subcommand)]
enum HooksCommand {
    /// Every hook a session here runs, with its event, matcher, command and source.
    List {
        /// The agent whose inline hooks to add (default: kigi).
        #[arg(long)]
        agent: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
enum WorktreeCommand {
    /// Every subagent branch, with the files it changed.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Apply a branch's changes to this working tree (conflicts are reported, nothing lost).
    Apply { branch: String },
    /// Remove a branch and its worktree.
    Discard { branch: String },
}

#[derive(Debug, Subcommand)]
enum OverlayCommand {
    /// Every one visible here, with where it came from.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// One, resolved (instructions or prompt read now).
    Show {
        name: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

impl OverlayCommand {
    /// The name to show (`None` to list), and whether to print JSON.
    fn shown(&self) -> (Option<&str>, bool) {
        match self {
            Self::List { json } => (None, *json),
            Self::Show { name, json } => (Some(name), *json),
        }
    }
}

#[derive(Debug, Subcommand)]
enum SessionsCommand {
    /// Every session, the one used last first.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A readable transcript of one session (or, with --agent, of one of its subagents).
    Show {
        id: String,
        /// A subagent id (`sub-1`): its transcript instead of the main agent's.
        #[arg(long)]
        agent: Option<String>,
        /// Print the stored events as JSON.
        #[arg(long)]
        json: bool,
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

/// Runs kigi with the process's arguments; the terminal and `kigi acp` are reached through
/// `front_ends`.
pub fn run(front_ends: &FrontEnds) -> ExitCode {
    let cli = Cli::parse();
    let model_flags = kigi_model::ModelFlags {
        model: cli.model,
        base_url: cli.base_url,
    };
    let flag_rules =
        match kigi_agent::permissions::flag_rules(&cli.allowed_tools, &cli.disallowed_tools) {
            Ok(rules) => rules,
            Err(error) => {
                errln!("kigi: {error}");
                return ExitCode::from(2);
            }
        };
    // What a session front end (`-p`, the terminal) opens with.
    let session = commands::session_flags::SessionFlags {
        agent: cli.agent.clone(),
        agent_file: cli.agent_file.clone(),
        permission_mode: cli.permission_mode,
        resume: cli.resume.clone(),
        continue_last: cli.continue_last,
        model: model_flags.clone(),
        rules: flag_rules.clone(),
        sandbox: cli.sandbox,
    };
    let command = match (cli.command, cli.print) {
        (Some(command), None) => command,
        (None, Some(_)) if cli.prompt.is_some() => {
            errln!("kigi: a prompt goes after -p (`kigi -p \"PROMPT\"`), not beside it");
            return ExitCode::from(2);
        }
        (None, Some(prompt)) => {
            let arg = commands::prompt_input::PromptArg::from_flag(prompt);
            let prompt = match commands::prompt_input::resolve(arg) {
                Ok(prompt) => prompt,
                Err(error) => {
                    errln!("kigi: {error}");
                    return ExitCode::from(2);
                }
            };
            let args = commands::print::PrintArgs {
                prompt,
                format: cli.output_format.unwrap_or_default(),
                or_demo: cli.or_demo,
                no_wait: cli.no_wait,
                session,
            };
            return report(commands::print::run(args));
        }
        (Some(_), Some(_)) => {
            errln!("kigi: -p runs a session; it cannot be combined with a subcommand");
            return ExitCode::from(2);
        }
        (None, None) => {
            let args = commands::tui::TuiArgs {
                prompt: cli.prompt,
                session,
            };
            return report((front_ends.terminal)(args));
        }
    };
    if cli.output_format.is_some() && !matches!(command, Command::Demo { .. } | Command::Swarm(_)) {
        errln!(
            "kigi: --output-format applies to -p, demo and swarm; commands that print a list or a result take --json"
        );
        return ExitCode::from(2);
    }
    let result = match command {
        Command::Config { json } => commands::config::show(&model_flags, json),
        Command::Demo {
            prompt,
            output_format,
        } => commands::demo::run_command(
            prompt.as_deref(),
            output_format.or(cli.output_format).unwrap_or_default(),
        ),
        Command::Personas { command } => {
            let (shown, json) = command.shown();
            commands::overlays::personas(shown, json)
        }
        Command::Roles { command } => {
            let (shown, json) = command.shown();
            commands::overlays::roles(shown, json)
        }
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command, "kigi", &mut script);
            out!("{}", String::from_utf8_lossy(&script));
            Ok(ExitCode::SUCCESS)
        }
        Command::Worktree(WorktreeCommand::List { json }) => commands::worktree::list(json),
        Command::Worktree(WorktreeCommand::Apply { branch }) => commands::worktree::apply(&branch),
        Command::Worktree(WorktreeCommand::Discard { branch }) => {
            commands::worktree::discard(&branch)
        }
        Command::Swarm(options) => commands::swarm::run(
            options,
            cli.permission_mode,
            cli.output_format,
            &model_flags,
            flag_rules,
            cli.sandbox,
        ),
        Command::Init(options) => {
            commands::init::run(options, &model_flags, flag_rules, cli.sandbox)
        }
        Command::Sessions(SessionsCommand::List { json }) => commands::sessions::list(json),
        Command::Sessions(SessionsCommand::Show { id, agent, json }) => {
            commands::sessions::show(&id, agent.as_deref(), json)
        }
        Command::Models {
            command: None,
            json,
        } => commands::models::list(&model_flags, json),
        Command::Models {
            command: Some(ModelsCommand::Ping),
            json,
        } => commands::models::ping(&model_flags, json),
        Command::Mcp(McpCommand::List { json }) => commands::mcp::list(json),
        Command::Mcp(McpCommand::Get { name, json }) => commands::mcp::get(&name, json),
        Command::Mcp(McpCommand::Add {
            name,
            transport,
            env,
            headers,
            scope,
            target,
        }) => commands::mcp::add(commands::mcp::AddArgs {
            name,
            scope,
            http: transport == "http",
            env,
            headers,
            target,
        }),
        Command::Mcp(McpCommand::Remove { name, scope }) => commands::mcp::remove(&name, scope),
        Command::Hooks(HooksCommand::List { agent, json }) => {
            commands::hooks::list(agent.as_deref(), json)
        }
        Command::Permissions { json } => commands::permissions::show(&flag_rules, json),
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
        Command::Acp => (front_ends.acp)(kigi_acp::AcpOptions {
            agent: commands::acp::agent_choice(cli.agent, cli.agent_file),
            model: model_flags,
            permission_mode: cli.permission_mode,
            rules: flag_rules,
            sandbox: cli.sandbox,
        }),
    };
    report(result)
}

/// Prints a failure, and ends every process group kigi started that is still alive (a command
/// stuck past the run's wind-down, a git hook), so none outlives the process.
fn report(result: anyhow::Result<ExitCode>) -> ExitCode {
    kigi_tools::process_group::kill_all();
    match result {
        Ok(code) => code,
        Err(err) => {
            errln!("kigi: {}", error_chain::render(&err));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_swarm_flag_has_help_text() {
        let command = Cli::command();
        let swarm = command.find_subcommand("swarm").unwrap();
        let silent: Vec<String> = swarm
            .get_arguments()
            .filter(|arg| arg.get_help().is_none())
            .map(|arg| arg.get_id().to_string())
            .collect();
        assert_eq!(silent, Vec::<String>::new());
    }

    #[test]
    fn a_bare_word_is_the_terminal_prompt_unless_it_names_a_subcommand() {
        let cli = Cli::try_parse_from(["kigi", "fix the parser"]).unwrap();
        assert_eq!(cli.prompt.as_deref(), Some("fix the parser"));
        assert!(cli.command.is_none() && cli.print.is_none());
        let cli = Cli::try_parse_from(["kigi", "demo"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Demo { .. })) && cli.prompt.is_none());
        let cli = Cli::try_parse_from(["kigi", "-p", "hello"]).unwrap();
        assert_eq!(cli.print, Some(Some("hello".to_owned())));
        assert!(cli.prompt.is_none());
    }

    #[test]
    fn output_format_is_offered_only_where_it_means_something() {
        let command = Cli::command();
        let offering: Vec<&str> = command
            .get_subcommands()
            .filter(|sub| sub.get_arguments().any(|a| a.get_id() == "output_format"))
            .map(|sub| sub.get_name())
            .collect();
        assert_eq!(offering, ["demo", "swarm"]);
    }
}
