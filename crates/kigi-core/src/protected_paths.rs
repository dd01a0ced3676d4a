//! The files kigi reads for its own instructions: agent definitions, settings, `AGENTS.md`,
//! MCP configs, and everything under `$KIGI_HOME`. An agent that could write them could change
//! what the next run trusts (its prompt, its permission mode, its hooks), so writing one always
//! needs a person's approval, whatever the permission mode. Pure: a function of the resolved
//! path.

use std::path::Path;

/// Agent folders of the harnesses whose files kigi loads: `<dir>/<sub>/…`.
const AGENT_DIRS: [(&str, &str); 5] = [
    (".claude", "agents"),
    (".agents", "agents"),
    (".gemini", "agents"),
    (".opencode", "agent"),
    (".opencode", "agents"),
];

/// Instruction files by name, wherever they are.
const INSTRUCTION_FILES: [&str; 3] = ["agents.md", "claude.md", ".mcp.json"];

/// What `resolved` is, when it is one of kigi's instruction files; `None` otherwise.
pub fn protected_reason(resolved: &Path, kigi_home: Option<&Path>) -> Option<&'static str> {
    // Children's worktrees live under `$KIGI_HOME/worktrees/<session>/<child>/`: each is a
    // checkout of the project, judged by the rules below from its own root.
    let mut inside = resolved;
    if let Some(home) = kigi_home {
        match resolved.strip_prefix(home.join("worktrees")) {
            Ok(rest) => inside = rest,
            Err(_) if resolved.starts_with(home) => {
                return Some("kigi's own configuration folder");
            }
            Err(_) => {}
        }
    }
    let names: Vec<String> = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_lowercase())
        .collect();
    if names.iter().any(|n| n == ".kigi") {
        return Some("a .kigi folder (agents, personas, roles, settings)");
    }
    let agents_dir = names.windows(2).any(|pair| {
        AGENT_DIRS
            .iter()
            .any(|(dir, sub)| pair[0] == *dir && pair[1] == *sub)
    });
    if agents_dir {
        return Some("an agent definitions folder");
    }
    let claude_settings = names.windows(2).any(|pair| {
        pair[0] == ".claude" && pair[1].starts_with("settings") && pair[1].ends_with(".json")
    });
    if claude_settings {
        return Some("Claude Code settings");
    }
    match names.last() {
        Some(name) if INSTRUCTION_FILES.contains(&name.as_str()) => {
            Some("a project instructions file")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_files_and_folders_are_protected_and_ordinary_files_are_not() {
        let home = Path::new("/home/u/.kigi");
        let protected = [
            "/repo/.kigi/agents/kigi.md",
            "/repo/.kigi/settings.toml",
            "/repo/.claude/agents/x.md",
            "/repo/.claude/settings.local.json",
            "/repo/sub/.opencode/agent/y.md",
            "/repo/AGENTS.md",
            "/repo/docs/Claude.md",
            "/repo/.mcp.json",
            "/home/u/.kigi/config.toml",
            "/home/u/.kigi/trusted_folders.toml",
            "/home/u/.kigi/worktrees/s1/sub-1/.kigi/agents/kigi.md",
        ];
        for path in protected {
            assert!(
                protected_reason(Path::new(path), Some(home)).is_some(),
                "{path} should be protected"
            );
        }
        let ordinary = [
            "/repo/src/lib.rs",
            "/repo/.claude/commands/x.md",
            "/repo/agents/notes.md",
            "/repo/kigi.md",
            "/home/u/.kigi/worktrees/s1/sub-1/src/lib.rs",
        ];
        for path in ordinary {
            assert_eq!(
                protected_reason(Path::new(path), Some(home)),
                None,
                "{path} should not be protected"
            );
        }
    }
}
