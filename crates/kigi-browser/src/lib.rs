//! kigi's browser: the tools of the `browser-use` agent, driving a Chromium found on the
//! machine over the Chrome DevTools Protocol. A thin client of its own (a minimal WebSocket,
//! JSON commands with ids, a reader task) instead of a generated-protocol crate: kigi uses a
//! dozen CDP methods, and the binary's memory budget is tight.
//!
//! The rule: every browser process kigi starts runs in its own process group with a
//! throwaway profile, and is killed and reaped with that group when the tools that own it
//! are dropped; every request the browser makes is judged like a `web_fetch`
//! (`request_guard`); every wait on the browser has a ceiling.

mod browser_session;
mod browser_tools;
mod cdp_connection;
mod console_log;
mod error;
#[cfg(test)]
mod fake_devtools;
mod keys;
mod launch;
mod load_state;
mod page;
mod profile_dir;
mod request_guard;
mod websocket;

pub use browser_session::BrowserSession;
pub use browser_tools::{BrowserAction, BrowserTool, browser_tools};
pub use cdp_connection::{CdpConnection, CdpEvent};
pub use error::BrowserError;
pub use launch::{BrowserProcess, LaunchOptions};
pub use page::{Page, Snapshot};
