//! What the host tests share: a scripted model server, a host over a temporary home, and
//! waits with a ceiling.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use kigi_agent::{KigiPaths, LoadedConfig};
use kigi_core::host::{HostedSession, OpenRequest, SessionHost};
use kigi_core::{SessionStore, TurnError};
use kigi_model::{ModelClient, ModelEndpoint, Provider, RetryPolicy};
use kigi_protocol::{HostEvent, HostEventBody, HostNotice, SessionEvent, ToolStatus};
use kigi_testkit::{ScriptSet, ScriptedServer};

/// Every wait in these tests: a ceiling against a hang, never an ordering device.
pub const CEILING: Duration = Duration::from_secs(30);

pub struct Fixture {
    pub tmp: tempfile::TempDir,
    pub cwd: std::path::PathBuf,
    pub server: ScriptedServer,
    pub host: SessionHost,
}

impl Fixture {
    pub async fn new(scripts: ScriptSet) -> Self {
        Self::with_config(scripts, "").await
    }

    /// A fixture whose home has `config` as its `config.toml` (`{URL}` in it is the scripted
    /// server's base URL), loaded as `kigi` loads it.
    pub async fn with_config(scripts: ScriptSet, config: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("repo");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(tmp.path().join("home")).unwrap();
        let server = ScriptedServer::start(scripts).await.unwrap();
        let config = config.replace("{URL}", &server.url());
        std::fs::write(tmp.path().join("home/config.toml"), config).unwrap();
        let paths = KigiPaths::new(tmp.path().join("home"), None);
        let env: kigi_core::subagent::EnvLookup = Arc::new(|_: &str| None);
        let loaded = LoadedConfig::load(&paths.config_file(), &*env).unwrap();
        let host = SessionHost::from_config(paths, loaded, env).unwrap();
        Self {
            tmp,
            cwd,
            server,
            host,
        }
    }

    pub fn client(&self) -> ModelClient {
        let policy = RetryPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RetryPolicy::default()
        };
        ModelClient::with_policy(
            ModelEndpoint::new(Provider::OpenaiChat, self.server.url(), "scripted"),
            policy,
        )
        .unwrap()
    }

    pub fn open(&self, request: OpenRequest) -> HostedSession {
        self.host
            .open(OpenRequest {
                client: Some(self.client()),
                ..request
            })
            .unwrap()
    }

    /// The status and output of every tool call in session `id`'s file, in order.
    pub fn tool_results(&self, id: &str) -> Vec<(ToolStatus, String)> {
        self.stored(id)
            .into_iter()
            .filter_map(|e| match e {
                SessionEvent::ToolResult { status, output, .. } => Some((status, output)),
                _ => None,
            })
            .collect()
    }

    pub fn stored(&self, id: &str) -> Vec<SessionEvent> {
        SessionStore::new(self.tmp.path().join("home/sessions"))
            .load(id)
            .unwrap()
            .events
            .into_iter()
            .map(|e| e.event)
            .collect()
    }
}

/// Starts a user turn on its own task; returns the session's controls and the turn.
pub fn start_turn(
    session: &HostedSession,
    text: &str,
) -> (
    kigi_core::host::SessionControl,
    tokio::task::JoinHandle<Result<kigi_core::TurnSummary, TurnError>>,
) {
    let control = session.control();
    let text = text.to_owned();
    let turn = tokio::spawn({
        let control = control.clone();
        async move { control.run_turn(&text).await }
    });
    (control, turn)
}

/// How a turn started by [`start_turn`] ended (at most [`CEILING`] from now).
pub async fn finished(
    turn: tokio::task::JoinHandle<Result<kigi_core::TurnSummary, TurnError>>,
) -> Result<kigi_core::TurnSummary, TurnError> {
    tokio::time::timeout(CEILING, turn)
        .await
        .expect("the turn never ended")
        .unwrap()
}

pub fn is_ask(event: &HostEvent) -> bool {
    matches!(
        event.body,
        HostEventBody::Notice(HostNotice::ApprovalRequested { .. })
    )
}

/// The next event the predicate picks, reading (and keeping) everything before it.
pub async fn next_matching(
    session: &mut HostedSession,
    seen: &mut Vec<HostEvent>,
    pick: impl Fn(&HostEvent) -> bool,
) -> HostEvent {
    let found = tokio::time::timeout(CEILING, async {
        loop {
            let event = session.events().next().await.expect("the stream ended");
            seen.push(event.clone());
            if pick(&event) {
                return event;
            }
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("the event never came; seen: {seen:#?}"))
}

pub fn user_texts(body: &serde_json::Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect()
}
