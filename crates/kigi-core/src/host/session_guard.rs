//! The guard a session opens with: kigi's folders, and its permission rules gathered from
//! every place rules are written (built in, `config.toml`, the project's
//! `.kigi/settings.toml` as far as its trust allows, the front end's flags) and anchored at
//! the session's working directory and project root.

use std::path::Path;
use std::sync::Arc;

use kigi_agent::ProjectLayout;
use kigi_agent::ProjectSettings;
use kigi_agent::hooks::HookSet;
use kigi_agent::permissions::{PathAnchors, PermissionRules};
use kigi_tools::sandbox::{SandboxMode, SandboxSupport};

use super::host_error::HostError;
use super::session_host::SessionHost;
use crate::runtime_guard::RuntimeGuard;

impl SessionHost {
    /// Every rule a session in `cwd` runs under, with `flag_rules` last, and what was
    /// ignored (a project's allow rules in a folder not trusted).
    pub fn session_rules(
        &self,
        cwd: &Path,
        flag_rules: &PermissionRules,
    ) -> Result<(PermissionRules, Vec<String>), HostError> {
        let (rules, _, notices) = self.session_settings(cwd, flag_rules)?;
        Ok((rules, notices))
    }

    /// Every hook a session in `cwd` runs (`config.toml`'s, then a trusted project's), and
    /// what was ignored.
    pub fn session_hooks(&self, cwd: &Path) -> Result<(HookSet, Vec<String>), HostError> {
        let (_, hooks, notices) = self.session_settings(cwd, &PermissionRules::default())?;
        Ok((hooks, notices))
    }

    /// The rules and hooks of a session in `cwd`, and the notices of what was ignored.
    fn session_settings(
        &self,
        cwd: &Path,
        flag_rules: &PermissionRules,
    ) -> Result<(PermissionRules, HookSet, Vec<String>), HostError> {
        let layout = ProjectLayout::locate(cwd);
        let trusted = self.discovery().trust.is_trusted(&layout.root);
        let project = ProjectSettings::load(&layout.root, trusted)?;
        let mut rules = self.user_rules().clone();
        rules.extend(project.rules);
        rules.extend(flag_rules.clone());
        let mut hooks = self.user_hooks().clone();
        hooks.extend(project.hooks);
        Ok((rules, hooks, project.notices))
    }

    /// Starts the MCP servers of a session in `cwd` running `agent` (the user's, the
    /// project's when trusted, the agent's own, then `extra` from the front end); `None` when
    /// there are none. Returns what to say about entries that cannot be used.
    pub fn start_mcp(
        &self,
        cwd: &Path,
        agent: Option<&kigi_agent::Agent>,
        extra: Vec<(String, kigi_mcp::McpServerConfig)>,
    ) -> Result<(Option<Arc<crate::mcp_session::SessionMcp>>, Vec<String>), HostError> {
        let layout = ProjectLayout::locate(cwd);
        let trusted = self.discovery().trust.is_trusted(&layout.root);
        let inline = agent.and_then(|a| {
            a.definition
                .mcp_servers
                .as_ref()
                .map(|v| (a.name.as_str(), v))
        });
        let (mut entries, notes) = kigi_agent::session_mcp_servers(
            self.user_mcp_servers(),
            &layout.root,
            trusted,
            inline,
        )?;
        for (name, config) in extra {
            entries.retain(|entry| entry.name != name);
            entries.push(kigi_mcp::McpServerEntry {
                name,
                config,
                source: kigi_mcp::McpSource::User,
                trusted: true,
            });
        }
        let env = self.env_lookup();
        Ok((crate::mcp_session::SessionMcp::start(entries, &*env), notes))
    }

    /// The guard of a session in `cwd`, and the notices to show when it starts.
    pub(super) fn guard_for(
        &self,
        cwd: &Path,
        flag_rules: &PermissionRules,
        sandbox_mode: Option<SandboxMode>,
    ) -> Result<(RuntimeGuard, Vec<String>), HostError> {
        let (rules, hooks, mut notices) = self.session_settings(cwd, flag_rules)?;
        let mut sandbox = self.sandbox_config().clone();
        if let Some(mode) = sandbox_mode {
            sandbox.mode = mode;
        }
        // The kernel is probed only when commands are to be confined.
        let support =
            (sandbox.mode != SandboxMode::DangerFullAccess).then(|| self.sandbox_support());
        let sandbox_unavailable = match support {
            None | Some(SandboxSupport::Enforced { .. }) => None,
            Some(SandboxSupport::Unavailable { reason }) => {
                notices.push(format!(
                    "kigi cannot sandbox commands on this system ({reason}): they run unconfined, and every command asks for approval (refused where nobody can answer) unless [sandbox] mode = \"danger-full-access\""
                ));
                Some(reason.clone())
            }
        };
        let layout = ProjectLayout::locate(cwd);
        let paths = &self.discovery().paths;
        let paths_root = layout.root.clone();
        let anchors = PathAnchors {
            home: paths.user_home.clone(),
            project_root: layout.root,
            cwd: layout.cwd,
        };
        let guard = RuntimeGuard {
            kigi_home: paths.kigi_home.clone(),
            user_home: paths.user_home.clone(),
            rules: Arc::new(rules.compile(&anchors)),
            written_rules: Arc::new(rules),
            sandbox,
            sandbox_unavailable,
            hooks: Arc::new(hooks),
            project_dir: paths_root,
            web_search: self.discovery().web_search.clone(),
        };
        Ok((guard, notices))
    }
}
