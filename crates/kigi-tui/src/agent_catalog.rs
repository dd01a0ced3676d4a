//! What the agents modal lists: the agent definitions discovery finds for this folder (the
//! winners, and the files shadowed or ignored as untrusted) and the personas, each with its
//! scope, source file and the definition a person reads before spawning it.
//!
//! The rule: names, descriptions, paths and prompts come from repository files; every text
//! is made printable here (control characters shown, never sent to the terminal).

use std::path::{Path, PathBuf};

use kigi_agent::{DEFAULT_AGENT, Discovery, OverlaySource, PersonaSet, Scope, ToolSelection};

/// One row of the modal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    pub name: String,
    /// `project`, `user`, `built-in`, `bundled`, …
    pub scope: String,
    /// The file, or `built-in`.
    pub source: String,
    /// The first line of its description.
    pub description: String,
    /// What it shadows, or why it is not used (`shadowed by …`, `ignored: folder not
    /// trusted`); empty when nothing is to say.
    pub note: String,
    /// The definition as the modal shows it when opened.
    pub detail: String,
    /// Whether the type may be spawned (`[subagents.toggle]`) or the persona given to a child
    /// (`[subagents.persona_toggle]`); `None` for rows that cannot be switched (the main
    /// agent, shadowed files).
    pub enabled: Option<bool>,
    /// The file a person may edit or delete; `None` for built-in agents and bundled or
    /// `config.toml` personas (read-only here).
    pub file: Option<PathBuf>,
}

/// The agents and personas visible from a folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentCatalog {
    pub agents: Vec<CatalogEntry>,
    pub personas: Vec<CatalogEntry>,
    /// Files that failed to load, and what the loaded ones warned about.
    pub diagnostics: Vec<String>,
}

/// `text` with control characters shown as `?` (a terminal must not obey them).
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() && c != '\n' { '?' } else { c })
        .collect()
}

fn first_line(text: &str) -> String {
    printable(text.lines().next().unwrap_or_default())
}

/// The definition file a person may change: any file but a built-in's.
fn editable_file(scope: Scope, source: Option<&Path>) -> Option<PathBuf> {
    match scope {
        Scope::BuiltIn => None,
        _ => source.map(Path::to_path_buf),
    }
}

/// Reads the catalog for `cwd` (the definition files and persona files).
pub fn load_catalog(discovery: &Discovery, cwd: &Path) -> AgentCatalog {
    let report = discovery.discover(cwd);
    let mut agents: Vec<CatalogEntry> = report
        .agents
        .iter()
        .map(|agent| {
            let def = &agent.definition;
            let tools = match &def.tools {
                ToolSelection::All => "all".to_owned(),
                ToolSelection::Only(list) if list.is_empty() => "none".to_owned(),
                ToolSelection::Only(list) => list.join(", "),
            };
            let mut detail = format!(
                "name:            {}\nscope:           {} ({})\ntrusted:         {}\nmodel:           {}\npermission mode: {}\ntools:           {tools}\n",
                def.name,
                agent.scope.as_str(),
                agent.origin(),
                agent.trusted,
                def.model,
                def.permission_mode.spelling(),
            );
            if !def.disallowed_tools.is_empty() {
                detail.push_str(&format!(
                    "denied tools:    {}\n",
                    def.disallowed_tools.join(", ")
                ));
            }
            if let Some(turns) = def.max_turns {
                detail.push_str(&format!("max turns:       {turns}\n"));
            }
            detail.push_str(&format!(
                "description:\n  {}\n\nprompt ({} chars):\n{}",
                def.display_description().replace('\n', "\n  "),
                def.body.len(),
                def.body.trim_end()
            ));
            CatalogEntry {
                name: printable(&def.name),
                scope: agent.scope.as_str().to_owned(),
                source: printable(&agent.origin()),
                description: first_line(&def.display_description()),
                note: if agent.trusted {
                    String::new()
                } else {
                    "folder not trusted: hooks and MCP servers dropped".to_owned()
                },
                detail: printable(&detail),
                enabled: (def.name != DEFAULT_AGENT)
                    .then(|| discovery.subagents.type_enabled(&def.name)),
                file: editable_file(agent.scope, def.source.as_deref()),
            }
        })
        .collect();
    for shadowed in &report.shadowed {
        let agent = &shadowed.agent;
        let note = if shadowed.ignored_untrusted {
            format!("ignored: folder not trusted; runs {}", shadowed.shadowed_by)
        } else {
            format!("shadowed by {}", shadowed.shadowed_by)
        };
        agents.push(CatalogEntry {
            name: printable(&agent.definition.name),
            scope: agent.scope.as_str().to_owned(),
            source: printable(&agent.origin()),
            description: first_line(&agent.definition.display_description()),
            note: printable(&note),
            detail: printable(&format!(
                "{}\n\n{note}\n\n{}",
                agent.origin(),
                agent.definition.body.trim_end()
            )),
            enabled: None,
            file: editable_file(agent.scope, agent.definition.source.as_deref()),
        });
    }
    let mut diagnostics: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| printable(&d.to_string()))
        .collect();
    let set = PersonaSet::discover(&discovery.subagents, &discovery.paths, cwd);
    let personas = set
        .entries
        .iter()
        .map(|(name, entry)| {
            let source = match entry.source {
                OverlaySource::Bundled => "bundled with kigi".to_owned(),
                _ => entry.source.describe(),
            };
            let shadows: Vec<String> = entry.shadows.iter().map(|s| s.describe()).collect();
            let instructions = set
                .instructions_text(name)
                .unwrap_or_else(|error| format!("(cannot be used: {error})"));
            let mut detail = format!(
                "name:        {name}\nsource:      {source}\ndescription: {}\n",
                entry.value.description
            );
            for (label, value) in [
                ("model", &entry.value.model),
                ("effort", &entry.value.reasoning_effort),
                ("isolation", &entry.value.default_isolation),
            ] {
                if let Some(value) = value {
                    detail.push_str(&format!("{label:<12} {value}\n"));
                }
            }
            detail.push_str(&format!("\n{}", instructions.trim_end()));
            CatalogEntry {
                name: printable(name),
                scope: match entry.source {
                    OverlaySource::Bundled => "bundled".to_owned(),
                    _ => source.split_whitespace().next().unwrap_or("").to_owned(),
                },
                source: printable(&source),
                description: first_line(&entry.value.description),
                note: if shadows.is_empty() {
                    String::new()
                } else {
                    printable(&format!("shadows {}", shadows.join(", ")))
                },
                detail: printable(&detail),
                enabled: Some(!set.is_switched_off(name)),
                file: match &entry.source {
                    OverlaySource::Project { path } | OverlaySource::User { path } => {
                        Some(path.clone())
                    }
                    OverlaySource::Config { .. } | OverlaySource::Bundled => None,
                },
            }
        })
        .collect();
    diagnostics.extend(set.diagnostics.iter().map(|d| printable(&d.to_string())));
    AgentCatalog {
        agents,
        personas,
        diagnostics,
    }
}
