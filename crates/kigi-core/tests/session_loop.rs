//! The turn loop against the scripted model server over loopback, with real tools on real
//! files, and the session file read back from disk. Every session is opened by the session
//! host and driven by its commands; cancelling a test's token sends `Interrupt`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use kigi_agent::{
    AgentBuilder, AgentDefinition, Discovery, KigiPaths, PermissionMode, ResolvedTool,
};
use kigi_core::host::{AgentChoice, HostedSession, OpenRequest, SessionHost, SessionStart};
use kigi_core::{SessionStore, TurnError, TurnSummary, messages_from};
use kigi_model::{
    CancellationToken, ModelClient, ModelEndpoint, ModelsConfig, Provider, RetryPolicy,
};
use kigi_protocol::{HostCommand, SessionEvent, ToolKind, ToolStatus, TurnEndReason};
use kigi_testkit::{Fault, ScriptSet, ScriptedServer, Step};
use kigi_tools::sandbox::{SandboxMode, SandboxSupport};
use kigi_tools::{Tool, ToolContext, ToolFuture, ToolOutput, ToolRegistry, ToolSpec};
use serde_json::json;

struct Fixture {
    _tmp: tempfile::TempDir,
    cwd: std::path::PathBuf,
    store: SessionStore,
    server: ScriptedServer,
    events: Arc<Mutex<Vec<SessionEvent>>>,
}

impl Fixture {
    async fn new(steps: Vec<Step>) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("repo");
        std::fs::create_dir_all(&cwd).unwrap();
        let store = SessionStore::new(tmp.path().join("home/sessions"));
        let server = ScriptedServer::start(ScriptSet::single(steps))
            .await
            .unwrap();
        Self {
            _tmp: tmp,
            cwd,
            store,
            server,
            events: Arc::new(Mutex::new(Vec::new())),
        }
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.cwd.join(rel), text).unwrap();
    }

    fn agent(&self, frontmatter: &str) -> kigi_agent::Agent {
        let text =
            format!("---\nname: tester\ndescription: test agent\n{frontmatter}---\nYou test.\n");
        let definition = AgentDefinition::parse(&text, None).unwrap();
        AgentBuilder::new(&self.cwd)
            .with_paths(KigiPaths::new(self._tmp.path().join("home"), None))
            .from_definition(definition)
            .build()
            .unwrap()
    }

    fn client(&self) -> ModelClient {
        let endpoint = ModelEndpoint::new(Provider::OpenaiChat, self.server.url(), "scripted");
        let policy = RetryPolicy {
            initial_backoff: Duration::from_millis(1),
            idle_timeout: Duration::from_secs(600),
            ..RetryPolicy::default()
        };
        ModelClient::with_policy(endpoint, policy).unwrap()
    }

    fn setup(&self, frontmatter: &str, mode: Option<PermissionMode>) -> OpenRequest {
        self.request(self.agent(frontmatter), ToolRegistry::built_in(), mode)
    }

    fn request(
        &self,
        agent: kigi_agent::Agent,
        registry: ToolRegistry,
        mode: Option<PermissionMode>,
    ) -> OpenRequest {
        OpenRequest {
            agent: AgentChoice::Built(Box::new(agent)),
            client: Some(self.client()),
            registry: Some(registry),
            permission_mode: mode,
            ..OpenRequest::new(&self.cwd)
        }
    }

    fn session(&self, request: OpenRequest) -> Hosted {
        self.session_on(request, |_| {})
    }

    /// A session of a host `configure` adjusted first.
    fn session_on(&self, request: OpenRequest, configure: impl FnOnce(&mut SessionHost)) -> Hosted {
        let paths = KigiPaths::new(self._tmp.path().join("home"), None);
        let mut host = SessionHost::new(
            Discovery::load(paths).unwrap(),
            ModelsConfig::default(),
            Arc::new(|_: &str| None),
        );
        configure(&mut host);
        Hosted {
            inner: host.open(request).unwrap(),
            events: Arc::clone(&self.events),
        }
    }

    fn stored(&self, id: &str) -> Vec<SessionEvent> {
        self.store
            .load(id)
            .unwrap()
            .events
            .into_iter()
            .map(|e| e.event)
            .collect()
    }
}

/// A hosted session driven the way these tests drive a turn: cancelling the token sends
/// `Interrupt`; the main agent's events are collected as they arrive.
struct Hosted {
    inner: HostedSession,
    events: Arc<Mutex<Vec<SessionEvent>>>,
}

impl Hosted {
    fn id(&self) -> &str {
        self.inner.id()
    }

    async fn run_turn(
        &mut self,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> Result<TurnSummary, TurnError> {
        let control = self.inner.control();
        let interrupt = {
            let (control, cancel) = (control.clone(), cancel.clone());
            tokio::spawn(async move {
                cancel.cancelled().await;
                control.submit(HostCommand::Interrupt).unwrap();
            })
        };
        let turn = control.run_turn(prompt);
        tokio::pin!(turn);
        let stream = self.inner.events();
        let outcome = loop {
            tokio::select! {
                biased;
                Some(event) = stream.next() => {
                    if let Some(event) = event.session_event().filter(|_| event.is_main()) {
                        self.events.lock().unwrap().push(event.clone());
                    }
                }
                outcome = &mut turn => break outcome,
            }
        };
        interrupt.abort();
        for event in stream.drain() {
            if let Some(event) = event.session_event().filter(|_| event.is_main()) {
                self.events.lock().unwrap().push(event.clone());
            }
        }
        outcome
    }
}

fn results(events: &[SessionEvent]) -> Vec<(String, ToolStatus, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::ToolResult {
                name,
                status,
                output,
                ..
            } => Some((name.clone(), *status, output.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_multi_turn_task_reads_searches_edits_and_answers() {
    let fx = Fixture::new(vec![
        Step::calls(vec![
            ("read_file", json!({"path": "lib.rs"})),
            ("grep", json!({"pattern": "answer"})),
        ]),
        Step::calls(vec![(
            "search_replace",
            json!({"path": "lib.rs", "old_string": "41", "new_string": "42"}),
        )]),
        Step::text("Fixed the answer."),
    ])
    .await;
    fx.write("lib.rs", "pub fn answer() -> u32 { 41 }\n");
    let mut session = fx.session(fx.setup("", Some(PermissionMode::AcceptEdits)));
    let summary = session
        .run_turn("fix the answer", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.text, "Fixed the answer.");
    assert_eq!((summary.steps, summary.tool_calls), (3, 3));
    assert_eq!(
        std::fs::read_to_string(fx.cwd.join("lib.rs")).unwrap(),
        "pub fn answer() -> u32 { 42 }\n"
    );
    let stored = fx.stored(session.id());
    let statuses: Vec<ToolStatus> = results(&stored).into_iter().map(|r| r.1).collect();
    assert_eq!(statuses, [ToolStatus::Completed; 3]);
    assert!(
        matches!(stored.first(), Some(SessionEvent::SessionStart { agent, .. }) if agent == "tester")
    );
    assert!(matches!(
        stored.last(),
        Some(SessionEvent::TurnEnd {
            reason: TurnEndReason::Completed,
            steps: 3
        })
    ));
    // The envelope rides on every tool call.
    let envelope = stored.iter().find_map(|e| match e {
        SessionEvent::ToolCall {
            meta: Some(meta), ..
        } if meta.tool.name == "grep" => Some(meta.tool.clone()),
        _ => None,
    });
    let envelope = envelope.unwrap();
    assert_eq!(
        (envelope.label.as_str(), envelope.kind, envelope.read_only),
        ("Grep", ToolKind::Search, true)
    );
    assert_eq!(envelope.input, Some(json!({"pattern": "answer"})));
    // The second request carried the first turn's tool results.
    let second = &fx.server.requests()[1].body;
    let tool_messages: Vec<&serde_json::Value> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tool_messages.len(), 2);
    assert!(
        tool_messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("pub fn answer()")
    );
    // Live deltas reached the front end but not the file.
    assert!(
        fx.events
            .lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, SessionEvent::TextDelta { .. }))
    );
    assert!(
        !stored
            .iter()
            .any(|e| matches!(e, SessionEvent::TextDelta { .. }))
    );
}

/// A tool that waits until `parties` calls are inside it at once: run one at a time, the
/// calls would wait forever (the test's ceiling fails it).
#[derive(Debug)]
struct Rendezvous(Arc<tokio::sync::Barrier>);

static RENDEZVOUS: ToolSpec = ToolSpec {
    name: std::borrow::Cow::Borrowed("rendezvous"),
    kind: ToolKind::Read,
    description: std::borrow::Cow::Borrowed("Wait for the others."),
    read_only: true,
    label: std::borrow::Cow::Borrowed("Rendezvous"),
    input_keys: &[],
};

impl Tool for Rendezvous {
    fn spec(&self) -> &'static ToolSpec {
        &RENDEZVOUS
    }
    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object"})
    }
    fn execute<'a>(&'a self, _: serde_json::Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            self.0.wait().await;
            Ok(ToolOutput::ok("met"))
        })
    }
}

#[tokio::test]
async fn read_only_calls_of_one_response_run_concurrently() {
    let fx = Fixture::new(vec![
        Step::calls(vec![
            ("rendezvous", json!({})),
            ("rendezvous", json!({})),
            ("rendezvous", json!({})),
        ]),
        Step::text("all met"),
    ])
    .await;
    let mut agent = fx.agent("");
    agent.tools.push(ResolvedTool {
        name: "rendezvous".into(),
        model_name: "rendezvous".into(),
        kind: ToolKind::Read,
        description: "Wait for the others.".into(),
        read_only: true,
        param_names: Default::default(),
    });
    let mut registry = ToolRegistry::built_in();
    registry.register(Arc::new(Rendezvous(Arc::new(tokio::sync::Barrier::new(3)))));
    let mut session = fx.session(fx.request(agent, registry, None));
    let turn = tokio::time::timeout(
        Duration::from_secs(30),
        session.run_turn("meet", &CancellationToken::new()),
    )
    .await
    .expect("the read-only calls ran one at a time and never met");
    assert_eq!(turn.unwrap().text, "all met");
}

#[tokio::test]
async fn calls_the_mode_does_not_allow_are_refused_and_the_session_goes_on() {
    let fx = Fixture::new(vec![
        Step::calls(vec![
            ("run_terminal_cmd", json!({"command": "touch pwned"})),
            ("write_file", json!({"path": "x.txt", "content": "x"})),
            ("no_such_tool", json!({})),
            ("read_file", json!("{not json")),
            ("read_file", json!({"path": "missing.txt"})),
        ]),
        Step::text("Understood."),
    ])
    .await;
    let mut session = fx.session(fx.setup("", Some(PermissionMode::Default)));
    let summary = session
        .run_turn("try things", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.text, "Understood.");
    assert!(!fx.cwd.join("pwned").exists());
    assert!(!fx.cwd.join("x.txt").exists());
    let results = results(&fx.stored(session.id()));
    let statuses: Vec<ToolStatus> = results.iter().map(|r| r.1).collect();
    assert_eq!(
        statuses,
        [
            ToolStatus::Refused,
            ToolStatus::Refused,
            ToolStatus::Refused,
            ToolStatus::Refused,
            ToolStatus::Failed
        ]
    );
    assert!(results[0].2.contains("needs approval"), "{}", results[0].2);
    assert!(
        results[2].2.starts_with("unknown tool `no_such_tool`"),
        "{}",
        results[2].2
    );
    assert!(results[3].2.contains("not valid JSON"), "{}", results[3].2);
    assert!(
        results[4].2.starts_with("cannot read missing.txt"),
        "{}",
        results[4].2
    );
    // The model was told each reason.
    let second = fx.server.requests()[1].body.to_string();
    assert!(
        second.contains("needs approval") && second.contains("unknown tool"),
        "{second}"
    );
}

#[tokio::test]
async fn tools_outside_the_agents_allowlist_are_refused_at_execution() {
    let fx = Fixture::new(vec![
        Step::calls(vec![("write_file", json!({"path": "x", "content": "x"}))]),
        Step::text("ok"),
    ])
    .await;
    let mut session = fx.session(fx.setup(
        "tools: [read_file]\n",
        Some(PermissionMode::BypassPermissions),
    ));
    session
        .run_turn("write", &CancellationToken::new())
        .await
        .unwrap();
    let results = results(&fx.stored(session.id()));
    assert_eq!(results[0].1, ToolStatus::Refused);
    assert_eq!(
        results[0].2,
        "unknown tool `write_file`; this agent's tools are: read_file"
    );
    assert!(!fx.cwd.join("x").exists());
}

#[tokio::test]
async fn a_missing_completion_call_brings_a_reminder_and_the_loop_goes_on() {
    let fx = Fixture::new(vec![
        Step::text("I think I'm done."),
        Step::calls(vec![("todo_write", json!({"todos": []}))]),
        Step::text("Done, and recorded."),
    ])
    .await;
    let frontmatter = "completionRequirement:\n  tool: todo_write\n  reminder: Call todo_write before you stop.\n  recovery:\n    maxRetries: 2\n    baseDelayMs: 1\n    maxDelayMs: 5\n";
    let mut session = fx.session(fx.setup(frontmatter, None));
    let summary = session
        .run_turn("work", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.text, "Done, and recorded.");
    let reminders: Vec<String> = fx
        .stored(session.id())
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::Reminder { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(
        reminders,
        ["<system-reminder>\nCall todo_write before you stop.\n</system-reminder>"]
    );
    let second = fx.server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(second["content"], reminders[0].as_str());
}

#[tokio::test]
async fn reminders_run_out_into_a_completion_requirement_error() {
    let fx = Fixture::new(vec![Step::text("done"), Step::text("really done")]).await;
    let frontmatter = "completionRequirement:\n  tool: todo_write\n  reminder: Call it.\n  recovery:\n    maxRetries: 1\n    baseDelayMs: 0\n    maxDelayMs: 0\n";
    let mut session = fx.session(fx.setup(frontmatter, None));
    let error = session
        .run_turn("work", &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, TurnError::CompletionRequirement { reminders: 1, .. }),
        "{error}"
    );
    assert!(fx.stored(session.id()).iter().any(
        |e| matches!(e, SessionEvent::Error { code, .. } if code == "loop.completion_requirement")
    ));
}

#[tokio::test]
async fn an_empty_answer_is_an_error_not_an_answer() {
    let fx = Fixture::new(vec![Step::default()]).await;
    let mut session = fx.session(fx.setup("", None));
    let error = session
        .run_turn("hello", &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, TurnError::EmptyCompletion));
    let stored = fx.stored(session.id());
    assert!(
        stored.iter().any(
            |e| matches!(e, SessionEvent::Error { code, .. } if code == "loop.empty_completion")
        )
    );
    assert!(matches!(
        stored.last(),
        Some(SessionEvent::TurnEnd {
            reason: TurnEndReason::Error,
            ..
        })
    ));
}

#[tokio::test]
async fn max_turns_stops_a_model_that_never_finishes() {
    let step = Step::calls(vec![("list_dir", json!({}))]);
    let fx = Fixture::new(vec![step.clone(), step.clone(), step]).await;
    let mut session = fx.session(fx.setup("maxTurns: 2\n", None));
    let error = session
        .run_turn("loop", &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, TurnError::MaxTurns(2)), "{error}");
    assert_eq!(fx.server.requests().len(), 2);
}

#[tokio::test]
async fn cancelling_stops_the_stream_and_records_the_cancelled_turn() {
    let fx = Fixture::new(vec![
        Step::text("never arrives whole").after_faults(vec![Fault::Hang]),
    ])
    .await;
    let mut session = fx.session(fx.setup("", None));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let server = &fx.server;
    let (turn, ()) = tokio::join!(session.run_turn("wait", &cancel), async {
        assert!(
            server
                .wait_for(Duration::from_secs(10), |log| !log.is_empty())
                .await
        );
        trigger.cancel();
    });
    assert!(matches!(turn, Err(TurnError::Cancelled)), "{turn:?}");
    let stored = fx.stored(session.id());
    assert!(matches!(
        stored.last(),
        Some(SessionEvent::TurnEnd {
            reason: TurnEndReason::Cancelled,
            ..
        })
    ));
    assert!(
        server
            .wait_for(Duration::from_secs(10), |log| log[0]
                .client_gone_at
                .is_some())
            .await
    );
}

#[tokio::test]
async fn a_cancelled_command_is_killed_and_recorded() {
    let fx = Fixture::new(vec![Step::calls(vec![(
        "run_terminal_cmd",
        json!({"command": "sleep 60"}),
    )])])
    .await;
    let mut session = fx.session(fx.setup("", Some(PermissionMode::BypassPermissions)));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let events = Arc::clone(&fx.events);
    let (turn, ()) = tokio::join!(session.run_turn("sleep", &cancel), async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !events
            .lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, SessionEvent::ToolCall { .. }))
        {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the tool call never started"
            );
            tokio::task::yield_now().await;
        }
        trigger.cancel();
    });
    assert!(matches!(turn, Err(TurnError::Cancelled)), "{turn:?}");
    let results = results(&fx.stored(session.id()));
    assert_eq!(results[0].1, ToolStatus::Cancelled);
}

#[tokio::test]
async fn a_resumed_session_carries_the_conversation_and_survives_a_torn_line() {
    let fx = Fixture::new(vec![
        Step::text("first answer"),
        Step::text("second answer"),
    ])
    .await;
    let mut session = fx.session(fx.setup("", None));
    session
        .run_turn("first question", &CancellationToken::new())
        .await
        .unwrap();
    let id = session.id().to_owned();
    session.inner.shutdown().await;
    let path = fx.store.wire_path(&id).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut file, b"{\"jsonrpc\":\"2.0\",\"method\":\"_kigi/sess").unwrap();
    drop(file);
    let mut resumed = fx.session(OpenRequest {
        start: SessionStart::Resume(id.clone()),
        ..fx.setup("", None)
    });
    let warnings = resumed.inner.warnings().to_vec();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("torn last line"), "{}", warnings[0]);
    // The conversation the resumed session carries: what it rebuilt from its file.
    assert_eq!(
        messages_from(fx.stored(&id).iter()).len(),
        2,
        "{:?}",
        fx.stored(&id)
    );
    let summary = resumed
        .run_turn("second question", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.text, "second answer");
    let body = &fx.server.requests()[1].body;
    let contents: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(
        contents[1..],
        ["first question", "first answer", "second question"]
    );
    // The file reads back whole: the torn line is the only loss.
    let loaded = fx.store.load(&id).unwrap();
    assert_eq!(loaded.warnings.len(), 1);
    let messages = messages_from(loaded.events.iter().map(|e| &e.event));
    assert_eq!(messages.len(), 4);
}

#[tokio::test]
async fn a_crashing_tool_is_reported_to_the_model_and_the_session_goes_on() {
    #[derive(Debug)]
    struct Crash;
    static CRASH: ToolSpec = ToolSpec {
        name: std::borrow::Cow::Borrowed("crash"),
        kind: ToolKind::Read,
        description: std::borrow::Cow::Borrowed(""),
        read_only: true,
        label: std::borrow::Cow::Borrowed("Crash"),
        input_keys: &[],
    };
    impl Tool for Crash {
        fn spec(&self) -> &'static ToolSpec {
            &CRASH
        }
        fn parameters(&self) -> serde_json::Value {
            json!({"type": "object"})
        }
        fn execute<'a>(&'a self, _: serde_json::Value, _: &'a ToolContext) -> ToolFuture<'a> {
            Box::pin(async move { panic!("tool bug") })
        }
    }
    let fx = Fixture::new(vec![
        Step::calls(vec![("crash", json!({}))]),
        Step::text("recovered"),
    ])
    .await;
    let mut agent = fx.agent("");
    agent.tools.push(ResolvedTool {
        name: "crash".into(),
        model_name: "crash".into(),
        kind: ToolKind::Read,
        description: String::new(),
        read_only: true,
        param_names: Default::default(),
    });
    let mut registry = ToolRegistry::built_in();
    registry.register(Arc::new(Crash));
    let mut session = fx.session(fx.request(agent, registry, None));
    let summary = session
        .run_turn("go", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(summary.text, "recovered");
    let results = results(&fx.stored(session.id()));
    assert_eq!(
        (results[0].1, results[0].2.as_str()),
        (
            ToolStatus::Failed,
            "`crash` crashed; the call did not complete"
        )
    );
}

#[tokio::test]
async fn overridden_names_are_what_the_model_sees_and_canonical_names_run() {
    let fx = Fixture::new(vec![
        Step::calls(vec![("Read", json!({"file_path": "a.txt"}))]),
        Step::text("read it"),
    ])
    .await;
    fx.write("a.txt", "alpha\n");
    let frontmatter = "toolNameOverrides:\n  read_file: Read\nparamNameOverrides:\n  read_file:\n    path: file_path\n";
    let mut session = fx.session(fx.setup(frontmatter, None));
    session
        .run_turn("read", &CancellationToken::new())
        .await
        .unwrap();
    let tools = fx.server.requests()[0].body["tools"].clone();
    let read = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "Read")
        .unwrap();
    assert!(
        read["function"]["parameters"]["properties"]
            .get("file_path")
            .is_some()
    );
    assert!(!tools.to_string().contains("\"read_file\""));
    let results = results(&fx.stored(session.id()));
    assert_eq!(
        results[0],
        (
            "Read".to_owned(),
            ToolStatus::Completed,
            "     1\talpha\n".to_owned()
        )
    );
}

#[tokio::test]
async fn where_the_kernel_cannot_sandbox_every_command_asks_even_one_a_rule_allows() {
    let steps = || {
        vec![
            Step::calls(vec![(
                "run_terminal_cmd",
                json!({"command": "touch made.txt"}),
            )]),
            Step::text("done"),
        ]
    };
    let unavailable = || SandboxSupport::Unavailable {
        reason: "Landlock is not enabled in this kernel".into(),
    };
    let rules = kigi_agent::permissions::flag_rules(&["Bash(touch:*)".to_owned()], &[]).unwrap();
    let fx = Fixture::new(steps()).await;
    let request = OpenRequest {
        rules: rules.clone(),
        ..fx.setup("", None)
    };
    let mut session = fx.session_on(request, |host| host.set_sandbox_support(unavailable()));
    assert!(
        session
            .inner
            .warnings()
            .iter()
            .any(|w| w.contains("cannot sandbox commands")),
        "{:?}",
        session.inner.warnings()
    );
    session
        .run_turn("go", &CancellationToken::new())
        .await
        .unwrap();
    let outcome = results(&fx.events.lock().unwrap());
    assert_eq!(outcome[0].1, ToolStatus::Refused, "{outcome:?}");
    assert!(
        outcome[0].2.contains("cannot sandbox commands"),
        "{outcome:?}"
    );
    assert!(!fx.cwd.join("made.txt").exists());

    // dontAsk never asks, so it refuses too: nothing runs unconfined unasked.
    let fx = Fixture::new(steps()).await;
    let request = OpenRequest {
        rules: rules.clone(),
        ..fx.setup("", Some(PermissionMode::DontAsk))
    };
    let mut session = fx.session_on(request, |host| host.set_sandbox_support(unavailable()));
    session
        .run_turn("go", &CancellationToken::new())
        .await
        .unwrap();
    let outcome = results(&fx.events.lock().unwrap());
    assert_eq!(outcome[0].1, ToolStatus::Refused, "{outcome:?}");
    assert!(!fx.cwd.join("made.txt").exists());

    // Choosing no sandbox is the user's to make: then the rule allows it, and nothing is said.
    let fx = Fixture::new(steps()).await;
    let request = OpenRequest {
        rules,
        sandbox: Some(SandboxMode::DangerFullAccess),
        ..fx.setup("", None)
    };
    let mut session = fx.session_on(request, |host| host.set_sandbox_support(unavailable()));
    assert!(
        session.inner.warnings().is_empty(),
        "{:?}",
        session.inner.warnings()
    );
    session
        .run_turn("go", &CancellationToken::new())
        .await
        .unwrap();
    assert!(fx.cwd.join("made.txt").exists());
}

#[tokio::test]
async fn a_front_end_switches_the_permission_mode_from_the_next_call_on() {
    let fx = Fixture::new(vec![
        Step::calls(vec![(
            "write_file",
            json!({"path": "a.txt", "content": "a"}),
        )]),
        Step::calls(vec![(
            "write_file",
            json!({"path": "b.txt", "content": "b"}),
        )]),
        Step::text("done"),
    ])
    .await;
    let mut session = fx.session(fx.setup("", Some(PermissionMode::AcceptEdits)));
    let control = session.inner.control();
    control
        .submit(HostCommand::SetPermissionMode {
            mode: "plan".into(),
        })
        .unwrap();
    assert_eq!(session.inner.permission_mode(), PermissionMode::Plan);
    let error = control
        .submit(HostCommand::SetPermissionMode {
            mode: "yolo".into(),
        })
        .unwrap_err();
    assert!(
        error.to_string().contains("unknown permission mode `yolo`"),
        "{error}"
    );
    session
        .run_turn("go", &CancellationToken::new())
        .await
        .unwrap();
    let outcome = results(&fx.events.lock().unwrap());
    assert_eq!(outcome[0].1, ToolStatus::Refused, "{outcome:?}");
    assert_eq!(outcome[1].1, ToolStatus::Refused, "{outcome:?}");
    assert!(!fx.cwd.join("a.txt").exists());
}

/// A client of a server running `scripts` (routed by marker), its model reporting a
/// 10,000-token window.
async fn compacting_client(scripts: Vec<kigi_testkit::Script>) -> (ScriptedServer, ModelClient) {
    let server = ScriptedServer::start(ScriptSet { scripts }).await.unwrap();
    let mut endpoint = ModelEndpoint::new(Provider::OpenaiChat, server.url(), "scripted");
    endpoint.context_window = Some(10_000);
    let client = ModelClient::with_policy(
        endpoint,
        RetryPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RetryPolicy::default()
        },
    )
    .unwrap();
    (server, client)
}

fn summarizer() -> kigi_testkit::Script {
    kigi_testkit::Script::matching(
        "You write the summary that replaces",
        vec![Step::text(
            "#after-compaction: big.txt was read three times; it holds x's.",
        )],
    )
}

fn after() -> kigi_testkit::Script {
    kigi_testkit::Script::matching(
        "#after-compaction",
        vec![Step::text("done after compaction"); 6],
    )
}

fn read_big(input: u64) -> Step {
    let mut step = Step::calls(vec![("read_file", json!({"path": "big.txt"}))]);
    step.usage = Some(kigi_testkit::ScriptedUsage {
        input,
        output: 10,
        cached: 0,
    });
    step
}

#[tokio::test]
async fn a_conversation_past_the_threshold_is_compacted_and_resumes_compacted() {
    let long = kigi_testkit::Script::matching(
        "#long",
        vec![
            read_big(3_000),
            read_big(6_000),
            read_big(9_000),
            Step::text("never reached"),
        ],
    );
    let (server, client) = compacting_client(vec![long, summarizer(), after()]).await;
    let fx = Fixture::new(vec![]).await;
    fx.write("big.txt", &"x".repeat(8_000));
    let request = OpenRequest {
        client: Some(client.clone()),
        ..fx.setup("tools: [read_file]\n", None)
    };
    let mut session = fx.session(request);
    let outcome = session
        .run_turn("#long read it", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.text, "done after compaction");
    let id = session.id().to_owned();
    session.inner.shutdown().await;
    let events = fx.stored(&id);
    let (summary, before, after_tokens) = events
        .iter()
        .find_map(|e| match e {
            SessionEvent::Compaction {
                summary,
                tokens_before,
                tokens_after,
                ..
            } => Some((summary.clone(), *tokens_before, *tokens_after)),
            _ => None,
        })
        .expect("a compaction record");
    assert!(summary.contains("read three times"), "{summary}");
    assert!(after_tokens < before, "{before} -> {after_tokens}");
    assert!(events.iter().any(
        |e| matches!(e, SessionEvent::CompactionStarted { trigger, .. } if trigger == "auto")
    ));
    // The request after the compaction is smaller than the last one before it, and carries
    // the summary instead of the older reads.
    let all = server.requests();
    let at = all
        .iter()
        .position(|r| r.script.as_deref() == Some("You write the summary that replaces"))
        .unwrap();
    let last_before = all[at - 1].body["messages"].to_string();
    let first_after = all[at + 1].body["messages"].to_string();
    println!(
        "compaction: about {before} -> {after_tokens} tokens; the request before it had {} chars of messages, the first after it {} chars",
        last_before.len(),
        first_after.len()
    );
    // Two reads were in the conversation when it compacted; the request after carries one
    // (the kept step) and the summary instead of the other.
    let read = "x".repeat(8_000);
    assert_eq!(last_before.matches(&read).count(), 1);
    assert_eq!(first_after.matches(&read).count(), 1);
    assert!(first_after.contains("read three times"));
    // A resume carries on from the compacted conversation, not the whole one.
    let rebuilt = messages_from(events.iter());
    assert!(rebuilt[0].text().contains("read three times"));
    assert!(rebuilt.len() < 8, "{}", rebuilt.len());
    let resumed = OpenRequest {
        client: Some(client),
        start: SessionStart::Resume(id),
        ..fx.setup("tools: [read_file]\n", None)
    };
    let mut resumed = fx.session(resumed);
    resumed
        .run_turn("go on", &CancellationToken::new())
        .await
        .unwrap();
    let sent = server.requests().last().unwrap().body["messages"].clone();
    assert!(
        sent[1]["content"].to_string().contains("read three times"),
        "{sent}"
    );
    assert!(sent.to_string().matches(&read).count() <= 1, "{sent}");
}

#[tokio::test]
async fn a_context_length_error_compacts_once_and_the_request_succeeds() {
    let mut refused = Step::text("unused");
    refused = refused.after_faults(vec![Fault::Status {
        status: 400,
        retry_after_ms: None,
        code: Some("context_length_exceeded".into()),
        message: Some("maximum context length exceeded".into()),
    }]);
    let ctx = kigi_testkit::Script::matching("#ctx", vec![read_big(100), read_big(200), refused]);
    let (server, client) = compacting_client(vec![ctx, summarizer(), after()]).await;
    let fx = Fixture::new(vec![]).await;
    fx.write("big.txt", &"x".repeat(8_000));
    let request = OpenRequest {
        client: Some(client),
        ..fx.setup("tools: [read_file]\n", None)
    };
    let mut session = fx.session(request);
    let outcome = session
        .run_turn("#ctx read it", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.text, "done after compaction");
    let events = fx.stored(session.id());
    assert!(events.iter().any(|e| matches!(e, SessionEvent::CompactionStarted { trigger, .. } if trigger == "context_length")));
    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|r| r.script.as_deref() == Some("You write the summary that replaces"))
            .count(),
        1
    );
}

#[tokio::test]
async fn compact_from_a_front_end_compacts_before_the_next_turn() {
    let two = kigi_testkit::Script::matching("#two", vec![read_big(100), Step::text("one")]);
    let (_server, client) = compacting_client(vec![two, summarizer(), after()]).await;
    let fx = Fixture::new(vec![]).await;
    fx.write("big.txt", &"x".repeat(8_000));
    let request = OpenRequest {
        client: Some(client),
        ..fx.setup("tools: [read_file]\n", None)
    };
    let mut session = fx.session(request);
    let first = session
        .run_turn("#two read it", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(first.text, "one");
    session
        .inner
        .control()
        .submit(HostCommand::Compact)
        .unwrap();
    let second = session
        .run_turn("and now?", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(second.text, "done after compaction");
    let events = fx.stored(session.id());
    assert!(events.iter().any(
        |e| matches!(e, SessionEvent::CompactionStarted { trigger, .. } if trigger == "manual")
    ));
}

#[tokio::test]
async fn an_agent_with_compaction_off_is_never_compacted() {
    let long = kigi_testkit::Script::matching(
        "#long",
        vec![
            read_big(3_000),
            read_big(6_000),
            read_big(9_000),
            Step::text("all read"),
        ],
    );
    let (server, client) = compacting_client(vec![long, summarizer(), after()]).await;
    let fx = Fixture::new(vec![]).await;
    fx.write("big.txt", &"x".repeat(8_000));
    let request = OpenRequest {
        client: Some(client),
        ..fx.setup("tools: [read_file]\ncompaction: off\n", None)
    };
    let mut session = fx.session(request);
    let outcome = session
        .run_turn("#long read it", &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.text, "all read");
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.script.as_deref() == Some("#long"))
    );
}

#[tokio::test]
async fn killing_or_messaging_a_child_that_does_not_exist_names_it() {
    let fx = Fixture::new(vec![Step::text("hi")]).await;
    let session = fx.session(fx.setup("", None));
    let control = session.inner.control();
    for command in [
        HostCommand::KillSubagent { id: "sub-9".into() },
        HostCommand::SendToSubagent {
            id: "sub-9".into(),
            text: "more".into(),
        },
    ] {
        let error = control.submit(command).unwrap_err().to_string();
        assert!(error.contains("sub-9"), "{error}");
    }
}
