//! One browser tab driven over CDP: open a URL and wait for it to load, read it as a
//! numbered snapshot, click, type, press keys, scroll, wait for text, screenshot, console.
//!
//! The rule: the page is read only once it has finished loading (a click that navigated is
//! waited for), and a call the page's navigation cut off is repeated once on the new page;
//! every wait has a ceiling.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::cdp_connection::CdpConnection;
use crate::console_log::ConsoleLog;
use crate::error::BrowserError;
use crate::keys::parse_keys;
use crate::load_state::{LoadState, ready_state_probe, watch_events};
use crate::request_guard::{self, HostRules};

/// Ceiling of one command.
const CALL_CEILING: Duration = Duration::from_secs(30);
/// Ceiling of a page load.
pub const LOAD_CEILING: Duration = Duration::from_secs(30);
/// How long after a click or key press a navigation it caused is looked for. Chromium starts
/// a form's navigation a task later than the input event returns.
const NAVIGATION_GRACE: Duration = Duration::from_millis(400);
/// Time `browser_wait`'s last look may take past its ceiling to come back.
const WAIT_GRACE: Duration = Duration::from_secs(1);

const SNAPSHOT_JS: &str = include_str!("snapshot.js");

/// The page as text.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Snapshot {
    pub title: String,
    pub url: String,
    pub text: String,
    /// Interactive elements numbered.
    pub count: u32,
    /// The page was longer than the snapshot shows.
    pub truncated: bool,
}

impl Snapshot {
    /// What the model reads.
    pub fn render(&self) -> String {
        let mut out = format!("Page: {}\nURL: {}\n\n{}", self.title, self.url, self.text);
        if self.truncated {
            out.push_str("\n… (the page is longer; scroll or narrow down)");
        }
        out.push_str(&format!(
            "\n\n({} interactive elements; refer to them by [n])",
            self.count
        ));
        out
    }
}

/// An attached tab.
#[derive(Debug)]
pub struct Page {
    connection: Arc<CdpConnection>,
    session: String,
    load: watch::Receiver<LoadState>,
    console: Arc<Mutex<ConsoleLog>>,
    /// The tasks keeping the load state and answering paused requests; they end with the
    /// page.
    _watcher: AbortOnDrop,
    _guard: AbortOnDrop,
}

fn text_of(value: &Value, key: &str) -> Result<String, BrowserError> {
    value[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| BrowserError::Protocol(format!("no `{key}` in {value}")))
}

impl Page {
    /// Opens a new tab over `connection` and attaches to it. Every request the browser makes
    /// from then on is judged by `rules` (see `request_guard`).
    pub async fn attach(
        connection: CdpConnection,
        rules: Arc<HostRules>,
    ) -> Result<Self, BrowserError> {
        let connection = Arc::new(connection);
        let guard =
            request_guard::enable(&connection, connection.subscribe(), rules, CALL_CEILING).await?;
        // Dropped on an early return, a bare handle would leave the guard running.
        let guard = AbortOnDrop(guard);
        let target = connection
            .call(
                None,
                "Target.createTarget",
                json!({"url": "about:blank"}),
                CALL_CEILING,
            )
            .await?;
        let target = text_of(&target, "targetId")?;
        let attached = connection
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
                CALL_CEILING,
            )
            .await?;
        let session = text_of(&attached, "sessionId")?;
        let events = connection.subscribe();
        let (load_tx, load) = watch::channel(LoadState::default());
        let console = Arc::new(Mutex::new(ConsoleLog::default()));
        let call =
            |method: &'static str| connection.call(Some(&session), method, json!({}), CALL_CEILING);
        call("Page.enable").await?;
        let tree = call("Page.getFrameTree").await?;
        let main_frame = text_of(&tree["frameTree"]["frame"], "id")?;
        let watcher = AbortOnDrop(tokio::spawn(watch_events(
            events,
            session.clone(),
            main_frame,
            load_tx,
            Arc::clone(&console),
            ready_state_probe(Arc::downgrade(&connection), session.clone()),
        )));
        call("Runtime.enable").await?;
        call("Log.enable").await?;
        Ok(Self {
            connection,
            session,
            load,
            console,
            _watcher: watcher,
            _guard: guard,
        })
    }

    /// True once the browser is gone.
    pub fn is_closed(&self) -> bool {
        self.connection.is_closed()
    }

    async fn call(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        self.call_within(method, params, CALL_CEILING).await
    }

    async fn call_within(
        &self,
        method: &str,
        params: Value,
        ceiling: Duration,
    ) -> Result<Value, BrowserError> {
        self.connection
            .call(Some(&self.session), method, params, ceiling)
            .await
    }

    /// Opens `url` and waits for it to load.
    pub async fn navigate(&self, url: &str) -> Result<(), BrowserError> {
        let before = self.load.borrow().started;
        let answer = self.call("Page.navigate", json!({"url": url})).await?;
        if let Some(error) = answer["errorText"].as_str().filter(|e| !e.is_empty()) {
            return Err(BrowserError::Refused(format!(
                "could not open {url}: {error}"
            )));
        }
        // Without a loader the navigation stayed in the document (a #fragment).
        if answer["loaderId"].as_str().is_none_or(str::is_empty) {
            return Ok(());
        }
        self.loaded_after(before, LOAD_CEILING).await
    }

    /// Waits until a load started after `before` has finished.
    async fn loaded_after(&self, before: u64, ceiling: Duration) -> Result<(), BrowserError> {
        let mut load = self.load.clone();
        let done = load.wait_for(|s| s.started > before && !s.loading);
        match tokio::time::timeout(ceiling, done).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => Err(BrowserError::Closed),
            Err(_) => Err(BrowserError::Timeout {
                method: "the page load".into(),
                ceiling,
            }),
        }
    }

    /// Waits until the main frame is not loading.
    async fn settled(&self) -> Result<(), BrowserError> {
        self.settled_by(Instant::now() + LOAD_CEILING).await
    }

    /// Waits until the main frame is not loading, at the latest until `deadline`.
    async fn settled_by(&self, deadline: Instant) -> Result<(), BrowserError> {
        let mut load = self.load.clone();
        let ceiling = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout_at(deadline, load.wait_for(|s| !s.loading)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => Err(BrowserError::Closed),
            Err(_) => Err(BrowserError::Timeout {
                method: "the page load".into(),
                ceiling,
            }),
        }
    }

    /// After an input event: when it started a navigation within [`NAVIGATION_GRACE`], waits
    /// for that page to load.
    async fn follow_navigation(&self, before: u64) -> Result<(), BrowserError> {
        let mut load = self.load.clone();
        // The watch guard must not live across the next await (it is not Send).
        let started = tokio::time::timeout(NAVIGATION_GRACE, load.wait_for(|s| s.started > before))
            .await
            .map(|seen| seen.is_ok());
        match started {
            Ok(true) => self.settled().await,
            Ok(false) => Err(BrowserError::Closed),
            Err(_) => Ok(()),
        }
    }

    /// Evaluates `expression` in the loaded page and returns its value; repeated once when a
    /// navigation destroyed the context it ran in.
    pub async fn evaluate(&self, expression: &str) -> Result<Value, BrowserError> {
        self.evaluate_within(expression, false, None).await
    }

    /// With a `deadline`, waiting for the page to load and the call itself both end by it;
    /// without one each has its own ceiling.
    async fn evaluate_within(
        &self,
        expression: &str,
        await_promise: bool,
        deadline: Option<Instant>,
    ) -> Result<Value, BrowserError> {
        let mut tries = 0;
        loop {
            let ceiling = match deadline {
                Some(deadline) => {
                    self.settled_by(deadline).await?;
                    deadline.saturating_duration_since(Instant::now())
                }
                None => {
                    self.settled().await?;
                    CALL_CEILING
                }
            };
            let answer = self
                .call_within(
                    "Runtime.evaluate",
                    json!({"expression": expression, "returnByValue": true, "awaitPromise": await_promise}),
                    ceiling,
                )
                .await
                .and_then(|answer| match answer.get("exceptionDetails") {
                    Some(details) => Err(BrowserError::Script(
                        details["exception"]["description"]
                            .as_str()
                            .or_else(|| details["text"].as_str())
                            .unwrap_or("exception")
                            .to_owned(),
                    )),
                    None => Ok(answer["result"]["value"].clone()),
                });
            match answer {
                Err(e) if e.context_lost() && tries == 0 => tries += 1,
                other => return other,
            }
        }
    }

    /// The page as text with its interactive elements numbered.
    pub async fn snapshot(&self) -> Result<Snapshot, BrowserError> {
        let value = self.evaluate(SNAPSHOT_JS).await?;
        serde_json::from_value(value)
            .map_err(|e| BrowserError::Protocol(format!("the snapshot script returned {e}")))
    }

    /// Scrolls element `n` into view; its centre in viewport coordinates and its description.
    async fn locate(&self, n: u32) -> Result<(f64, f64), BrowserError> {
        let found = self
            .evaluate(&format!(
                "(() => {{ const el = document.querySelector('[data-kigi-ref=\"{n}\"]'); \
                 if (!el) return null; el.scrollIntoView({{block: 'center', inline: 'center'}}); \
                 const r = el.getBoundingClientRect(); \
                 return {{x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height}}; }})()"
            ))
            .await?;
        if found.is_null() {
            return Err(missing(n));
        }
        let number = |key: &str| found[key].as_f64().unwrap_or_default();
        if number("w") <= 0.0 || number("h") <= 0.0 {
            return Err(BrowserError::Refused(format!(
                "element [{n}] has no size on screen (hidden?); take a new snapshot"
            )));
        }
        Ok((number("x"), number("y")))
    }

    /// Clicks element `n` with the mouse, and follows a navigation it starts.
    pub async fn click(&self, n: u32) -> Result<(), BrowserError> {
        let (x, y) = self.locate(n).await?;
        let before = self.load.borrow().started;
        for (kind, buttons) in [("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 0)] {
            let mut event =
                json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons});
            if kind != "mouseMoved" {
                event["clickCount"] = json!(1);
            }
            self.call("Input.dispatchMouseEvent", event).await?;
        }
        self.follow_navigation(before).await
    }

    /// Focuses element `n`, selects what it holds and types `text` over it.
    pub async fn type_text(&self, n: u32, text: &str) -> Result<(), BrowserError> {
        let focused = self
            .evaluate(&format!(
                "(() => {{ const el = document.querySelector('[data-kigi-ref=\"{n}\"]'); \
                 if (!el) return 'missing'; el.scrollIntoView({{block: 'center'}}); el.focus(); \
                 if (typeof el.select === 'function' && 'value' in el) {{ el.select(); return 'ok'; }} \
                 if (el.isContentEditable) {{ document.execCommand('selectAll'); return 'ok'; }} \
                 return 'not editable'; }})()"
            ))
            .await?;
        match focused.as_str() {
            Some("ok") => {}
            Some("missing") => return Err(missing(n)),
            _ => {
                return Err(BrowserError::Refused(format!(
                    "element [{n}] does not take text; click it, or type into a text field"
                )));
            }
        }
        if text.is_empty() {
            self.press("Delete").await
        } else {
            self.call("Input.insertText", json!({"text": text}))
                .await
                .map(drop)
        }
    }

    /// Presses `keys` (space-separated presses, `Control+a` style), following a navigation.
    pub async fn press(&self, keys: &str) -> Result<(), BrowserError> {
        let presses = parse_keys(keys)?;
        let before = self.load.borrow().started;
        for press in presses {
            let mut down = json!({
                "type": if press.text.is_some() { "keyDown" } else { "rawKeyDown" },
                "key": press.key,
                "code": press.code,
                "windowsVirtualKeyCode": press.key_code,
                "modifiers": press.modifiers,
            });
            if let Some(text) = &press.text {
                down["text"] = json!(text);
                down["unmodifiedText"] = json!(text);
            }
            self.call("Input.dispatchKeyEvent", down).await?;
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": "keyUp", "key": press.key, "code": press.code,
                       "windowsVirtualKeyCode": press.key_code, "modifiers": press.modifiers}),
            )
            .await?;
        }
        self.follow_navigation(before).await
    }

    /// Scrolls element `n` into view, or the page a screen up or down; where it is now.
    pub async fn scroll(&self, element: Option<u32>, up: bool) -> Result<String, BrowserError> {
        if let Some(n) = element {
            self.locate(n).await?;
            return Ok(format!("Scrolled element [{n}] into view."));
        }
        let sign = if up { "-" } else { "" };
        let at = self
            .evaluate(&format!(
                "(() => {{ window.scrollBy(0, {sign}window.innerHeight * 0.9); \
                 return [Math.round(window.scrollY), Math.round(document.documentElement.scrollHeight), Math.round(window.innerHeight)]; }})()"
            ))
            .await?;
        let n = |i: usize| at[i].as_i64().unwrap_or_default();
        Ok(format!(
            "Scrolled {}: now at {} of {} px (the window shows {} px).",
            if up { "up" } else { "down" },
            n(0),
            n(1),
            n(2)
        ))
    }

    /// Waits (at most `ceiling`) until the page's text contains `text`; true when it did.
    pub async fn wait_for_text(&self, text: &str, ceiling: Duration) -> Result<bool, BrowserError> {
        let deadline = Instant::now() + ceiling;
        let needle =
            serde_json::to_string(text).map_err(|e| BrowserError::Protocol(e.to_string()))?;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = left.as_millis();
            let script = format!(
                "new Promise((resolve) => {{ const has = () => (document.body ? document.body.innerText : '').includes({needle}); \
                 if (has()) return resolve(true); \
                 const seen = new MutationObserver(() => {{ if (has()) {{ seen.disconnect(); clearTimeout(timer); resolve(true); }} }}); \
                 seen.observe(document.documentElement, {{subtree: true, childList: true, characterData: true}}); \
                 const timer = setTimeout(() => {{ seen.disconnect(); resolve(has()); }}, {ms}); }})"
            );
            match self
                .evaluate_within(&script, true, Some(deadline + WAIT_GRACE))
                .await
            {
                Ok(found) => {
                    if found.as_bool() == Some(true) || Instant::now() >= deadline {
                        return Ok(found.as_bool() == Some(true));
                    }
                }
                // The page navigated while waiting: look again in the new one.
                Err(e) if e.context_lost() && Instant::now() < deadline => {}
                // Still loading (or slow to answer) when the time was up: the text did not show.
                Err(BrowserError::Timeout { .. }) if Instant::now() >= deadline => {
                    return Ok(false);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// A PNG of the viewport, base64.
    pub async fn screenshot(&self) -> Result<String, BrowserError> {
        self.settled().await?;
        let shot = self
            .call("Page.captureScreenshot", json!({"format": "png"}))
            .await?;
        text_of(&shot, "data")
    }

    /// Console lines since the last read, and how many were dropped.
    pub fn console(&self) -> (Vec<String>, usize) {
        self.console
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

fn missing(n: u32) -> BrowserError {
    BrowserError::Refused(format!(
        "there is no element [{n}] on the page now; take a new snapshot (numbers change when the page does)"
    ))
}

/// A task aborted when this is dropped.
#[derive(Debug)]
pub(crate) struct AbortOnDrop(pub(crate) JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_devtools::FakeDevtools;

    /// A tab whose main frame starts loading right after it is attached, and never stops.
    fn forever_loading(method: &str) -> Option<(Value, Vec<Value>)> {
        let result = match method {
            "Target.createTarget" => json!({"targetId": "T"}),
            "Target.attachToTarget" => json!({"sessionId": "S"}),
            "Page.getFrameTree" => json!({"frameTree": {"frame": {"id": "F"}}}),
            "Runtime.evaluate" => json!({"result": {"value": false}}),
            _ => json!({}),
        };
        let events = if method == "Log.enable" {
            vec![
                json!({"method": "Page.frameStartedLoading", "params": {"frameId": "F"}, "sessionId": "S"}),
            ]
        } else {
            Vec::new()
        };
        Some((result, events))
    }

    #[tokio::test]
    async fn waiting_for_text_on_a_page_that_never_settles_ends_at_its_own_ceiling() {
        let endpoint = FakeDevtools::start(forever_loading).await;
        let connection = CdpConnection::connect(&endpoint.url, Duration::from_secs(10))
            .await
            .unwrap();
        let page = Page::attach(connection, Arc::default()).await.unwrap();
        let mut load = page.load.clone();
        load.wait_for(|s| s.loading).await.unwrap();
        // Without a bound of its own, the wait would sit out the page load's 30 s ceiling
        // (this test's ceiling is half of that).
        let waited = tokio::time::timeout(
            LOAD_CEILING / 2,
            page.wait_for_text("never", Duration::from_secs(1)),
        )
        .await;
        assert_eq!(waited, Ok(Ok(false)));
    }
}
