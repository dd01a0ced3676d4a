//! Every request the browser makes (the page, its redirects, subresources, scripts' fetches,
//! form targets, popups) is paused by `Fetch` interception on the browser target and judged
//! the way `web_fetch` judges a URL: data:, blob: and about: pass, http(s) passes unless its
//! host is at a loopback, private, link-local or shared address that no allow rule
//! (`WebFetch(domain:…)`) names, anything else is refused.
//!
//! The rule: every paused request is answered (continued or failed), each from a task of
//! its own so an answer never waits behind the reader that delivers events, and each within
//! [`JUDGE_CEILING`]; a request that cannot be judged in time is failed, never let through.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use kigi_tools::{PrivateHostAllowance, parse_web_url, resolve_checked};
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio::task::JoinSet;

use crate::cdp_connection::{CdpConnection, CdpEvent};
use crate::error::BrowserError;

/// Ceiling of judging one request (host lookup included) and answering it.
const JUDGE_CEILING: Duration = Duration::from_secs(15);
/// Ceiling of the answer to the browser once judged.
const ANSWER_CEILING: Duration = Duration::from_secs(5);

/// The allow rules the browser's requests are judged by: those of the latest browser call
/// (its [`kigi_tools::ToolContext::private_hosts`]), shared by the tools and the guard.
#[derive(Debug, Default)]
pub struct HostRules {
    current: Mutex<Option<Arc<dyn PrivateHostAllowance>>>,
}

impl HostRules {
    pub fn set(&self, rules: Option<Arc<dyn PrivateHostAllowance>>) {
        *self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = rules;
    }

    fn get(&self) -> Option<Arc<dyn PrivateHostAllowance>> {
        self.current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// What a request's URL alone says.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Content the browser has already (data:, blob:, about:).
    Allow,
    /// An http(s) URL: its host decides.
    JudgeHost,
    Refuse,
}

fn verdict(url: &str) -> Verdict {
    let scheme = url
        .split_once(':')
        .map(|(scheme, _)| scheme.to_ascii_lowercase())
        .unwrap_or_default();
    match scheme.as_str() {
        "data" | "blob" | "about" => Verdict::Allow,
        "http" | "https" => Verdict::JudgeHost,
        _ => Verdict::Refuse,
    }
}

/// True when the browser may fetch `url` under `rules`.
async fn allowed(url: &str, rules: Option<&dyn PrivateHostAllowance>) -> bool {
    match verdict(url) {
        Verdict::Allow => true,
        Verdict::Refuse => false,
        Verdict::JudgeHost => match parse_web_url(url) {
            Ok(url) => resolve_checked(&url, rules).await.is_ok(),
            Err(_) => false,
        },
    }
}

/// Turns on interception of every request at the request stage. `events` must have been
/// subscribed before, so no paused request is missed.
pub async fn enable(
    connection: &Arc<CdpConnection>,
    events: broadcast::Receiver<CdpEvent>,
    rules: Arc<HostRules>,
    ceiling: Duration,
) -> Result<tokio::task::JoinHandle<()>, BrowserError> {
    let guard = tokio::spawn(guard_requests(events, Arc::downgrade(connection), rules));
    let enabled = connection
        .call(
            None,
            "Fetch.enable",
            json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}),
            ceiling,
        )
        .await;
    match enabled {
        Ok(_) => Ok(guard),
        Err(e) => {
            guard.abort();
            Err(e)
        }
    }
}

/// Answers each `Fetch.requestPaused` of the browser target from a task of its own; the
/// tasks end with this one (the set aborts them when dropped).
async fn guard_requests(
    mut events: broadcast::Receiver<CdpEvent>,
    connection: Weak<CdpConnection>,
    rules: Arc<HostRules>,
) {
    use tokio::sync::broadcast::error::RecvError;
    let mut answering = JoinSet::new();
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Ok(event) if event.method == "Fetch.requestPaused" && event.session_id.is_none() => {
                    let Some(connection) = connection.upgrade() else {
                        return;
                    };
                    answering.spawn(answer_paused(connection, event.params, rules.get()));
                }
                // A lost pause cannot be answered (CDP cannot list them); its request fails
                // with its page's load ceiling, never reaching its host.
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return,
            },
            Some(_) = answering.join_next(), if !answering.is_empty() => {}
        }
    }
}

async fn answer_paused(
    connection: Arc<CdpConnection>,
    params: Value,
    rules: Option<Arc<dyn PrivateHostAllowance>>,
) {
    let Some(id) = params["requestId"].as_str() else {
        return;
    };
    let url = params["request"]["url"].as_str().unwrap_or_default();
    let judged = tokio::time::timeout(JUDGE_CEILING, allowed(url, rules.as_deref())).await;
    let (method, answer) = if judged == Ok(true) {
        ("Fetch.continueRequest", json!({"requestId": id}))
    } else {
        (
            "Fetch.failRequest",
            json!({"requestId": id, "errorReason": "BlockedByClient"}),
        )
    };
    // The browser may have dropped the request meanwhile (its page went away); nothing to do.
    let _ = connection.call(None, method, answer, ANSWER_CEILING).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Only(&'static str);

    impl PrivateHostAllowance for Only {
        fn allows(&self, host: &str) -> bool {
            host == self.0
        }
    }

    #[test]
    fn content_the_browser_holds_passes_and_other_schemes_are_refused() {
        assert_eq!(verdict("data:text/html,hi"), Verdict::Allow);
        assert_eq!(verdict("blob:http://127.0.0.1:1/x"), Verdict::Allow);
        assert_eq!(verdict("about:blank"), Verdict::Allow);
        for refused in [
            "file:///etc/passwd",
            "chrome://settings",
            "ftp://x/y",
            "nonsense",
        ] {
            assert_eq!(verdict(refused), Verdict::Refuse, "{refused}");
        }
        assert_eq!(verdict("HTTP://Example.com/"), Verdict::JudgeHost);
    }

    #[tokio::test]
    async fn a_private_host_passes_only_under_a_rule_naming_it() {
        let rules = Only("127.0.0.1");
        assert!(allowed("http://127.0.0.1:9/a", Some(&rules)).await);
        assert!(!allowed("http://127.0.0.1:9/a", None).await);
        for blocked in [
            "http://localhost:9/",
            "http://[::1]:9/",
            "http://10.0.0.1/",
            "http://169.254.169.254/latest",
            "http://100.64.0.1/",
            "http://0.0.0.0:9/",
        ] {
            assert!(!allowed(blocked, Some(&rules)).await, "{blocked}");
        }
        assert!(allowed("data:,x", None).await);
    }
}
