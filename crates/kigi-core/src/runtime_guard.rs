//! What a session's tool runtimes are guarded by, decided once when the host opens it and
//! handed to the main agent and every child alike: kigi's own folder (never written without
//! a person, its trust list never read), the user's home (credentials never read), and the
//! permission rules anchored at the session's folders, and the sandbox its commands run in.
//!
//! The rule: a child gets its parent's guard unchanged; only its mode may be narrower and its
//! writes confined to a worktree, never the other way round.

use std::path::PathBuf;
use std::sync::Arc;

use kigi_agent::SandboxConfig;
use kigi_agent::hooks::{HookSet, HookSource};
use kigi_agent::permissions::CompiledRules;
use kigi_tools::sandbox::{SandboxMode, SandboxPolicy};

use crate::hooks::{HookIdentity, Hooks};

/// The guard of one session tree.
#[derive(Debug, Clone, Default)]
pub struct RuntimeGuard {
    /// `$KIGI_HOME`.
    pub kigi_home: PathBuf,
    /// `$HOME`, when known.
    pub user_home: Option<PathBuf>,
    /// Allow, ask and deny rules (built in, `config.toml`, the project's settings, flags).
    pub rules: Arc<CompiledRules>,
    /// The rules as written, to anchor them again at a child's worktree.
    pub written_rules: Arc<kigi_agent::permissions::PermissionRules>,
    /// `[sandbox]` (with `--sandbox` applied).
    pub sandbox: SandboxConfig,
    /// Why the kernel cannot confine commands here, when the mode asks for confinement and
    /// it cannot: commands then run unconfined, and every one asks.
    pub sandbox_unavailable: Option<String>,
    /// The session's hooks (`config.toml`'s and a trusted project's); an agent adds its own.
    pub hooks: Arc<kigi_agent::hooks::HookSet>,
    /// The project root (`KIGI_PROJECT_DIR` for hooks).
    pub project_dir: PathBuf,
    /// `[web_search]`: the service `web_search` uses; without one no agent has the tool.
    pub web_search: Option<kigi_agent::WebSearchConfig>,
}

impl RuntimeGuard {
    /// The guard of a child working in the worktree `root`: the same rules, their relative
    /// paths anchored at the worktree (a checkout of the project) instead of the project.
    pub fn for_worktree(&self, root: &std::path::Path) -> Self {
        let anchors = kigi_agent::permissions::PathAnchors {
            home: self.user_home.clone(),
            project_root: root.to_path_buf(),
            cwd: root.to_path_buf(),
        };
        Self {
            rules: Arc::new(self.written_rules.compile(&anchors)),
            ..self.clone()
        }
    }

    /// The hooks of an agent named `agent`: the session's, then its own inline `hooks:`
    /// (`None` when there are none at all, so calls pay nothing). A warning when its inline
    /// hooks cannot be used.
    pub fn agent_hooks(
        &self,
        agent: &str,
        inline: Option<&serde_json::Value>,
        identity: HookIdentity,
    ) -> (Option<Hooks>, Option<String>) {
        let mut set = (*self.hooks).clone();
        let mut warning = None;
        if let Some(value) = inline {
            match HookSet::from_json(value, &HookSource::Agent(agent.to_owned())) {
                Ok(own) => set.extend(own),
                Err(error) => {
                    warning = Some(format!(
                        "agent {agent}: its inline hooks are not used: {error}"
                    ))
                }
            }
        }
        (
            (!set.is_empty()).then(|| Hooks::new(set, identity)),
            warning,
        )
    }

    /// The sandbox of an agent writing below `root` (its working directory, or a child's
    /// worktree): that folder and the configured extra roots.
    pub fn sandbox_policy(&self, root: &std::path::Path) -> SandboxPolicy {
        if self.sandbox_unavailable.is_some() {
            return SandboxPolicy::full_access();
        }
        let extra = self.sandbox.writable_roots.iter().map(|path| {
            match (path.strip_prefix("~"), &self.user_home) {
                (Ok(rest), Some(home)) => home.join(rest),
                _ => path.clone(),
            }
        });
        let policy = SandboxPolicy {
            mode: self.sandbox.mode,
            writable_roots: std::iter::once(root.to_path_buf()).chain(extra).collect(),
            network: self.sandbox.network,
        };
        match policy.mode {
            SandboxMode::DangerFullAccess => SandboxPolicy::full_access(),
            _ => policy,
        }
    }
}
