//! The flags every front end that opens one session takes (`kigi -p`, the terminal): which
//! session, which agent, which model, mode, rules and sandbox; and the host request they make.

use std::path::{Path, PathBuf};

use kigi_agent::PermissionMode;
use kigi_core::host::{AgentChoice, OpenRequest, SessionStart};
use kigi_model::ModelFlags;

/// `--agent`, `--agent-file`, `--permission-mode`, `--resume`, `--continue`, the model flags,
/// `--allowedTools`/`--disallowedTools` and `--sandbox`.
#[derive(Debug, Clone, Default)]
pub struct SessionFlags {
    pub agent: Option<String>,
    pub agent_file: Option<PathBuf>,
    pub permission_mode: Option<PermissionMode>,
    pub resume: Option<String>,
    pub continue_last: bool,
    pub model: ModelFlags,
    pub rules: kigi_agent::permissions::PermissionRules,
    pub sandbox: Option<kigi_tools::sandbox::SandboxMode>,
}

impl SessionFlags {
    /// The host request these flags make for a session in `cwd`.
    pub fn open_request(&self, cwd: &Path) -> OpenRequest {
        OpenRequest {
            start: match (&self.resume, self.continue_last) {
                (Some(id), _) => SessionStart::Resume(id.clone()),
                (None, true) => SessionStart::Continue,
                (None, false) => SessionStart::New,
            },
            agent: agent_choice(self.agent.clone(), self.agent_file.clone()),
            model: self.model.clone(),
            permission_mode: self.permission_mode,
            rules: self.rules.clone(),
            sandbox: self.sandbox,
            ..OpenRequest::new(cwd)
        }
    }
}

/// `--agent-file` beats `--agent`; neither is the default agent.
pub fn agent_choice(agent: Option<String>, agent_file: Option<PathBuf>) -> AgentChoice {
    match (agent_file, agent) {
        (Some(file), _) => AgentChoice::File(file),
        (None, Some(name)) => AgentChoice::Named(name),
        (None, None) => AgentChoice::Default,
    }
}
