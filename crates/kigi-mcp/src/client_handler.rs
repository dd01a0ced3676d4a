//! `KigiClient`: kigi's side of an MCP session: who it says it is in `initialize`, and what it
//! does with the server's notifications (`notifications/tools/list_changed` raises a flag).
//!
//! The rule: a notification only marks state for the session to act on at its next step; the
//! handler never calls back into the server or blocks the connection's message loop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{MaybeSendFuture, NotificationContext};
use rmcp::{ClientHandler, RoleClient};
use tokio::sync::Notify;

/// Raised by `notifications/tools/list_changed`, lowered when the list is read again.
#[derive(Debug, Default)]
pub struct ChangeFlag {
    changed: AtomicBool,
    notify: Notify,
}

impl ChangeFlag {
    pub fn raise(&self) {
        self.changed.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    pub fn is_raised(&self) -> bool {
        self.changed.load(Ordering::SeqCst)
    }

    /// Lowers the flag; true when it was raised.
    pub fn take(&self) -> bool {
        self.changed.swap(false, Ordering::SeqCst)
    }

    /// Resolves once the flag is raised (at once when it already is).
    pub async fn raised(&self) {
        loop {
            let notified = self.notify.notified();
            if self.is_raised() {
                return;
            }
            notified.await;
        }
    }
}

/// The client handler of every kigi MCP connection.
#[derive(Debug, Clone)]
pub(crate) struct KigiClient {
    pub tools_changed: Arc<ChangeFlag>,
}

impl ClientHandler for KigiClient {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.tools_changed.raise();
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        // No roots, sampling or elicitation: kigi answers none of the server's requests.
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("kigi", env!("CARGO_PKG_VERSION")),
        )
    }
}
