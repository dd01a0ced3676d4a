//! `kigi agents validate`: checks agent files the way discovery and the builder would use
//! them, and reports every error and warning per file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::agents_md::DEFAULT_BUDGET_BYTES as AGENTS_MD_BUDGET_BYTES;
use crate::builder::AgentBuilder;
use crate::builtin::is_built_in_name;
use crate::definition::{AgentDefinition, NamePolicy, ParseOptions};
use crate::diagnostic::{Diagnostic, Severity};
use crate::discovery::{Discovery, scan_markdown};
use crate::folder_context::FolderContext;
use crate::paths::{KigiPaths, is_compat_path};
use crate::project::ProjectLayout;
use crate::template::PromptEnvironment;
use crate::trust::{gate_untrusted, shadowing_refused};

/// The [`FolderContext`] of each folder validated so far; `None` where reading it failed (each
/// file there is then built on its own, and reports the failure itself).
#[derive(Default)]
struct FolderCache(HashMap<PathBuf, Option<Arc<FolderContext>>>);

impl FolderCache {
    fn get(&mut self, paths: &KigiPaths, folder: &Path) -> Option<Arc<FolderContext>> {
        self.0
            .entry(folder.to_path_buf())
            .or_insert_with(|| {
                let layout = ProjectLayout::locate(folder);
                FolderContext::read(paths, &layout, AGENTS_MD_BUDGET_BYTES, true)
                    .ok()
                    .map(Arc::new)
            })
            .clone()
    }
}

/// The verdict on one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    Ok,
    Warning,
    Error,
}

/// What validation found in one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    pub path: PathBuf,
    /// The agent name, when the file loaded.
    pub name: Option<String>,
    pub status: FileStatus,
    pub diagnostics: Vec<Diagnostic>,
}

impl Discovery {
    fn is_user_level(&self, path: &Path) -> bool {
        path.starts_with(&self.paths.kigi_home)
            || self
                .paths
                .user_compat_agent_dirs()
                .iter()
                .any(|dir| path.starts_with(dir))
    }

    /// Validates one agent file: parse (lenient names in compat directories), the trust gate
    /// for project files, then a full build (tool overrides, template rendering).
    pub fn validate_file(&self, path: &Path) -> FileReport {
        self.validate_in(path, &mut FolderCache::default())
    }

    fn validate_in(&self, path: &Path, cache: &mut FolderCache) -> FileReport {
        let options = ParseOptions {
            name_policy: if is_compat_path(path) {
                NamePolicy::Derive
            } else {
                NamePolicy::Strict
            },
            ..ParseOptions::default()
        };
        let mut def = match AgentDefinition::from_file_with(path, options) {
            Ok(def) => def,
            Err(err) => {
                return FileReport {
                    path: path.to_path_buf(),
                    name: None,
                    status: FileStatus::Error,
                    diagnostics: err.to_diagnostics(),
                };
            }
        };
        let folder = path.parent().unwrap_or(path);
        if !self.is_user_level(path) {
            let root = ProjectLayout::locate(folder).root;
            if !self.trust.is_trusted(&root) {
                if is_built_in_name(&def.name) {
                    let refused = shadowing_refused(&def, &root, None);
                    def.warnings.push(refused);
                }
                gate_untrusted(&mut def, &root);
            }
        }
        self.warn_unknown_model(&mut def);
        let name = def.name.clone();
        let mut builder = AgentBuilder::new(folder)
            .with_paths(self.paths.clone())
            .from_definition(def);
        builder = match cache.get(&self.paths, folder) {
            Some(context) => builder.with_folder_context(context),
            None => builder.with_environment(PromptEnvironment::detect(folder)),
        };
        let built = builder.build();
        let diagnostics = match built {
            Ok(agent) => agent.diagnostics,
            Err(err) => err.to_diagnostics(),
        };
        let status = match diagnostics.iter().map(|d| d.severity).max() {
            None => FileStatus::Ok,
            Some(Severity::Warning) => FileStatus::Warning,
            Some(Severity::Error) => FileStatus::Error,
        };
        FileReport {
            path: path.to_path_buf(),
            name: Some(name),
            status,
            diagnostics,
        }
    }

    /// Validates files and directories (recursively, `.md` files). With no paths, every agent
    /// directory discovery would read from `cwd`.
    pub fn validate_paths(&self, paths: &[PathBuf], cwd: &Path) -> Vec<FileReport> {
        let mut unreadable = Vec::new();
        let mut files = Vec::new();
        if paths.is_empty() {
            for source in self.sources(Some(cwd)) {
                files.extend(scan_markdown(&source.dir, &mut unreadable));
            }
        }
        for path in paths {
            if path.is_dir() {
                files.extend(scan_markdown(path, &mut unreadable));
            } else {
                files.push(path.clone());
            }
        }
        let mut cache = FolderCache::default();
        let mut reports: Vec<FileReport> = files
            .iter()
            .map(|f| self.validate_in(f, &mut cache))
            .collect();
        reports.extend(unreadable.into_iter().map(|d| FileReport {
            path: d.file.clone().unwrap_or_default(),
            name: None,
            status: FileStatus::Error,
            diagnostics: vec![d],
        }));
        reports
    }
}
