//! Named TOML entries gathered from several places, highest priority first: inline tables in
//! `config.toml`, `.kigi/<kind>/*.toml` in the project, `$KIGI_HOME/<kind>/*.toml`, and the
//! set bundled with kigi. Personas and roles are both read this way.
//!
//! The rule: a file's name is its entry's name, checked like an agent name; a bad file is
//! skipped with a diagnostic naming it, and the others still load.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::agent_name::strict_name_problem;
use crate::bounded_read::{FILE_CAP_BYTES, read_bounded};
use crate::diagnostic::Diagnostic;
use crate::paths::KigiPaths;
use crate::project::ProjectLayout;

/// Where an entry came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "scope", rename_all = "snake_case")]
pub enum OverlaySource {
    /// `[subagents.<kind>.<name>]` in `config.toml`.
    Config {
        path: PathBuf,
    },
    Project {
        path: PathBuf,
    },
    User {
        path: PathBuf,
    },
    Bundled,
}

impl OverlaySource {
    /// `config`, `project`, `user` or `built-in`, and the file when there is one.
    pub fn describe(&self) -> String {
        match self {
            Self::Config { path } => format!("config ({})", path.display()),
            Self::Project { path } => format!("project ({})", path.display()),
            Self::User { path } => format!("user ({})", path.display()),
            Self::Bundled => "built-in".to_owned(),
        }
    }

    /// The folder relative file references resolve against, and whether they must stay in
    /// it (a project's files are untrusted: they may not point outside the project).
    pub fn base(&self, layout: &ProjectLayout, paths: &KigiPaths) -> (PathBuf, bool) {
        match self {
            Self::Project { .. } => (layout.root.clone(), true),
            // `prompt_file = ".kigi/prompts/x.md"` in config.toml means the project's file.
            Self::Config { .. } => (layout.root.clone(), false),
            Self::User { .. } | Self::Bundled => (paths.kigi_home.clone(), false),
        }
    }
}

/// One entry, typed.
#[derive(Debug, Clone)]
pub struct OverlayEntry<T> {
    pub name: String,
    pub value: T,
    pub source: OverlaySource,
    /// Lower-priority entries of the same name.
    pub shadows: Vec<OverlaySource>,
}

/// Every entry of one kind visible from a folder, and the means to read the files they name.
#[derive(Debug, Clone)]
pub struct OverlaySet<T> {
    pub entries: BTreeMap<String, OverlayEntry<T>>,
    pub diagnostics: Vec<Diagnostic>,
    /// Entries switched off in `config.toml` (`[subagents.persona_toggle]` for personas):
    /// still listed, never applied.
    pub switched_off: BTreeSet<String>,
    layout: ProjectLayout,
    paths: KigiPaths,
}

impl<T: DeserializeOwned> OverlaySet<T> {
    /// Gathers the entries of `kind` for `cwd`.
    pub(crate) fn gather_set(
        kind: &str,
        inline: &toml::Table,
        paths: &KigiPaths,
        cwd: &Path,
        bundled: &[(&str, &str)],
    ) -> Self {
        let layout = ProjectLayout::locate(cwd);
        let mut diagnostics = Vec::new();
        let entries = gather(kind, inline, paths, &layout, bundled, &mut diagnostics);
        Self {
            entries,
            diagnostics,
            switched_off: BTreeSet::new(),
            layout,
            paths: paths.clone(),
        }
    }
}

impl<T> OverlaySet<T> {
    pub fn get(&self, name: &str) -> Option<&OverlayEntry<T>> {
        self.entries.get(name)
    }

    /// Where entry `name` came from.
    pub fn source(&self, name: &str) -> Option<&OverlaySource> {
        self.get(name).map(|e| &e.source)
    }

    /// Reads `file` as entry `name` names it (a project entry may only read project files).
    pub(crate) fn read(&self, name: &str, file: &str) -> Result<String, String> {
        let entry = self
            .get(name)
            .ok_or_else(|| format!("`{name}` not found"))?;
        read_referenced(file, &entry.source, &self.layout, &self.paths)
    }
}

/// Gathers entries of `kind` (`personas`, `roles`).
pub fn gather<T: DeserializeOwned>(
    kind: &str,
    inline: &toml::Table,
    paths: &KigiPaths,
    layout: &ProjectLayout,
    bundled: &[(&str, &str)],
    diagnostics: &mut Vec<Diagnostic>,
) -> BTreeMap<String, OverlayEntry<T>> {
    let mut entries: BTreeMap<String, OverlayEntry<T>> = BTreeMap::new();
    let mut add = |name: String, value: T, source: OverlaySource| match entries.get_mut(&name) {
        Some(existing) => existing.shadows.push(source),
        None => {
            entries.insert(
                name.clone(),
                OverlayEntry {
                    name,
                    value,
                    source,
                    shadows: Vec::new(),
                },
            );
        }
    };
    let config_file = paths.config_file();
    for (name, table) in inline {
        let source = OverlaySource::Config {
            path: config_file.clone(),
        };
        match table.clone().try_into::<T>() {
            Ok(value) => add(name.clone(), value, source),
            Err(e) => diagnostics.push(Diagnostic::error(
                Some(config_file.clone()),
                format!("[subagents.{kind}.{name}]: {}", e.to_string().trim()),
            )),
        }
    }
    let project_dir = layout.root.join(".kigi").join(kind);
    let user_dir = paths.kigi_home.join(kind);
    for (dir, project) in [(project_dir, true), (user_dir, false)] {
        for (name, path) in toml_files(&dir) {
            if let Some(problem) = strict_name_problem(&name) {
                diagnostics.push(Diagnostic::error(
                    Some(path),
                    format!("file name is not a valid {kind} name: {problem}"),
                ));
                continue;
            }
            let parsed = read_bounded(&path, FILE_CAP_BYTES)
                .map_err(|e| e.detail())
                .and_then(|text| {
                    toml::from_str::<T>(&text).map_err(|e| e.to_string().trim().to_owned())
                });
            match parsed {
                Ok(value) => {
                    let source = if project {
                        OverlaySource::Project { path }
                    } else {
                        OverlaySource::User { path }
                    };
                    add(name, value, source);
                }
                Err(message) => diagnostics.push(Diagnostic::error(Some(path), message)),
            }
        }
    }
    for (name, text) in bundled {
        if let Ok(value) = toml::from_str::<T>(text) {
            add((*name).to_owned(), value, OverlaySource::Bundled);
        }
    }
    entries
}

/// `*.toml` files of `dir`, by name.
fn toml_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        // Not `is_file`: a FIFO or device named `x.toml` gets a diagnostic, not silence.
        .filter(|p| p.extension().is_some_and(|x| x == "toml") && !p.is_dir())
        .filter_map(|p| Some((p.file_stem()?.to_str()?.to_owned(), p)))
        .collect();
    files.sort();
    files
}

/// Reads a file an entry names, relative to its base; a project's entry may not reach
/// outside the project.
pub fn read_referenced(
    file: &str,
    source: &OverlaySource,
    layout: &ProjectLayout,
    paths: &KigiPaths,
) -> Result<String, String> {
    let (base, contained) = source.base(layout, paths);
    let path = if Path::new(file).is_absolute() {
        PathBuf::from(file)
    } else {
        base.join(file)
    };
    let resolved = path
        .canonicalize()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if contained {
        let root = base
            .canonicalize()
            .map_err(|e| format!("{}: {e}", base.display()))?;
        if !resolved.starts_with(&root) {
            return Err(format!(
                "{file}: a project file may only name files inside the project ({})",
                root.display()
            ));
        }
    }
    read_bounded(&resolved, FILE_CAP_BYTES).map_err(|e| e.to_string())
}
