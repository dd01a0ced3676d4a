//! The host commands and notices front ends build on beyond turns and approvals: attachments
//! with a user turn, `SetModel`, `SetSubagentEnabled`, background commands, and a foreground
//! child moving to the background; against the scripted model server over loopback.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_agent::PermissionMode;
use kigi_agent::permissions::{PermissionRules, RuleEffect, RuleSource};
use kigi_core::host::{HostError, OpenRequest};
use kigi_protocol::{
    AttachedText, Attachment, HostCommand, HostEventBody, HostNotice, SessionEvent,
};
use kigi_testkit::{Fault, Script, ScriptSet, ScriptedToolCall, Step};
use serde_json::json;
use support::*;

fn body_text(fx: &Fixture, request: usize) -> String {
    serde_json::to_string(&fx.server.requests()[request].body).unwrap()
}

#[tokio::test]
async fn an_attached_file_reaches_the_model_after_the_prompt_and_a_denied_one_is_refused() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::text("seen"),
        Step::text("still seen"),
    ]))
    .await;
    std::fs::write(fx.cwd.join("notes.md"), "the launch code is 42\n").unwrap();
    std::fs::write(fx.cwd.join("secret.txt"), "hunter2\n").unwrap();
    let mut rules = PermissionRules::default();
    rules
        .add(
            RuleEffect::Deny,
            &["Read(secret.txt)".to_owned()],
            &RuleSource::Flag("--disallowedTools"),
            "deny",
        )
        .unwrap();
    let mut session = fx.open(OpenRequest {
        rules,
        ..OpenRequest::new(&fx.cwd)
    });
    let control = session.control();

    let refused = control
        .submit(HostCommand::UserTurn {
            text: "read it".into(),
            attachments: vec![Attachment::File {
                path: "secret.txt".into(),
            }],
        })
        .unwrap_err();
    assert!(
        matches!(refused, HostError::Attachment(_)) && refused.to_string().contains("secret.txt"),
        "{refused}"
    );
    assert!(fx.server.requests().is_empty(), "a refused turn never runs");

    control
        .submit(HostCommand::UserTurn {
            text: "what does @notes.md say?".into(),
            attachments: vec![Attachment::File {
                path: "notes.md".into(),
            }],
        })
        .unwrap();
    let mut seen = Vec::new();
    next_matching(&mut session, &mut seen, |e| {
        matches!(e.session_event(), Some(SessionEvent::TurnEnd { .. }))
    })
    .await;
    let sent = body_text(&fx, 0);
    assert!(sent.contains("what does @notes.md say?"), "{sent}");
    assert!(
        sent.contains("<attachment source=\\\"notes.md\\\">\\nthe launch code is 42"),
        "{sent}"
    );
    assert!(!sent.contains("hunter2"));
    let stored = fx.stored(session.id());
    assert!(stored.contains(&SessionEvent::UserAttachments {
        files: vec![AttachedText {
            source: "notes.md".into(),
            text: "the launch code is 42\n".into()
        }],
        images: Vec::new(),
    }));

    // A resumed session sends the attachment again.
    let id = session.id().to_owned();
    drop(session.shutdown().await);
    let resumed = fx.open(OpenRequest {
        start: kigi_core::host::SessionStart::Resume(id),
        ..OpenRequest::new(&fx.cwd)
    });
    resumed.run_turn("and now?").await.unwrap();
    assert!(body_text(&fx, 1).contains("the launch code is 42"));
}

#[tokio::test]
async fn set_model_switches_the_next_request_and_says_so() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::text("one"),
        Step::text("two"),
    ]))
    .await;
    let mut session = fx.open(OpenRequest::new(&fx.cwd));
    session.run_turn("first").await.unwrap();
    let control = session.control();
    assert!(matches!(
        control.submit(HostCommand::SetModel { model: " ".into() }),
        Err(HostError::Model(_))
    ));
    control
        .submit(HostCommand::SetModel {
            model: "scripted-large".into(),
        })
        .unwrap();
    let mut seen = Vec::new();
    let changed = next_matching(&mut session, &mut seen, |e| {
        matches!(
            e.body,
            HostEventBody::Notice(HostNotice::ModelChanged { .. })
        )
    })
    .await;
    assert!(changed.is_main());
    assert!(matches!(
        changed.body,
        HostEventBody::Notice(HostNotice::ModelChanged { ref model, .. }) if model == "scripted-large"
    ));
    session.run_turn("second").await.unwrap();
    let requests = fx.server.requests();
    assert_eq!(requests[0].body["model"], "scripted");
    assert_eq!(requests[1].body["model"], "scripted-large");
}

#[tokio::test]
async fn a_type_switched_off_is_not_offered_next_request_nor_spawnable() {
    let spawn_plan = ScriptedToolCall {
        id: None,
        name: "spawn_subagent".into(),
        arguments: json!({"subagent_type": "plan", "description": "d", "prompt": "p"}),
    };
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::text("one"),
        Step::calls(vec![spawn_plan]),
        Step::text("done"),
    ]))
    .await;
    let session = fx.open(OpenRequest::new(&fx.cwd));
    session.run_turn("first").await.unwrap();
    let control = session.control();
    let unknown = control
        .submit(HostCommand::SetSubagentEnabled {
            agent_type: "no-such-type".into(),
            enabled: false,
        })
        .unwrap_err();
    assert!(unknown.to_string().contains("no-such-type"), "{unknown}");
    control
        .submit(HostCommand::SetSubagentEnabled {
            agent_type: "plan".into(),
            enabled: false,
        })
        .unwrap();
    session.run_turn("second").await.unwrap();
    let spawn_description = |request: usize| {
        fx.server.requests()[request].body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["function"]["name"] == "spawn_subagent")
            .map(|t| t["function"]["description"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert!(spawn_description(0).contains("\n- plan: "));
    assert!(!spawn_description(1).contains("\n- plan: "));
    let results = fx.tool_results(session.id());
    assert!(
        results[0].1.contains("`plan` is disabled"),
        "{:?}",
        results[0]
    );
}

#[tokio::test]
async fn a_persona_switched_off_for_the_session_is_refused_at_the_next_spawn_and_on_again_works() {
    let spawn_concise = ScriptedToolCall {
        id: None,
        name: "spawn_subagent".into(),
        arguments: json!({"description": "d", "prompt": "#child p", "persona": "concise"}),
    };
    let fx = Fixture::new(
        ScriptSet::default()
            .with(Script::matching("#child", vec![Step::text("child done")]))
            .with(Script {
                name: "parent".into(),
                marker: None,
                steps: vec![
                    Step::calls(vec![spawn_concise.clone()]),
                    Step::text("refused"),
                    Step::calls(vec![spawn_concise]),
                    Step::text("spawned"),
                ],
            }),
    )
    .await;
    let session = fx.open(OpenRequest::new(&fx.cwd));
    let control = session.control();
    let unknown = control
        .submit(HostCommand::SetPersonaEnabled {
            persona: "no-such-persona".into(),
            enabled: false,
        })
        .unwrap_err();
    assert!(
        unknown.to_string().contains("no-such-persona") && unknown.to_string().contains("concise"),
        "{unknown}"
    );
    control
        .submit(HostCommand::SetPersonaEnabled {
            persona: "concise".into(),
            enabled: false,
        })
        .unwrap();
    session.run_turn("first").await.unwrap();
    control
        .submit(HostCommand::SetPersonaEnabled {
            persona: "concise".into(),
            enabled: true,
        })
        .unwrap();
    session.run_turn("second").await.unwrap();
    let results = fx.tool_results(session.id());
    assert!(
        results[0].1.contains("persona `concise` is switched off"),
        "{:?}",
        results[0]
    );
    assert!(results[1].1.contains("child done"), "{:?}", results[1]);
}

#[tokio::test]
async fn background_commands_are_announced_when_they_start_and_end() {
    let fx = Fixture::new(ScriptSet::single(vec![
        Step::calls(vec![ScriptedToolCall {
            id: None,
            name: "run_terminal_cmd".into(),
            arguments: json!({"command": "exit 3", "background": true}),
        }]),
        Step::text("started"),
    ]))
    .await;
    let mut session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..OpenRequest::new(&fx.cwd)
    });
    let (_control, turn) = start_turn(&session, "go");
    let mut seen = Vec::new();
    let started = next_matching(&mut session, &mut seen, |e| {
        matches!(
            e.body,
            HostEventBody::Notice(HostNotice::BackgroundCommandStarted { .. })
        )
    })
    .await;
    let HostEventBody::Notice(HostNotice::BackgroundCommandStarted { task_id, command }) =
        started.body
    else {
        unreachable!()
    };
    assert_eq!(command, "exit 3");
    let ended = next_matching(&mut session, &mut seen, |e| {
        matches!(
            e.body,
            HostEventBody::Notice(HostNotice::BackgroundCommandFinished { .. })
        )
    })
    .await;
    assert_eq!(
        ended.body,
        HostEventBody::Notice(HostNotice::BackgroundCommandFinished {
            task_id,
            status: kigi_protocol::BackgroundCommandStatus::Exited,
            exit_code: Some(3),
        })
    );
    finished(turn).await.unwrap();
}

#[tokio::test]
async fn a_foreground_child_past_the_wait_is_announced_as_moved_to_the_background() {
    let main = Script {
        name: "main".into(),
        marker: None,
        steps: vec![
            Step::calls(vec![ScriptedToolCall {
                id: None,
                name: "spawn_subagent".into(),
                arguments: json!({
                    "subagent_type": "general-purpose",
                    "description": "slow",
                    "prompt": "#slow-child take your time",
                }),
            }]),
            Step::text("moved on"),
        ],
    };
    let child = Script::matching(
        "#slow-child",
        vec![Step::text("late").after_faults(vec![Fault::Hang])],
    );
    let fx = Fixture::with_config(
        ScriptSet {
            scripts: vec![main, child],
        },
        "[subagents]\nawait_budget_ms = 50\n",
    )
    .await;
    let mut session = fx.open(OpenRequest::new(&fx.cwd));
    let (_control, turn) = start_turn(&session, "delegate");
    let mut seen = Vec::new();
    let moved = next_matching(&mut session, &mut seen, |e| {
        matches!(
            e.body,
            HostEventBody::Notice(HostNotice::SubagentMovedToBackground {})
        )
    })
    .await;
    assert_eq!(moved.agent_id, "sub-1");
    assert!(finished(turn).await.is_ok());
}
