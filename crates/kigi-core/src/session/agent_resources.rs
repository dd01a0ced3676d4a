//! What an agent works with besides its conversation: its MCP servers, its browser, its
//! tools' shared state, and the watcher that reports its background commands to front ends.

use std::sync::Arc;

use super::{Session, SessionSetup};
use crate::host::AgentEmitter;

impl Session {
    /// The MCP servers this agent started itself (a child's inline `mcpServers`).
    pub fn own_mcp(&self) -> Option<std::sync::Arc<crate::mcp_session::SessionMcp>> {
        self.setup.runtime.own_mcp().cloned()
    }

    /// The browser this agent drives, when it has browser tools.
    pub fn browser(&self) -> Option<Arc<kigi_browser::BrowserSession>> {
        self.setup.browser.clone()
    }

    /// Gives the agent browser tools on a browser of its own (started at the first call).
    pub(crate) fn attach_browser(setup: &mut SessionSetup, options: kigi_browser::LaunchOptions) {
        let browser = Arc::new(kigi_browser::BrowserSession::new(options));
        for tool in kigi_browser::browser_tools(&browser) {
            setup.runtime.register(tool);
        }
        setup.browser = Some(browser);
    }

    /// The session's MCP servers, when it has any.
    pub fn mcp_session(&self) -> Option<std::sync::Arc<crate::mcp_session::SessionMcp>> {
        self.setup.runtime.mcp_session().cloned()
    }

    /// The tools' shared state (background tasks, todo list).
    pub fn tool_context(&self) -> &kigi_tools::ToolContext {
        self.setup.runtime.context()
    }

    /// Who answers the session's asks, when anyone does.
    pub fn approver(&self) -> Option<std::sync::Arc<dyn crate::approval::Approver>> {
        self.setup.runtime.approver()
    }
}

/// Reports the agent's background commands as host notices under its id.
pub(super) fn watch_background_commands(setup: &SessionSetup, events: &AgentEmitter) {
    setup
        .runtime
        .context()
        .tasks
        .set_watcher(Arc::new(crate::host::BackgroundNotices(events.clone())));
}
