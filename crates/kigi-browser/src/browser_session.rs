//! One agent's browser: started at its first browser call (an agent that never browses
//! starts nothing), shared by all its browser tools, one tab, calls one at a time. A browser
//! that crashed is started again at the next call.
//!
//! The rule: the browser lives exactly as long as the session's tool registry holds its
//! tools; when the last one goes, the tab's connection closes and the browser's process
//! group is killed and reaped ([`crate::launch::BrowserProcess`]).

use std::sync::Arc;
use std::time::Duration;

use kigi_tools::PrivateHostAllowance;
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use crate::cdp_connection::CdpConnection;
use crate::error::BrowserError;
use crate::launch::{BrowserProcess, LaunchOptions};
use crate::page::Page;
use crate::request_guard::HostRules;

/// Ceiling of the DevTools WebSocket handshake.
const CONNECT_CEILING: Duration = Duration::from_secs(10);

/// A started browser. Field order is drop order: the tab and its connection first, then the
/// process.
#[derive(Debug)]
struct Browser {
    page: Page,
    process: BrowserProcess,
}

/// The browser of one session, started on demand.
#[derive(Debug)]
pub struct BrowserSession {
    options: LaunchOptions,
    live: Mutex<Option<Browser>>,
    rules: Arc<HostRules>,
}

impl BrowserSession {
    pub fn new(options: LaunchOptions) -> Self {
        Self {
            options,
            live: Mutex::new(None),
            rules: Arc::default(),
        }
    }

    /// The allow rules every request of the browser is judged by from now on (those of the
    /// call being made: a host a rule lets `browser_open` reach stays reachable for the
    /// page's own requests).
    pub fn set_private_hosts(&self, rules: Option<Arc<dyn PrivateHostAllowance>>) {
        self.rules.set(rules);
    }

    /// The tab, the browser started first when it is not running; held until the guard is
    /// dropped, so calls run one at a time.
    pub async fn page(&self) -> Result<MappedMutexGuard<'_, Page>, BrowserError> {
        let mut live = self.live.lock().await;
        if live.as_ref().is_none_or(|b| b.page.is_closed()) {
            // A dead browser's process group is killed before a new one starts.
            *live = None;
            *live = Some(start(&self.options, Arc::clone(&self.rules)).await?);
        }
        MutexGuard::try_map(live, |b| b.as_mut().map(|b| &mut b.page))
            .map_err(|_| BrowserError::Closed)
    }

    /// Stops the browser now (its process group killed, its profile removed once it is
    /// reaped); the next call starts a new one. For an owner that knows the browsing is over
    /// before it drops the tools (a child whose turn ended).
    pub async fn close(&self) {
        self.live.lock().await.take();
    }

    /// The browser's process id (also its process group's), while one runs.
    pub async fn browser_pid(&self) -> Option<u32> {
        self.live.lock().await.as_ref().map(|b| b.process.id())
    }
}

async fn start(options: &LaunchOptions, rules: Arc<HostRules>) -> Result<Browser, BrowserError> {
    let process = BrowserProcess::launch(options).await?;
    let connection = CdpConnection::connect(process.devtools_url(), CONNECT_CEILING).await?;
    let page = Page::attach(connection, rules).await?;
    Ok(Browser { page, process })
}
