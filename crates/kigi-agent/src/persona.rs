//! Personas: a behavioural overlay for a subagent (tone, focus, output contract), injected
//! into the child's conversation as a `<system-reminder>`. Gathered from `config.toml`,
//! `.kigi/personas/`, `$KIGI_HOME/personas/` and the bundled set, in that priority.
//!
//! The rule: a persona that cannot be resolved (missing, no instructions, unreadable
//! `instructions_file`) fails the spawn; it never silently applies half.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::overlay::OverlaySet;
use crate::paths::KigiPaths;
use crate::subagents_config::SubagentsConfig;

/// Personas bundled with kigi.
const BUNDLED: &[(&str, &str)] = &[
    ("concise", include_str!("../personas/concise.toml")),
    ("researcher", include_str!("../personas/researcher.toml")),
    ("reviewer", include_str!("../personas/reviewer.toml")),
];

/// One declared input or output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IoContract {
    pub name: String,
    #[serde(default = "file_type")]
    pub io_type: String,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub description: String,
}

fn file_type() -> String {
    "file".to_owned()
}

/// A persona as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persona {
    #[serde(default)]
    pub description: String,
    pub instructions: Option<String>,
    /// Read at spawn time and added after `instructions`.
    pub instructions_file: Option<String>,
    #[serde(default)]
    pub inputs: Vec<IoContract>,
    #[serde(default)]
    pub outputs: Vec<IoContract>,
    pub model: Option<String>,
    pub reasoning_effort: Option<String>,
    pub default_isolation: Option<String>,
}

impl Persona {
    /// The first non-blank line of the inline instructions (empty when there are none).
    fn fallback_description(&self) -> String {
        self.instructions
            .as_deref()
            .and_then(|text| text.lines().map(str::trim).find(|l| !l.is_empty()))
            .unwrap_or_default()
            .to_owned()
    }
}

/// Every persona visible from a folder.
pub type PersonaSet = OverlaySet<Persona>;

impl OverlaySet<Persona> {
    /// Gathers the personas for `cwd`.
    /// A persona without a `description` is described by the first line of its inline
    /// instructions, so listings never show a blank.
    /// The personas `[subagents.persona_toggle]` switches off stay listed (so they can be
    /// switched on again) but are never applied: [`Self::instructions`] refuses them.
    pub fn discover(config: &SubagentsConfig, paths: &KigiPaths, cwd: &Path) -> Self {
        let mut set = Self::gather_set("personas", &config.personas, paths, cwd, BUNDLED);
        for entry in set.entries.values_mut() {
            if entry.value.description.trim().is_empty() {
                entry.value.description = entry.value.fallback_description();
            }
        }
        set.switched_off = config
            .persona_toggle
            .keys()
            .filter(|name| !config.persona_enabled(name))
            .cloned()
            .collect();
        set
    }

    /// Switches persona `name` on or off in this set (a session's choice over the file's).
    pub fn switch(&mut self, name: &str, on: bool) {
        if on {
            self.switched_off.remove(name);
        } else {
            self.switched_off.insert(name.to_owned());
        }
    }

    /// Whether `[subagents.persona_toggle]` switched persona `name` off.
    pub fn is_switched_off(&self, name: &str) -> bool {
        self.switched_off.contains(name)
    }

    /// The persona's full instructions (inline, then the file) for a spawn, or why it cannot
    /// be used (a persona switched off cannot).
    pub fn instructions(&self, name: &str) -> Result<String, String> {
        if self.is_switched_off(name) && self.get(name).is_some() {
            return Err(format!(
                "persona `{name}` is switched off ([subagents.persona_toggle] in config.toml)"
            ));
        }
        self.instructions_text(name)
    }

    /// The persona's full instructions whether or not it is switched off (what a listing
    /// shows), or why they cannot be read.
    pub fn instructions_text(&self, name: &str) -> Result<String, String> {
        let entry = self.get(name).ok_or_else(|| {
            let names: Vec<&str> = self.entries.keys().map(String::as_str).collect();
            format!(
                "persona `{name}` not found; available: {}",
                names.join(", ")
            )
        })?;
        let mut parts = Vec::new();
        if let Some(text) = entry
            .value
            .instructions
            .as_deref()
            .filter(|t| !t.trim().is_empty())
        {
            parts.push(text.trim().to_owned());
        }
        if let Some(file) = &entry.value.instructions_file {
            let text = self
                .read(name, file)
                .map_err(|e| format!("persona `{name}`: instructions_file {e}"))?;
            parts.push(text.trim().to_owned());
        }
        if parts.is_empty() {
            return Err(format!(
                "persona `{name}` has no instructions ({})",
                entry.source.describe()
            ));
        }
        let mut text = parts.join("\n\n");
        for (label, contracts) in [
            ("Inputs", &entry.value.inputs),
            ("Outputs", &entry.value.outputs),
        ] {
            if contracts.is_empty() {
                continue;
            }
            text.push_str(&format!("\n\n{label}:"));
            for c in contracts {
                let need = if c.required { "required" } else { "optional" };
                text.push_str(&format!(
                    "\n- {} ({}, {need}): {}",
                    c.name, c.io_type, c.description
                ));
            }
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(config: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, PersonaSet) {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        for (rel, text) in files {
            let path = repo.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let config: crate::Config = toml::from_str(config).unwrap();
        let paths = KigiPaths::new(tmp.path().join("home"), None);
        let set = PersonaSet::discover(&config.subagents, &paths, &repo);
        (tmp, set)
    }

    #[test]
    fn config_beats_project_beats_bundled() {
        let (_tmp, set) = set(
            "[subagents.personas.concise]\ninstructions = \"from config\"\n",
            &[
                (
                    ".kigi/personas/concise.toml",
                    "instructions = \"from project\"\n",
                ),
                (".kigi/personas/mine.toml", "instructions = \"mine\"\n"),
            ],
        );
        assert_eq!(set.instructions("concise").unwrap(), "from config");
        assert_eq!(set.get("concise").unwrap().shadows.len(), 2);
        assert_eq!(set.instructions("mine").unwrap(), "mine");
        assert!(
            set.instructions("reviewer")
                .unwrap()
                .contains("Inputs:\n- review_target (file, required)")
        );
    }

    #[test]
    fn a_persona_switched_off_is_listed_but_refused_for_a_spawn() {
        let (_tmp, set) = set(
            "[subagents.persona_toggle]\nconcise = false\nreviewer = true\nghost = false\n",
            &[],
        );
        assert!(set.get("concise").is_some(), "still listed");
        assert!(set.is_switched_off("concise") && !set.is_switched_off("reviewer"));
        assert_eq!(
            set.instructions("concise").unwrap_err(),
            "persona `concise` is switched off ([subagents.persona_toggle] in config.toml)"
        );
        assert!(
            set.instructions_text("concise")
                .unwrap()
                .starts_with("Be concise.")
        );
        assert!(set.instructions("reviewer").is_ok());
        // A switch of a persona nothing defines says it is not found, not that it is off.
        assert!(
            set.instructions("ghost")
                .unwrap_err()
                .starts_with("persona `ghost` not found")
        );
    }

    #[test]
    fn a_persona_without_description_shows_the_first_line_of_its_instructions() {
        let (_tmp, set) = set(
            "[subagents.personas.terse]\ninstructions = \"\\n  Answer in one sentence.\\nNo preamble.\"\n",
            &[(
                ".kigi/personas/described.toml",
                "description = \"Mine\"\ninstructions = \"Do it.\"\n",
            )],
        );
        assert_eq!(
            set.get("terse").unwrap().value.description,
            "Answer in one sentence."
        );
        assert_eq!(set.get("described").unwrap().value.description, "Mine");
    }

    #[test]
    fn unresolvable_personas_say_why() {
        let (_tmp, set) = set(
            "[subagents.personas.empty]\ndescription = \"nothing\"\n[subagents.personas.gone]\ninstructions_file = \"missing.md\"\n",
            &[
                (
                    ".kigi/personas/escape.toml",
                    "instructions_file = \"../../../etc/hostname\"\n",
                ),
                (".kigi/personas/bad.toml", "instructons = 1\n"),
            ],
        );
        assert!(
            set.instructions("nobody")
                .unwrap_err()
                .starts_with("persona `nobody` not found")
        );
        assert!(
            set.instructions("empty")
                .unwrap_err()
                .contains("has no instructions")
        );
        assert!(
            set.instructions("gone")
                .unwrap_err()
                .contains("instructions_file")
        );
        let escape = set.instructions("escape").unwrap_err();
        assert!(
            escape.contains("only name files inside the project")
                || escape.contains("No such file"),
            "{escape}"
        );
        assert_eq!(set.diagnostics.len(), 1);
        assert!(
            set.diagnostics[0].to_string().contains("bad.toml"),
            "{}",
            set.diagnostics[0]
        );
    }
}
