//! Asking a person before a call runs. A permission decision that comes out as "ask" is
//! handed to the session's [`Approver`]; with none (print mode, a background child), the call
//! is refused with a reason that says how to allow it.

use std::future::Future;
use std::pin::Pin;

use kigi_protocol::CanonicalToolMeta;
use tokio_util::sync::CancellationToken;

/// What a person needs to decide about one call.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    pub call_id: String,
    /// The model-facing tool name.
    pub name: String,
    /// The canonical tool name.
    pub canonical: String,
    /// What "allow for this session" remembers: the whole command line for a shell call (so
    /// allowing `ls` does not allow `rm`), the tool for anything else.
    pub scope: String,
    pub tool: Option<CanonicalToolMeta>,
    /// The command line, or the file and a unified diff.
    pub summary: String,
}

/// How an ask ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalVerdict {
    Allowed,
    /// Refused by the person, with their reason if they gave one.
    Denied(Option<String>),
    /// The turn ended before anyone answered.
    Cancelled,
    /// Nobody may be asked after all (a subagent moved to the background): the call is
    /// refused as if there were no approver.
    NobodyToAsk,
}

/// The future an ask returns.
pub type ApprovalFuture = Pin<Box<dyn Future<Output = ApprovalVerdict> + Send>>;

/// Whoever answers asks for one agent.
pub trait Approver: Send + Sync + std::fmt::Debug {
    /// Waits for an answer to `request`, or for `cancel`.
    fn ask(&self, request: ApprovalRequest, cancel: CancellationToken) -> ApprovalFuture;
}
