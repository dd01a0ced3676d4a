//! The session host as a front end uses it: commands in (turns, interrupt, steer, approval
//! answers), one event stream out, against the scripted model server over loopback, with
//! real tools on real files and the session file read back from disk.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

use std::sync::Arc;
use std::time::Instant;

use kigi_agent::{KigiPaths, PermissionMode, ResolvedTool};
use kigi_core::TurnError;
use kigi_core::host::{AgentChoice, ApprovalMode, OpenRequest, SessionHost};
use kigi_protocol::{
    ApprovalAnswer, HostCommand, HostEvent, HostEventBody, HostNotice, SessionEvent, ToolKind,
    ToolStatus, TurnEndReason,
};
use kigi_testkit::{Fault, Script, ScriptSet, ScriptedToolCall, Step};
use kigi_tools::{Tool, ToolContext, ToolFuture, ToolOutput, ToolRegistry, ToolSpec};
use serde_json::json;
use tokio::sync::Notify;

mod support;

use support::*;

#[tokio::test]
async fn an_interrupt_mid_stream_ends_the_turn_and_keeps_the_transcript_whole() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::text("half of this arrives, then nothing").after_faults(vec![Fault::Hang]),
    ]))
    .await;
    let mut session = fx.open(OpenRequest::new(&fx.cwd));
    let (control, turn) = start_turn(&session, "talk");
    let mut seen = Vec::new();
    next_matching(&mut session, &mut seen, |e| {
        matches!(e.session_event(), Some(SessionEvent::TextDelta { .. }))
    })
    .await;
    let sent = Instant::now();
    control.submit(HostCommand::Interrupt).unwrap();
    let outcome = finished(turn).await;
    let latency = sent.elapsed();
    println!(
        "interrupt to turn end: {:.2} ms",
        latency.as_secs_f64() * 1e3
    );
    assert!(matches!(outcome, Err(TurnError::Cancelled)), "{outcome:?}");
    let stored = fx.stored(session.id());
    assert!(matches!(stored[0], SessionEvent::SessionStart { .. }));
    assert_eq!(
        stored.last(),
        Some(&SessionEvent::TurnEnd {
            reason: TurnEndReason::Cancelled,
            steps: 1
        })
    );
    assert!(
        fx.server
            .wait_for(CEILING, |log| log[0].client_gone_at.is_some())
            .await,
        "the model request was never dropped"
    );
    // The session takes the next turn as if nothing happened (the step's fault was spent).
    let again = session.run_turn("again").await.unwrap();
    assert_eq!(again.text, "half of this arrives, then nothing");
}

/// A tool that waits until the test opens its gate, so a command can be sent while a turn
/// is certainly running.
#[derive(Debug)]
struct Gate {
    entered: Arc<Notify>,
    open: Arc<Notify>,
}

static GATE: ToolSpec = ToolSpec {
    name: std::borrow::Cow::Borrowed("gate"),
    kind: ToolKind::Read,
    description: std::borrow::Cow::Borrowed("Wait."),
    read_only: true,
    label: std::borrow::Cow::Borrowed("Gate"),
    input_keys: &[],
};

impl Tool for Gate {
    fn spec(&self) -> &'static ToolSpec {
        &GATE
    }
    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object"})
    }
    fn execute<'a>(&'a self, _: serde_json::Value, _: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            self.entered.notify_one();
            self.open.notified().await;
            Ok(ToolOutput::ok("through"))
        })
    }
}

#[tokio::test]
async fn a_steer_sent_mid_turn_is_in_the_models_next_request() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::calls(vec![("gate", json!({}))]),
        Step::text("used the blue one"),
    ]))
    .await;
    let gate = Gate {
        entered: Arc::new(Notify::new()),
        open: Arc::new(Notify::new()),
    };
    let (entered, open) = (Arc::clone(&gate.entered), Arc::clone(&gate.open));
    let mut registry = ToolRegistry::built_in();
    registry.register(Arc::new(gate));
    // The default agent with the gate added to its tools.
    let discovery = fx.host.discovery();
    let found = discovery.by_name_in_cwd("kigi", &fx.cwd).unwrap().unwrap();
    let mut built = kigi_agent::AgentBuilder::new(&fx.cwd)
        .with_paths(discovery.paths.clone())
        .from_definition(found.definition)
        .build()
        .unwrap();
    built.tools.push(ResolvedTool {
        name: "gate".into(),
        model_name: "gate".into(),
        kind: ToolKind::Read,
        description: "Wait.".into(),
        read_only: true,
        param_names: Default::default(),
    });
    let agent = AgentChoice::Built(Box::new(built));
    let session = fx.open(OpenRequest {
        agent,
        registry: Some(registry),
        ..OpenRequest::new(&fx.cwd)
    });
    let (control, turn) = start_turn(&session, "pick a colour");
    tokio::time::timeout(CEILING, entered.notified())
        .await
        .unwrap();
    control
        .submit(HostCommand::Steer {
            text: "use the blue one".into(),
        })
        .unwrap();
    open.notify_one();
    let summary = finished(turn).await.unwrap();
    assert_eq!(summary.text, "used the blue one");
    let requests = fx.server.requests();
    assert_eq!(user_texts(&requests[0].body), ["pick a colour"]);
    assert_eq!(
        user_texts(&requests[1].body),
        ["pick a colour", "use the blue one"]
    );
    let stored = fx.stored(session.id());
    assert!(stored.contains(&SessionEvent::UserMessage {
        text: "use the blue one".into()
    }));
}

#[tokio::test]
async fn asks_wait_for_answers_allow_runs_the_call_and_deny_tells_the_model_why() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::calls(vec![
            (
                "run_terminal_cmd",
                json!({"command": "echo yes > allowed.txt"}),
            ),
            (
                "run_terminal_cmd",
                json!({"command": "echo no > denied.txt"}),
            ),
        ]),
        Step::text("done"),
    ]))
    .await;
    let mut session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::Default),
        approvals: ApprovalMode::Ask,
        ..OpenRequest::new(&fx.cwd)
    });
    let (control, turn) = start_turn(&session, "write two files");
    // Both asks are out before either is answered: one waiting ask holds up no other.
    let mut seen = Vec::new();
    let mut asks = Vec::new();
    for _ in 0..2 {
        let event = next_matching(&mut session, &mut seen, is_ask).await;
        assert_eq!(
            (event.agent_id.as_str(), event.parent_id.as_deref()),
            ("main", None)
        );
        let HostEventBody::Notice(HostNotice::ApprovalRequested {
            request_id,
            name,
            tool,
            summary,
            ..
        }) = event.body
        else {
            unreachable!()
        };
        assert_eq!(name, "run_terminal_cmd");
        assert_eq!(tool.unwrap().label, "Bash");
        asks.push((request_id, summary));
    }
    assert_eq!(asks[0].1, "echo yes > allowed.txt");
    assert_eq!(asks[1].1, "echo no > denied.txt");
    control
        .submit(HostCommand::Approval {
            request_id: asks[1].0.clone(),
            answer: ApprovalAnswer::Deny {
                reason: Some("not that file".into()),
            },
        })
        .unwrap();
    control
        .submit(HostCommand::Approval {
            request_id: asks[0].0.clone(),
            answer: ApprovalAnswer::AllowOnce,
        })
        .unwrap();
    let summary = finished(turn).await.unwrap();
    assert_eq!(summary.text, "done");
    assert_eq!(
        std::fs::read_to_string(fx.cwd.join("allowed.txt")).unwrap(),
        "yes\n"
    );
    assert!(!fx.cwd.join("denied.txt").exists());
    let second = &fx.server.requests()[1].body;
    let tool_results: Vec<&str> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(tool_results.len(), 2);
    assert!(
        tool_results[1].contains("the user denied it: not that file"),
        "{tool_results:?}"
    );
    let statuses: Vec<ToolStatus> = fx
        .stored(session.id())
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::ToolResult { status, .. } => Some(status),
            _ => None,
        })
        .collect();
    assert_eq!(statuses, [ToolStatus::Completed, ToolStatus::Refused]);
    // An answer for an ask that is no longer waiting names it.
    let late = control.submit(HostCommand::Approval {
        request_id: asks[0].0.clone(),
        answer: ApprovalAnswer::AllowOnce,
    });
    assert!(
        late.unwrap_err().to_string().contains(&asks[0].0),
        "the error names the id"
    );
}

#[tokio::test]
async fn a_childs_deltas_and_tool_calls_reach_the_host_stream_tagged_and_in_order() {
    let fx = Fixture::new(ScriptSet {
        scripts: vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![ScriptedToolCall::new(
                        "spawn_subagent",
                        json!({"prompt": "#child look", "description": "look around"}),
                    )]),
                    Step::text("the child looked"),
                ],
            ),
            Script::matching(
                "#child",
                vec![
                    Step {
                        text: Some("looking".into()),
                        tool_calls: vec![ScriptedToolCall::new("list_dir", json!({}))],
                        ..Step::default()
                    },
                    Step::text("found it"),
                ],
            ),
        ],
    })
    .await;
    let session = fx.open(OpenRequest::new(&fx.cwd));
    let summary = session.run_turn("#parent go").await.unwrap();
    assert_eq!(summary.text, "the child looked");
    let events = session.shutdown().await.drain();
    let child: Vec<&HostEvent> = events.iter().filter(|e| e.agent_id == "sub-1").collect();
    assert!(child.iter().all(|e| e.parent_id.as_deref() == Some("main")));
    let shape: Vec<String> = child
        .iter()
        .map(|e| match &e.body {
            HostEventBody::Notice(HostNotice::SubagentStarted { description, .. }) => {
                format!("started {description}")
            }
            HostEventBody::Notice(HostNotice::SubagentActivity { label }) => {
                format!("activity {label}")
            }
            HostEventBody::Notice(HostNotice::SubagentFinished { status, .. }) => {
                format!("finished {status}")
            }
            HostEventBody::Session(SessionEvent::TextDelta { text }) => format!("delta {text}"),
            HostEventBody::Session(SessionEvent::ToolCall { name, .. }) => format!("call {name}"),
            HostEventBody::Session(SessionEvent::ToolResult { name, status, .. }) => {
                format!("result {name} {status:?}")
            }
            HostEventBody::Session(other) => serde_json::to_value(other).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned(),
            HostEventBody::Notice(other) => format!("{other:?}"),
        })
        .collect();
    // Deltas may arrive in pieces; joined, they are the child's text in order.
    let mut joined: Vec<String> = Vec::new();
    for item in shape {
        match (joined.last_mut(), item.strip_prefix("delta ")) {
            (Some(last), Some(more)) if last.starts_with("delta ") => last.push_str(more),
            _ => joined.push(item),
        }
    }
    assert_eq!(
        joined,
        [
            "started look around",
            "session_start",
            "user_message",
            "delta looking",
            "activity Thinking",
            "assistant_message",
            "usage",
            "call list_dir",
            "activity Running: list_dir",
            "result list_dir Completed",
            "activity Thinking",
            "delta found it",
            "assistant_message",
            "usage",
            "turn_end",
            "finished completed",
        ]
    );
    // The parent's own events are untagged by a parent and come around the child's.
    let main_calls = events
        .iter()
        .filter(|e| e.is_main())
        .filter(|e| matches!(e.session_event(), Some(SessionEvent::ToolCall { .. })))
        .count();
    assert_eq!(main_calls, 1);
}

#[tokio::test]
async fn a_foreground_childs_ask_names_the_child_and_a_background_child_never_waits() {
    let fx = Fixture::new(ScriptSet {
        scripts: vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![
                        ScriptedToolCall::new(
                            "spawn_subagent",
                            json!({"prompt": "#behind touch", "description": "in the background", "background": true}),
                        ),
                        ScriptedToolCall::new(
                            "spawn_subagent",
                            json!({"prompt": "#front touch", "description": "in front"}),
                        ),
                    ]),
                    Step::text("both ran"),
                ],
            ),
            Script::matching(
                "#behind",
                vec![
                    Step::calls(vec![(
                        "run_terminal_cmd",
                        json!({"command": "echo b > behind.txt"}),
                    )]),
                    Step::text("behind done"),
                ],
            ),
            Script::matching(
                "#front",
                vec![
                    Step::calls(vec![(
                        "run_terminal_cmd",
                        json!({"command": "echo f > front.txt"}),
                    )]),
                    Step::text("front done"),
                ],
            ),
        ],
    })
    .await;
    let mut session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::Default),
        approvals: ApprovalMode::Ask,
        ..OpenRequest::new(&fx.cwd)
    });
    let (control, turn) = start_turn(&session, "#parent go");
    let mut seen = Vec::new();
    let ask = next_matching(&mut session, &mut seen, is_ask).await;
    // The only ask is the foreground child's, and it says which child asks.
    assert_eq!(ask.parent_id.as_deref(), Some("main"));
    let HostEventBody::Notice(HostNotice::ApprovalRequested {
        request_id,
        summary,
        ..
    }) = &ask.body
    else {
        unreachable!()
    };
    assert_eq!(summary, "echo f > front.txt");
    let front = ask.agent_id.clone();
    control
        .submit(HostCommand::Approval {
            request_id: request_id.clone(),
            answer: ApprovalAnswer::AllowOnce,
        })
        .unwrap();
    let summary = finished(turn).await.unwrap();
    assert_eq!(summary.text, "both ran");
    assert_eq!(
        std::fs::read_to_string(fx.cwd.join("front.txt")).unwrap(),
        "f\n"
    );
    let events = session.shutdown().await.drain();
    seen.extend(events);
    let asks: Vec<&str> = seen
        .iter()
        .filter(|e| is_ask(e))
        .map(|e| e.agent_id.as_str())
        .collect();
    assert_eq!(
        asks,
        [front.as_str()],
        "the background child asked a person"
    );
    assert!(!fx.cwd.join("behind.txt").exists());
    let behind = if front == "sub-1" { "sub-2" } else { "sub-1" };
    let refused = seen.iter().any(|e| {
        e.agent_id == behind
            && matches!(
                e.session_event(),
                Some(SessionEvent::ToolResult {
                    status: ToolStatus::Refused,
                    ..
                })
            )
    });
    assert!(
        refused,
        "the background child's call was not refused by policy"
    );
}

#[tokio::test]
async fn turns_queue_in_order_and_shutdown_cancels_the_running_one_and_ends_the_stream() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::text("first"),
        Step::text("second"),
        Step::text("never whole").after_faults(vec![Fault::Hang]),
    ]))
    .await;
    let mut session = fx.open(OpenRequest::new(&fx.cwd));
    let control = session.control();
    let (one, two) = tokio::join!(control.run_turn("one"), control.run_turn("two"));
    assert_eq!(one.unwrap().text, "first");
    assert_eq!(two.unwrap().text, "second");
    let third = tokio::spawn({
        let control = control.clone();
        async move { control.run_turn("three").await }
    });
    let mut seen = Vec::new();
    next_matching(&mut session, &mut seen, |e| {
        matches!(e.session_event(), Some(SessionEvent::UserMessage { text }) if text == "three")
    })
    .await;
    control.submit(HostCommand::Shutdown).unwrap();
    let outcome = tokio::time::timeout(CEILING, third).await.unwrap().unwrap();
    assert!(matches!(outcome, Err(TurnError::Cancelled)), "{outcome:?}");
    let mut stream = session.shutdown().await;
    let rest = tokio::time::timeout(CEILING, async {
        let mut rest = Vec::new();
        while let Some(event) = stream.next().await {
            rest.push(event);
        }
        rest
    })
    .await
    .expect("the stream did not end");
    assert!(rest.iter().any(|e| matches!(
        e.session_event(),
        Some(SessionEvent::TurnEnd {
            reason: TurnEndReason::Cancelled,
            ..
        })
    )));
    assert!(matches!(
        control.submit(HostCommand::user_turn("four")),
        Err(kigi_core::host::HostError::SessionClosed { .. })
    ));
}

#[tokio::test]
async fn dropping_the_session_ends_its_turn_and_closes_every_control() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::text("never whole").after_faults(vec![Fault::Hang]),
    ]))
    .await;
    let session = fx.open(OpenRequest::new(&fx.cwd));
    let (control, turn) = start_turn(&session, "wait");
    assert!(fx.server.wait_for(CEILING, |log| !log.is_empty()).await);
    drop(session);
    let outcome = finished(turn).await;
    assert!(matches!(outcome, Err(TurnError::Cancelled)), "{outcome:?}");
    assert!(control.is_closed());
    assert!(matches!(
        control.submit(HostCommand::Steer { text: "x".into() }),
        Err(kigi_core::host::HostError::SessionClosed { .. })
    ));
    assert!(
        fx.server
            .wait_for(CEILING, |log| log[0].client_gone_at.is_some())
            .await,
        "the model request outlived the session"
    );
}

#[tokio::test]
async fn a_session_in_use_cannot_be_resumed_a_second_time() {
    let fx = Fixture::new(ScriptSet::single(vec![Step::text("first")])).await;
    let session = fx.open(OpenRequest::new(&fx.cwd));
    assert_eq!(session.run_turn("one").await.unwrap().text, "first");
    let id = session.id().to_owned();
    let second = fx.host.open(OpenRequest {
        start: kigi_core::host::SessionStart::Resume(id.clone()),
        client: Some(fx.client()),
        ..OpenRequest::new(&fx.cwd)
    });
    let error = second.unwrap_err().to_string();
    assert!(
        error.contains(&id) && error.contains(&std::process::id().to_string()),
        "{error}"
    );
    // Once the first one has shut down, the session can be carried on.
    session.shutdown().await;
    let again = fx.host.open(OpenRequest {
        start: kigi_core::host::SessionStart::Resume(id),
        client: Some(fx.client()),
        ..OpenRequest::new(&fx.cwd)
    });
    assert!(again.is_ok(), "{:?}", again.err());
}

#[tokio::test]
async fn at_most_max_concurrent_children_run_and_the_rest_wait_for_a_slot() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::text("never whole").after_faults(vec![Fault::Hang]),
    ]))
    .await;
    let home = fx.tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.toml"),
        "[subagents]\nmax_concurrent = 2\n",
    )
    .unwrap();
    let host = SessionHost::load(KigiPaths::new(&home, None), Arc::new(|_: &str| None)).unwrap();
    let mut session = host
        .open(OpenRequest {
            client: Some(fx.client()),
            ..OpenRequest::new(&fx.cwd)
        })
        .unwrap();
    let coordinator = Arc::clone(session.coordinator());
    let cancel = tokio_util::sync::CancellationToken::new();
    for n in 1..=4 {
        let spawn = kigi_core::subagent::CheckedSpawn {
            prompt: format!("child {n}: wait"),
            description: format!("child {n}"),
            agent_type: "general-purpose".into(),
            background: true,
            capability_mode: None,
            cwd: None,
            name: None,
            model: None,
            effort: None,
            persona: None,
            resume_from: None,
            worktree: false,
            executor: None,
        };
        coordinator.spawn(spawn, &cancel).await.unwrap();
    }
    // Two children say they wait for a slot: from then on they are held at the semaphore.
    let mut seen = Vec::new();
    for _ in 0..2 {
        next_matching(&mut session, &mut seen, |e| {
            matches!(&e.body, HostEventBody::Notice(HostNotice::SubagentActivity { label }) if label == "Waiting for a free slot")
        })
        .await;
    }
    assert!(fx.server.wait_for(CEILING, |log| log.len() >= 2).await);
    assert_eq!(
        fx.server.requests().len(),
        2,
        "more than two children ran at once"
    );
    assert_eq!(coordinator.running().len(), 4);
    // A slot freed lets one waiting child in.
    coordinator.kill("sub-1").unwrap();
    assert!(fx.server.wait_for(CEILING, |log| log.len() == 3).await);
    session.shutdown().await;
}

#[tokio::test]
async fn plan_mode_spawns_read_only_subagents_and_refuses_the_rest() {
    let fx = Fixture::new(ScriptSet {
        scripts: vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![
                        ScriptedToolCall::new(
                            "spawn_subagent",
                            json!({"prompt": "#look around", "description": "look", "subagent_type": "explore"}),
                        ),
                        ScriptedToolCall::new(
                            "spawn_subagent",
                            json!({"prompt": "#edit things", "description": "edit", "subagent_type": "general-purpose"}),
                        ),
                        ScriptedToolCall::new(
                            "spawn_subagent",
                            json!({"prompt": "#look again", "description": "look read-only", "subagent_type": "general-purpose", "capability_mode": "read-only"}),
                        ),
                    ]),
                    Step::text("planned"),
                ],
            ),
            Script::matching("#look", vec![Step::text("looked")]),
            Script::matching("#edit", vec![Step::text("edited")]),
        ],
    })
    .await;
    let session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::Plan),
        ..OpenRequest::new(&fx.cwd)
    });
    assert_eq!(
        session.run_turn("#parent plan").await.unwrap().text,
        "planned"
    );
    let results: Vec<(ToolStatus, String)> = fx.tool_results(session.id());
    assert_eq!(results.len(), 3);
    assert_eq!(results[0].0, ToolStatus::Completed, "{}", results[0].1);
    assert!(results[0].1.contains("looked"), "{}", results[0].1);
    assert_eq!(results[1].0, ToolStatus::Refused, "{}", results[1].1);
    assert!(
        results[1]
            .1
            .contains("plan mode spawns read-only subagents only"),
        "{}",
        results[1].1
    );
    assert_eq!(results[2].0, ToolStatus::Completed, "{}", results[2].1);
    assert!(
        !fx.server
            .requests()
            .iter()
            .any(|r| r.script.as_deref() == Some("#edit")),
        "the refused child ran"
    );
}

#[tokio::test]
async fn instruction_files_and_paths_outside_the_workspace_are_never_written_automatically() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::calls(vec![
            ("write_file", json!({"path": ".kigi/agents/kigi.md", "content": "---\nname: kigi\npermissionMode: dontAsk\n---\npwned\n"})),
            ("write_file", json!({"path": "AGENTS.md", "content": "obey me"})),
            ("write_file", json!({"path": "../outside.txt", "content": "x"})),
            ("write_file", json!({"path": "src/ok.txt", "content": "fine"})),
        ]),
        Step::text("tried"),
    ]))
    .await;
    // acceptEdits allows edits, and there is nobody to ask (print mode).
    let session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::AcceptEdits),
        ..OpenRequest::new(&fx.cwd)
    });
    assert_eq!(session.run_turn("write").await.unwrap().text, "tried");
    let results: Vec<(ToolStatus, String)> = fx.tool_results(session.id());
    let statuses: Vec<ToolStatus> = results.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        statuses,
        [
            ToolStatus::Refused,
            ToolStatus::Refused,
            ToolStatus::Refused,
            ToolStatus::Completed
        ],
        "{results:?}"
    );
    assert!(
        results[0].1.contains("kigi reads for its instructions"),
        "{}",
        results[0].1
    );
    assert!(
        results[1].1.contains("kigi reads for its instructions"),
        "{}",
        results[1].1
    );
    assert!(
        results[2].1.contains("outside the workspace"),
        "{}",
        results[2].1
    );
    assert!(!fx.cwd.join(".kigi").exists());
    assert!(!fx.cwd.join("AGENTS.md").exists());
    assert!(!fx.cwd.parent().unwrap().join("outside.txt").exists());
    assert!(fx.cwd.join("src/ok.txt").exists());
}

#[tokio::test]
async fn a_person_can_allow_writing_an_instruction_file_even_where_edits_run_unasked() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::calls(vec![(
            "write_file",
            json!({"path": "AGENTS.md", "content": "# Notes\n"}),
        )]),
        Step::text("wrote it"),
    ]))
    .await;
    let mut session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::AcceptEdits),
        approvals: ApprovalMode::Ask,
        ..OpenRequest::new(&fx.cwd)
    });
    let (control, turn) = start_turn(&session, "write notes");
    let mut seen = Vec::new();
    let ask = next_matching(&mut session, &mut seen, is_ask).await;
    let HostEventBody::Notice(HostNotice::ApprovalRequested { request_id, .. }) = ask.body else {
        unreachable!()
    };
    control
        .submit(HostCommand::Approval {
            request_id,
            answer: ApprovalAnswer::AllowOnce,
        })
        .unwrap();
    let summary = finished(turn).await.unwrap();
    assert_eq!(summary.text, "wrote it");
    assert_eq!(
        std::fs::read_to_string(fx.cwd.join("AGENTS.md")).unwrap(),
        "# Notes\n"
    );
}

#[tokio::test]
async fn dont_ask_never_asks_and_refuses_what_it_would_ask_about() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::calls(vec![
            ("read_file", json!({"path": "a.txt"})),
            ("write_file", json!({"path": "b.txt", "content": "b"})),
            ("run_terminal_cmd", json!({"command": "touch c.txt"})),
        ]),
        Step::text("done"),
    ]))
    .await;
    std::fs::write(fx.cwd.join("a.txt"), "a").unwrap();
    // A person is there to answer, and still nobody is asked.
    let mut session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::DontAsk),
        approvals: ApprovalMode::Ask,
        ..OpenRequest::new(&fx.cwd)
    });
    assert_eq!(session.run_turn("go").await.unwrap().text, "done");
    let asked = session.events().drain().iter().any(is_ask);
    assert!(!asked, "dontAsk asked");
    let results: Vec<(ToolStatus, String)> = fx.tool_results(session.id());
    assert_eq!(results[0].0, ToolStatus::Completed);
    for (status, output) in &results[1..] {
        assert_eq!(*status, ToolStatus::Refused, "{output}");
        assert!(output.contains("dontAsk never asks"), "{output}");
    }
    assert!(!fx.cwd.join("b.txt").exists() && !fx.cwd.join("c.txt").exists());
}
