//! `$KIGI_HOME/SYSTEM.md`: the user's standing replacement for the default main agent, in every
//! launch mode (print, terminal, editors). A file without frontmatter is a legacy body: it
//! replaces only the prompt (rendered as a full template: `${{ working_directory }}`,
//! `${{ os_name }}`, `${{ tools.read_file }}` and the other variables of the base prompt), the
//! built-in's tools and settings stay. A file starting with a YAML frontmatter fence is an
//! upgraded profile: a whole agent file, always named `kigi` (`name:` may be left out).
//!
//! The rule: a missing or empty file changes nothing, and a file that does not parse never
//! becomes a prompt; it is reported with its path and the built-in runs.

use std::path::Path;

use crate::bounded_read::{FILE_CAP_BYTES, read_bounded};
use crate::builtin::DEFAULT_AGENT;
use crate::definition::AgentDefinition;
use crate::diagnostic::Diagnostic;
use crate::settings::PromptMode;

/// The file's name in `$KIGI_HOME`.
pub const SYSTEM_MD: &str = "SYSTEM.md";

/// The default main agent `base` as `$KIGI_HOME/SYSTEM.md` makes it, and what to report when
/// the file cannot be used.
pub fn apply_system_md(
    base: AgentDefinition,
    kigi_home: &Path,
) -> (AgentDefinition, Option<Diagnostic>) {
    let path = kigi_home.join(SYSTEM_MD);
    let text = match read_bounded(&path, FILE_CAP_BYTES) {
        Ok(text) => text,
        Err(e) if e.is_not_found() => return (base, None),
        Err(e) => {
            return (
                base,
                Some(Diagnostic::warning(Some(&path), None, e.detail())),
            );
        }
    };
    if text.trim().is_empty() {
        return (base, None);
    }
    let has_frontmatter = text.starts_with("---\n") || text.starts_with("---\r\n");
    if !has_frontmatter {
        let mut legacy = base;
        legacy.body = text;
        legacy.prompt_mode = PromptMode::Full;
        legacy.source = Some(path);
        return (legacy, None);
    }
    // The profile is the main agent whatever it says; a missing `name` is not an error here.
    let named = if text
        .lines()
        .skip(1)
        .take_while(|l| l.trim() != "---")
        .any(|l| l.starts_with("name:"))
    {
        text
    } else {
        let (fence, rest) = text.split_at(text.find('\n').map_or(text.len(), |i| i + 1));
        format!("{fence}name: {DEFAULT_AGENT}\n{rest}")
    };
    match AgentDefinition::parse(&named, Some(&path)) {
        Ok(mut profile) => {
            profile.name = DEFAULT_AGENT.to_owned();
            (profile, None)
        }
        Err(error) => (
            base,
            Some(Diagnostic::warning(
                Some(&path),
                None,
                format!("not used, the built-in main agent runs: {error}"),
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built_in() -> AgentDefinition {
        crate::builtin::built_in_definitions()
            .into_iter()
            .find(|d| d.name == DEFAULT_AGENT)
            .unwrap()
    }

    #[test]
    fn a_legacy_body_replaces_only_the_prompt() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join(SYSTEM_MD), "You are Pat, terse.\n").unwrap();
        let (def, problem) = apply_system_md(built_in(), home.path());
        assert!(problem.is_none());
        assert_eq!(def.name, "kigi");
        assert_eq!(def.body, "You are Pat, terse.\n");
        assert_eq!(def.prompt_mode, PromptMode::Full);
        assert_eq!(def.tools, built_in().tools);
    }

    #[test]
    fn an_upgraded_profile_is_a_whole_agent_named_kigi_and_a_broken_one_is_reported() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join(SYSTEM_MD),
            "---\ndescription: mine\npermissionMode: plan\n---\nPlan only.\n",
        )
        .unwrap();
        let (def, problem) = apply_system_md(built_in(), home.path());
        assert!(problem.is_none());
        assert_eq!(def.name, "kigi");
        assert_eq!(def.permission_mode, crate::PermissionMode::Plan);
        std::fs::write(
            home.path().join(SYSTEM_MD),
            "---\nname: [unclosed\n---\nx\n",
        )
        .unwrap();
        let (def, problem) = apply_system_md(built_in(), home.path());
        assert_eq!(
            def.body,
            built_in().body,
            "a broken file never becomes the prompt"
        );
        assert!(problem.unwrap().to_string().contains("SYSTEM.md"));
        let empty = tempfile::tempdir().unwrap();
        std::fs::write(empty.path().join(SYSTEM_MD), "  \n").unwrap();
        assert_eq!(
            apply_system_md(built_in(), empty.path()).0.body,
            built_in().body
        );
    }
}
