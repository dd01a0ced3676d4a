//! A project's `.kigi/settings.toml`: the rules and hooks a repository ships. Its deny and
//! ask rules only narrow what runs, so they apply in any folder; its allow rules widen it and
//! its hooks run commands, so they apply only once the folder is trusted (`kigi trust`), and
//! are otherwise listed as ignored.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::bounded_read::{FILE_CAP_BYTES, read_bounded};
use crate::config::ConfigError;
use crate::hooks::{HookSet, HookSource, HooksConfig};
use crate::permissions::{PermissionRules, PermissionsConfig, RuleSource};

/// Where a project keeps its settings, below its root.
pub const PROJECT_SETTINGS: &str = ".kigi/settings.toml";

/// The file, as far as kigi reads it today. Other sections are left for the features that
/// read them.
#[derive(Debug, Default, Deserialize)]
struct SettingsFile {
    #[serde(default)]
    permissions: PermissionsConfig,
    #[serde(default)]
    hooks: HooksConfig,
}

/// A project's rules and hooks, and what was ignored.
#[derive(Debug, Clone, Default)]
pub struct ProjectSettings {
    pub rules: PermissionRules,
    /// Empty unless the folder is trusted.
    pub hooks: HookSet,
    /// What was ignored and how to change that.
    pub notices: Vec<String>,
}

impl ProjectSettings {
    /// Reads `<root>/.kigi/settings.toml`; a missing file has no rules. Errors name the file.
    pub fn load(root: &Path, trusted: bool) -> Result<Self, ConfigError> {
        let path: PathBuf = root.join(PROJECT_SETTINGS);
        let text = match read_bounded(&path, FILE_CAP_BYTES) {
            Ok(text) => text,
            Err(e) if e.is_not_found() => return Ok(Self::default()),
            Err(e) => return Err(ConfigError::new(&path, e.detail())),
        };
        let mut file: SettingsFile = toml::from_str(&text)
            .map_err(|e| ConfigError::new(&path, e.message().trim_end().to_owned()))?;
        let mut notices = Vec::new();
        if !trusted && !file.permissions.allow.is_empty() {
            notices.push(format!(
                "{}: {} allow rule(s) ignored: the folder {} is not trusted (run `kigi trust {}` to use them); its deny and ask rules apply",
                path.display(),
                file.permissions.allow.len(),
                root.display(),
                root.display()
            ));
            file.permissions.allow.clear();
        }
        let hooks = if trusted {
            HookSet::from_config(&file.hooks, &HookSource::ProjectSettings(path.clone()))
                .map_err(|e| ConfigError::new(&path, e.to_string()))?
        } else {
            if !file.hooks.is_empty() {
                notices.push(format!(
                    "{}: hooks ignored: the folder {} is not trusted (run `kigi trust {}` to run them)",
                    path.display(),
                    root.display(),
                    root.display()
                ));
            }
            HookSet::default()
        };
        let rules = file
            .permissions
            .rules(&RuleSource::ProjectSettings(path.clone()))
            .map_err(|e| ConfigError::new(&path, format!("{}: {}", e.list, e.error)))?;
        Ok(Self {
            rules,
            hooks,
            notices,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(settings: &str) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join(".kigi")).unwrap();
        std::fs::write(tmp.path().join(PROJECT_SETTINGS), settings).unwrap();
        tmp
    }

    #[test]
    fn an_untrusted_project_keeps_its_deny_rules_and_loses_its_allow_rules() {
        let tmp = project("[permissions]\nallow = ['Bash']\ndeny = ['Bash(rm:*)']\n");
        let untrusted = ProjectSettings::load(tmp.path(), false).unwrap();
        let texts: Vec<&str> = untrusted
            .rules
            .rules()
            .iter()
            .map(|r| r.rule.text.as_str())
            .collect();
        assert_eq!(texts, ["Bash(rm:*)"]);
        assert!(
            untrusted.notices[0].contains("kigi trust"),
            "{:?}",
            untrusted.notices
        );
        let trusted = ProjectSettings::load(tmp.path(), true).unwrap();
        assert_eq!(trusted.rules.rules().len(), 2);
        assert!(trusted.notices.is_empty());
    }

    #[test]
    fn an_untrusted_projects_hooks_never_load_and_a_trusted_ones_do() {
        let tmp = project("[[hooks.PreToolUse]]\nhooks = [{ command = 'touch marker' }]\n");
        let untrusted = ProjectSettings::load(tmp.path(), false).unwrap();
        assert!(untrusted.hooks.is_empty());
        assert!(
            untrusted.notices[0].contains("hooks ignored"),
            "{:?}",
            untrusted.notices
        );
        let trusted = ProjectSettings::load(tmp.path(), true).unwrap();
        assert_eq!(trusted.hooks.hooks().len(), 1);
    }

    #[test]
    fn a_bad_rule_or_key_names_the_file() {
        let tmp = project("[permissions]\ndeny = ['Frob(x)']\n");
        let error = ProjectSettings::load(tmp.path(), true)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("settings.toml")
                && error.contains("permissions.deny")
                && error.contains("Frob"),
            "{error}"
        );
        let tmp = project("[permissions]\nalow = ['Bash']\n");
        let error = ProjectSettings::load(tmp.path(), true)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("settings.toml") && error.contains("alow"),
            "{error}"
        );
        let missing = ProjectSettings::load(Path::new("/nonexistent-project"), true).unwrap();
        assert!(missing.rules.is_empty() && missing.hooks.is_empty() && missing.notices.is_empty());
    }
}
