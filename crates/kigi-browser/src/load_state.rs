//! The tab's load state (is the main frame loading, how many loads has it started) and its
//! console log, kept from the tab's events by one task.
//!
//! The rule: no lost event may leave the state stuck. Events lost to a lagging receiver may
//! include the main frame's start or stop, so after a lag the page itself is asked
//! (`document.readyState`) and a load is counted as started: neither a wait for the page to
//! settle nor one for a new load hangs on an event that will never come.

use std::future::Future;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::json;
use tokio::sync::watch;

use crate::cdp_connection::{CdpConnection, CdpEvent};
use crate::console_log::{ConsoleLog, console_line};

/// Ceiling of asking the page whether it is loading, after load events were lost.
const READY_STATE_CEILING: Duration = Duration::from_secs(5);

/// Whether the main frame is loading, and how many loads it has started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadState {
    pub started: u64,
    pub loading: bool,
}

/// Asks the tab whether its document is still loading (`document.readyState`); `None` when
/// it cannot tell (gone, no answer in time, between documents).
pub fn ready_state_probe(
    connection: Weak<CdpConnection>,
    session: String,
) -> impl FnMut() -> std::pin::Pin<Box<dyn Future<Output = Option<bool>> + Send>> + Send {
    move || {
        let connection = connection.clone();
        let session = session.clone();
        Box::pin(async move {
            let connection = connection.upgrade()?;
            let answer = connection
                .call(
                    Some(&session),
                    "Runtime.evaluate",
                    json!({"expression": "document.readyState", "returnByValue": true}),
                    READY_STATE_CEILING,
                )
                .await
                .ok()?;
            answer["result"]["value"].as_str().map(|s| s != "complete")
        })
    }
}

/// Keeps the load state and the console log up to date from the tab's events. Events lost
/// to a lag may include the main frame's start or stop: the page is asked instead
/// (`ready_state`), and a load counted as started, so neither a wait for the page to settle
/// nor one for a new load is left hanging on an event that will never come.
pub async fn watch_events<P, F>(
    mut events: tokio::sync::broadcast::Receiver<CdpEvent>,
    session: String,
    main_frame: String,
    load: watch::Sender<LoadState>,
    console: Arc<Mutex<ConsoleLog>>,
    mut ready_state: P,
) where
    P: FnMut() -> F,
    F: Future<Output = Option<bool>>,
{
    use tokio::sync::broadcast::error::RecvError;
    loop {
        let event = match events.recv().await {
            Ok(event) => event,
            Err(RecvError::Lagged(_)) => {
                // Unknown counts as loaded: a wrong guess costs one repeated call (a lost
                // context is retried), a wrong `loading` every later call's full ceiling.
                let loading = ready_state().await.unwrap_or(false);
                load.send_modify(|s| {
                    s.started += 1;
                    s.loading = loading;
                });
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        if event.session_id.as_deref() != Some(session.as_str()) {
            continue;
        }
        let frame = event.params["frameId"].as_str() == Some(main_frame.as_str());
        match event.method.as_str() {
            "Page.frameStartedLoading" if frame => load.send_modify(|s| {
                s.started += 1;
                s.loading = true;
            }),
            "Page.frameStoppedLoading" if frame => load.send_modify(|s| s.loading = false),
            _ => {
                if let Some(line) = console_line(&event) {
                    console
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(line);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::sync::broadcast;

    use super::*;
    use crate::page::{AbortOnDrop, LOAD_CEILING};

    fn frame_event(method: &str) -> CdpEvent {
        CdpEvent {
            method: method.into(),
            params: json!({"frameId": "F"}),
            session_id: Some("S".into()),
        }
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_stop_lost_to_a_lag_is_recovered_from_the_documents_ready_state() {
        let (events, receiver) = broadcast::channel(2);
        let (load_tx, mut load) = watch::channel(LoadState::default());
        let asked = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&asked);
        let _watcher = AbortOnDrop(tokio::spawn(watch_events(
            receiver,
            "S".into(),
            "F".into(),
            load_tx,
            Arc::default(),
            move || {
                counter.fetch_add(1, Ordering::SeqCst);
                // The page says it has finished loading.
                std::future::ready(Some(false))
            },
        )));
        events
            .send(frame_event("Page.frameStartedLoading"))
            .unwrap();
        load.wait_for(|s| s.loading).await.unwrap();
        // The stop and more arrive while the watcher is not running: the stop is lost.
        events
            .send(frame_event("Page.frameStoppedLoading"))
            .unwrap();
        for _ in 0..4 {
            events.send(frame_event("Page.frameNavigated")).unwrap();
        }
        let settled = tokio::time::timeout(LOAD_CEILING, load.wait_for(|s| !s.loading))
            .await
            .map(|seen| seen.map(|state| *state));
        assert!(settled.is_ok(), "still loading after the lag");
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        assert_eq!(
            *load.borrow(),
            LoadState {
                started: 2,
                loading: false
            }
        );
    }
}
