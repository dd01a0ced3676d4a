//! `kigi mcp list|get|add|remove`: the MCP servers a session here starts, each connected to
//! tell its status and tools; and editing the user's or the project's entries.

use std::process::ExitCode;

use anyhow::Context;
use kigi_agent::{KigiPaths, ProjectLayout, session_mcp_servers};
use kigi_core::mcp_session::SessionMcp;
use kigi_mcp::{McpServerConfig, McpServerEntry, McpServerStatus, McpSource, McpTransport};
use serde_json::json;

use super::mcp_config_edit::{with_server, without_server};
use crate::terminal_text::safe_for_terminal;

/// Where `add` and `remove` write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum McpScope {
    /// `$KIGI_HOME/config.toml`.
    User,
    /// This project's `.kigi/mcp.toml`.
    Project,
}

/// The entries a session here would start (the default agent's own aside).
fn entries() -> anyhow::Result<Vec<McpServerEntry>> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let host = super::session_host()?;
    let layout = ProjectLayout::locate(&cwd);
    let trusted = host.discovery().trust.is_trusted(&layout.root);
    let (entries, notes) =
        session_mcp_servers(host.user_mcp_servers(), &layout.root, trusted, None)?;
    for note in notes {
        errln!("kigi: {}", safe_for_terminal(&note));
    }
    Ok(entries)
}

fn source_name(source: McpSource) -> &'static str {
    match source {
        McpSource::User => "user",
        McpSource::Project => "project",
        McpSource::Agent => "agent",
    }
}

fn status_text(status: &McpServerStatus) -> String {
    match status {
        McpServerStatus::Ready { tools } => format!("ready, {tools} tool(s)"),
        McpServerStatus::Failed { reason, .. } => format!("failed: {reason}"),
        McpServerStatus::NeedsTrust => "needs trust (run `kigi trust`)".to_owned(),
        McpServerStatus::Disabled => "disabled".to_owned(),
        McpServerStatus::Starting => "still starting".to_owned(),
    }
}

pub fn list(json: bool) -> anyhow::Result<ExitCode> {
    let entries = entries()?;
    let runtime = super::runtime()?;
    let statuses = runtime.block_on(async {
        let env = |name: &str| std::env::var(name).ok();
        let Some(mcp) = SessionMcp::start(entries.clone(), &env) else {
            return Vec::new();
        };
        mcp.current().await;
        let statuses = mcp.statuses().await;
        mcp.shutdown().await;
        statuses
    });
    if json {
        let listed: Vec<_> = entries
            .iter()
            .zip(&statuses)
            .map(|(entry, (_, status))| {
                json!({
                    "name": entry.name,
                    "source": source_name(entry.source),
                    "transport": entry.config.transport_name(),
                    "status": status_text(status),
                    "tools": match status { McpServerStatus::Ready { tools } => Some(*tools), _ => None },
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({ "servers": listed }))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if entries.is_empty() {
        outln!("No MCP servers configured (add one with `kigi mcp add NAME -- COMMAND ARGS…`).");
    }
    for (entry, (_, status)) in entries.iter().zip(&statuses) {
        outln!(
            "  {:<20} {:<8} {:<6} {}",
            safe_for_terminal(&entry.name),
            source_name(entry.source),
            entry.config.transport_name(),
            safe_for_terminal(&status_text(status))
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn get(name: &str, json: bool) -> anyhow::Result<ExitCode> {
    let entry = entries()?
        .into_iter()
        .find(|e| e.name == name)
        .with_context(|| format!("no MCP server named `{name}` is configured here"))?;
    let runtime = super::runtime()?;
    let described = runtime.block_on(async {
        let env = |var: &str| std::env::var(var).ok();
        let mcp = SessionMcp::start(vec![entry.clone()], &env).context("no server to start")?;
        let (tools, _) = mcp.current().await;
        let status = mcp.statuses().await.into_iter().next().map(|(_, s)| s);
        let mut resources = Vec::new();
        let mut prompts = Vec::new();
        if let Some(connection) = mcp.connection(name).await {
            resources = connection.list_resources().await.unwrap_or_default();
            prompts = connection.list_prompts().await.unwrap_or_default();
        }
        mcp.shutdown().await;
        anyhow::Ok((status, tools, resources, prompts))
    })?;
    let (status, tools, resources, prompts) = described;
    let status = status.map(|s| status_text(&s)).unwrap_or_default();
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "name": name,
                "status": status,
                "tools": tools.iter().map(|t| json!({"name": t.name(), "kind": t.kind(), "read_only": t.read_only(), "description": t.description()})).collect::<Vec<_>>(),
                "resources": resources.iter().map(|r| json!({"uri": r.uri, "name": r.name})).collect::<Vec<_>>(),
                "prompts": prompts.iter().map(|p| json!({"name": p.name, "arguments": p.arguments})).collect::<Vec<_>>(),
            }))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{name}: {}", safe_for_terminal(&status));
    for tool in &tools {
        let access = if tool.read_only() {
            "read-only"
        } else {
            "changes things"
        };
        outln!("  tool {}  ({:?}, {access})", tool.name(), tool.kind());
    }
    for resource in &resources {
        outln!(
            "  resource {}  ({})",
            safe_for_terminal(&resource.uri),
            safe_for_terminal(&resource.name)
        );
    }
    for prompt in &prompts {
        outln!(
            "  prompt {}  ({})",
            safe_for_terminal(&prompt.name),
            prompt.arguments.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What `kigi mcp add` was told.
#[derive(Debug, Clone)]
pub struct AddArgs {
    pub name: String,
    pub scope: McpScope,
    /// `http`, or stdio when `None`.
    pub http: bool,
    pub env: Vec<String>,
    pub headers: Vec<String>,
    /// The command and its arguments (stdio), or the URL (http).
    pub target: Vec<String>,
}

fn scope_file(scope: McpScope) -> anyhow::Result<std::path::PathBuf> {
    Ok(match scope {
        McpScope::User => KigiPaths::from_env().config_file(),
        McpScope::Project => {
            let cwd = std::env::current_dir().context("cannot read the working directory")?;
            ProjectLayout::locate(&cwd).mcp_toml()
        }
    })
}

fn pairs(items: &[String], separator: char, flag: &str) -> anyhow::Result<Vec<(String, String)>> {
    items
        .iter()
        .map(|item| {
            item.split_once(separator)
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .with_context(|| format!("{flag} `{item}`: expected KEY{separator}VALUE"))
        })
        .collect()
}

pub fn add(args: AddArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        kigi_mcp::sanitize_name_part(&args.name) == args.name && !args.name.is_empty(),
        "`{}` cannot name an MCP server: use letters, digits, `_` and `-`",
        args.name
    );
    let config = if args.http {
        let [url] = args.target.as_slice() else {
            anyhow::bail!("--transport http takes one URL after the name");
        };
        let mut config = McpServerConfig::http(url.clone());
        if let McpTransport::Http { headers, .. } = &mut config.transport {
            headers.extend(pairs(&args.headers, ':', "--header")?);
        }
        config
    } else {
        let Some((command, rest)) = args.target.split_first() else {
            anyhow::bail!(
                "give the server's command after `--`: kigi mcp add NAME -- COMMAND ARGS…"
            );
        };
        let mut config = McpServerConfig::stdio(command.clone(), rest.to_vec());
        if let McpTransport::Stdio { env, .. } = &mut config.transport {
            env.extend(pairs(&args.env, '=', "--env")?);
        }
        config
    };
    let file = scope_file(args.scope)?;
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", file.display())),
    };
    let updated =
        with_server(&text, &args.name, &config).with_context(|| file.display().to_string())?;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(&file, updated).with_context(|| format!("cannot write {}", file.display()))?;
    outln!("added MCP server `{}` to {}", args.name, file.display());
    Ok(ExitCode::SUCCESS)
}

pub fn remove(name: &str, scope: McpScope) -> anyhow::Result<ExitCode> {
    let file = scope_file(scope)?;
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let Some(updated) = without_server(&text, name) else {
        anyhow::bail!("{} has no MCP server `{name}`", file.display());
    };
    std::fs::write(&file, updated).with_context(|| format!("cannot write {}", file.display()))?;
    outln!("removed MCP server `{name}` from {}", file.display());
    Ok(ExitCode::SUCCESS)
}
