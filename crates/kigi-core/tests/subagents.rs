//! Subagents end to end: a parent session with its coordinator against the scripted model
//! server. Each conversation is routed to its own script by a marker in its first message.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use kigi_agent::{AgentBuilder, AgentDefinition, KigiPaths, LoadedConfig, PermissionMode};
use kigi_core::host::{AgentChoice, OpenRequest, SessionHost};
use kigi_core::{SessionStore, TurnError};
use kigi_model::{CancellationToken, ModelClient, ModelEndpoint, Provider, RetryPolicy};
use kigi_protocol::HostCommand;
use kigi_testkit::{
    Fault, RecordedRequest, Script, ScriptSet, ScriptedServer, ScriptedToolCall, ScriptedUsage,
    Step,
};
use serde_json::{Value, json};

struct Tree {
    tmp: tempfile::TempDir,
    cwd: std::path::PathBuf,
    store: SessionStore,
    server: ScriptedServer,
    env: Vec<(String, String)>,
}

fn spawn(args: Value) -> ScriptedToolCall {
    ScriptedToolCall::new("spawn_subagent", args)
}

impl Tree {
    async fn new(scripts: Vec<Script>, config: &str) -> Self {
        Self::new_in(tempfile::tempdir().unwrap(), scripts, config).await
    }

    /// A tree in `tmp` (a folder outside the system temp dir, which sandboxed commands may
    /// write, for tests of the sandbox).
    async fn new_in(tmp: tempfile::TempDir, scripts: Vec<Script>, config: &str) -> Self {
        let cwd = tmp.path().join("repo");
        std::fs::create_dir_all(&cwd).unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let server = ScriptedServer::start(ScriptSet { scripts }).await.unwrap();
        let config = config.replace("{URL}", &server.url());
        std::fs::write(home.join("config.toml"), config).unwrap();
        Self {
            store: SessionStore::new(home.join("sessions")),
            tmp,
            cwd,
            server,
            env: Vec::new(),
        }
    }

    fn paths(&self) -> KigiPaths {
        KigiPaths::new(self.tmp.path().join("home"), None)
    }

    /// Runs the parent's turn `prompt` with `frontmatter`; returns the outcome and the session id.
    async fn run(
        &self,
        frontmatter: &str,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> (Result<String, TurnError>, String) {
        let text = format!(
            "---\nname: parent\ndescription: parent agent\n{frontmatter}---\nYou delegate.\n"
        );
        let agent = AgentBuilder::new(&self.cwd)
            .with_paths(self.paths())
            .from_definition(AgentDefinition::parse(&text, None).unwrap())
            .build()
            .unwrap();
        let policy = RetryPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RetryPolicy::default()
        };
        let client = ModelClient::with_policy(
            ModelEndpoint::new(Provider::OpenaiChat, self.server.url(), "parent-model"),
            policy,
        )
        .unwrap();
        let env = self.env.clone();
        let env: kigi_core::subagent::EnvLookup =
            Arc::new(move |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()));
        // The one config load, with this test's environment for its overrides.
        let loaded = LoadedConfig::load(&self.paths().config_file(), &*env).unwrap();
        let host = SessionHost::from_config(self.paths(), loaded, env).unwrap();
        let mut session = host
            .open(OpenRequest {
                agent: AgentChoice::Built(Box::new(agent)),
                client: Some(client),
                permission_mode: Some(PermissionMode::BypassPermissions),
                ..OpenRequest::new(&self.cwd)
            })
            .unwrap();
        let id = session.id().to_owned();
        let control = session.control();
        // Cancelling the test's token is what Ctrl-C does: an interrupt.
        let interrupt = {
            let (control, cancel) = (control.clone(), cancel.clone());
            tokio::spawn(async move {
                cancel.cancelled().await;
                control.submit(HostCommand::Interrupt).unwrap();
            })
        };
        // The events are read as they come, as every front end does.
        let events = session.events();
        let turn = control.run_turn(prompt);
        tokio::pin!(turn);
        let outcome = loop {
            tokio::select! {
                biased;
                Some(_) = events.next() => {}
                outcome = &mut turn => break outcome.map(|s| s.text),
            }
        };
        interrupt.abort();
        session.shutdown().await;
        (outcome, id)
    }

    fn requests_of(&self, script: &str) -> Vec<RecordedRequest> {
        self.server
            .requests()
            .into_iter()
            .filter(|r| r.script.as_deref() == Some(script))
            .collect()
    }

    /// The tool-result contents of a chat request.
    fn tool_results(request: &RecordedRequest) -> Vec<String> {
        request.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap().to_owned())
            .collect()
    }

    fn offered_tools(request: &RecordedRequest) -> Vec<String> {
        request.body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[tokio::test]
async fn a_foreground_child_runs_with_its_own_transcript_and_reports_back() {
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![spawn(json!({"prompt": "#child-a read a.txt", "description": "read the file", "subagent_type": "explore"}))]),
                Step::text("The child read it."),
            ]),
            Script::matching("#child-a", vec![Step::calls(vec![ScriptedToolCall::new("read_file", json!({"path": "a.txt"}))]), Step::text("a.txt says hi")]),
        ],
        "",
    )
    .await;
    std::fs::write(tree.cwd.join("a.txt"), "hi\n").unwrap();
    let (outcome, id) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "The child read it.");
    let parent = tree.requests_of("#parent");
    let report = &Tree::tool_results(&parent[1])[0];
    assert!(
        report.starts_with("subagent sub-1 [explore] \"read the file\" completed in"),
        "{report}"
    );
    assert!(
        report.contains("2 turn(s), 1 tool call(s)") && report.ends_with("a.txt says hi"),
        "{report}"
    );
    assert!(report.contains("model parent-model (parent)"), "{report}");
    // The child's transcript lives under the parent's session, every record naming the child.
    let wire = std::fs::read_to_string(tree.store.child_wire_path(&id, "sub-1").unwrap()).unwrap();
    let records: Vec<Value> = wire
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        records
            .iter()
            .all(|r| r["params"]["agentId"] == "sub-1" && r["params"]["sessionId"] == id.as_str())
    );
    assert!(
        records
            .iter()
            .any(|r| r["params"]["update"]["type"] == "tool_result"
                && r["params"]["update"]["output"] == "     1\thi\n")
    );
    // The parent was offered the subagent tools; the child was not (depth limit 1).
    let child = tree.requests_of("#child-a");
    assert!(Tree::offered_tools(&parent[0]).contains(&"spawn_subagent".to_owned()));
    assert!(
        !Tree::offered_tools(&child[0])
            .iter()
            .any(|t| t == "spawn_subagent" || t == "get_command_or_subagent_output")
    );
    let description = parent[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "spawn_subagent")
        .unwrap()["function"]["description"]
        .to_string();
    assert!(
        description.contains("- explore:") && description.contains("- plan:"),
        "{description}"
    );
}

#[tokio::test]
async fn children_of_one_response_run_at_the_same_time() {
    let child = |marker: &str| {
        Script::matching(
            marker,
            vec![Step {
                latency_ms: 1_000,
                ..Step::text(format!("done {marker}"))
            }],
        )
    };
    let spawn = |marker: &str| {
        spawn(json!({"prompt": format!("{marker} work"), "description": "parallel work"}))
    };
    let tree = Tree::new(
        vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![spawn("#c1"), spawn("#c2"), spawn("#c3")]),
                    Step::text("all done"),
                ],
            ),
            child("#c1"),
            child("#c2"),
            child("#c3"),
        ],
        "",
    )
    .await;
    let (outcome, _) = tree
        .run("", "#parent fan out", &CancellationToken::new())
        .await;
    assert_eq!(outcome.unwrap(), "all done");
    let arrivals: Vec<Duration> = ["#c1", "#c2", "#c3"]
        .iter()
        .map(|m| tree.requests_of(m)[0].at)
        .collect();
    let first = *arrivals.iter().min().unwrap();
    let last = *arrivals.iter().max().unwrap();
    // Each child's model takes 1 s to answer: one after another, the last request would
    // arrive at least 2 s after the first.
    assert!(
        last - first < Duration::from_millis(1_000),
        "children ran one after another: {arrivals:?}"
    );
    let results = Tree::tool_results(&tree.requests_of("#parent")[1]);
    assert_eq!(results.len(), 3);
    for (n, result) in results.iter().enumerate() {
        assert!(result.ends_with(&format!("done #c{}", n + 1)), "{result}");
    }
}

#[tokio::test]
async fn a_child_past_the_foreground_budget_moves_to_the_background_and_is_collected() {
    let mut tree = Tree::new(
        vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![spawn(
                        json!({"prompt": "#slow work", "description": "slow work"}),
                    )]),
                    Step::calls(vec![ScriptedToolCall::new(
                        "get_command_or_subagent_output",
                        json!({"ids": ["sub-1"], "timeout_secs": 60}),
                    )]),
                    Step::text("collected"),
                ],
            ),
            Script::matching(
                "#slow",
                vec![Step {
                    latency_ms: 1_500,
                    ..Step::text("slow result")
                }],
            ),
        ],
        "",
    )
    .await;
    tree.env
        .push(("KIGI_SUBAGENT_AWAIT_BUDGET_MS".into(), "100".into()));
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "collected");
    let parent = tree.requests_of("#parent");
    let moved = &Tree::tool_results(&parent[1])[0];
    assert!(
        moved.starts_with("backgrounded: true. Subagent sub-1 is still running"),
        "{moved}"
    );
    let collected = &Tree::tool_results(&parent[2])[1];
    assert!(
        collected.contains("completed") && collected.ends_with("slow result"),
        "{collected}"
    );
    // Collected by the wait, so not announced again.
    assert!(
        !parent[2]
            .body
            .to_string()
            .contains("A background subagent finished")
    );
}

#[tokio::test]
async fn a_finished_background_child_is_announced_at_the_parents_next_step() {
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![
                    spawn(json!({"prompt": "#fast work", "description": "fast work", "background": true})),
                    spawn(json!({"prompt": "#later work", "description": "later work", "background": true})),
                ]),
                Step::calls(vec![ScriptedToolCall::new("get_command_or_subagent_output", json!({"ids": ["sub-2"], "timeout_secs": 60}))]),
                Step::text("both seen"),
            ]),
            Script::matching("#fast", vec![Step::text("fast result")]),
            Script::matching("#later", vec![Step { latency_ms: 1_000, ..Step::text("later result") }]),
        ],
        "",
    )
    .await;
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "both seen");
    let parent = tree.requests_of("#parent");
    let started = Tree::tool_results(&parent[1]);
    assert!(
        started[0].starts_with("Subagent sub-1 started in the background"),
        "{started:?}"
    );
    let last = parent[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        last.starts_with("<system-reminder>\nA background subagent finished.\nsubagent sub-1"),
        "{last}"
    );
    assert!(last.contains("fast result"));
}

#[tokio::test]
async fn a_child_cannot_delegate_or_exceed_its_parents_tools() {
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![spawn(json!({"prompt": "#child try things", "description": "try things", "capability_mode": "read-only"}))]),
                Step::text("ok"),
            ]),
            Script::matching("#child", vec![
                Step::calls(vec![
                    spawn(json!({"prompt": "#grandchild", "description": "nested"})),
                    ScriptedToolCall::new("write_file", json!({"path": "x.txt", "content": "x"})),
                    ScriptedToolCall::new("run_terminal_cmd", json!({"command": "touch y.txt"})),
                ]),
                Step::text("refused"),
            ]),
        ],
        "",
    )
    .await;
    // The parent itself has no shell.
    let (outcome, _) = tree.run("tools: [read_file, list_dir, write_file, spawn_subagent, get_command_or_subagent_output]\n", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    assert!(!tree.cwd.join("x.txt").exists() && !tree.cwd.join("y.txt").exists());
    let child = tree.requests_of("#child");
    let offered = Tree::offered_tools(&child[0]);
    assert_eq!(
        offered,
        ["read_file", "list_dir", "notify_parent"],
        "read-only mode and the parent's list, intersected"
    );
    let results = Tree::tool_results(&child[1]);
    assert!(
        results[0].starts_with("depth limit: `spawn_subagent` is not available to a subagent"),
        "{}",
        results[0]
    );
    assert!(
        results[1].starts_with("unknown tool `write_file`"),
        "{}",
        results[1]
    );
    assert!(
        results[2].starts_with("unknown tool `run_terminal_cmd`"),
        "{}",
        results[2]
    );
    assert!(tree.requests_of("#grandchild").is_empty());
}

#[tokio::test]
async fn a_childs_calls_answer_to_the_sessions_deny_rules() {
    let tree = Tree::new(
        vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![spawn(
                        json!({"prompt": "#child go", "description": "go"}),
                    )]),
                    Step::text("ok"),
                ],
            ),
            Script::matching(
                "#child",
                vec![
                    Step::calls(vec![
                        ScriptedToolCall::new(
                            "run_terminal_cmd",
                            json!({"command": "echo fine && touch y.txt"}),
                        ),
                        ScriptedToolCall::new("run_terminal_cmd", json!({"command": "echo fine"})),
                    ]),
                    Step::text("done"),
                ],
            ),
        ],
        "[permissions]\ndeny = [\"Bash(touch:*)\"]\n",
    )
    .await;
    // The parent runs in bypassPermissions: a deny rule holds all the same, for its child too.
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    assert!(!tree.cwd.join("y.txt").exists());
    let results = Tree::tool_results(&tree.requests_of("#child")[1]);
    assert!(
        results[0].contains("deny rule `Bash(touch:*)`"),
        "{}",
        results[0]
    );
    assert!(results[1].contains("fine"), "{}", results[1]);
}

#[tokio::test]
async fn each_model_layer_picks_the_childs_model_and_bad_picks_are_refused() {
    let config = "[models.routed]\nbase_url = \"{URL}\"\nmodel = \"routed-model\"\n[models.override]\nbase_url = \"{URL}\"\nmodel = \"override-model\"\n[subagents.models]\nexplore = \"routed\"\n";
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![
                    spawn(json!({"prompt": "#m1", "description": "routed by type", "subagent_type": "explore"})),
                    spawn(json!({"prompt": "#m2", "description": "spawn override", "subagent_type": "explore", "model": "override"})),
                    spawn(json!({"prompt": "#m3", "description": "inherits parent"})),
                    spawn(json!({"prompt": "#m4", "description": "unknown model", "model": "nope"})),
                    spawn(json!({"prompt": "#m5", "description": "unknown type", "subagent_type": "wizard"})),
                ]),
                Step::text("ok"),
            ]),
            Script::matching("#m1", vec![Step::text("1")]),
            Script::matching("#m2", vec![Step::text("2")]),
            Script::matching("#m3", vec![Step::text("3")]),
        ],
        config,
    )
    .await;
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    let model_of = |m: &str| {
        tree.requests_of(m)[0].body["model"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        (model_of("#m1"), model_of("#m2"), model_of("#m3")),
        (
            "routed-model".into(),
            "override-model".into(),
            "parent-model".into()
        )
    );
    let results = Tree::tool_results(&tree.requests_of("#parent")[1]);
    assert!(
        results[0].contains("model routed-model ([subagents.models])"),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("model override-model (spawn-time override)"),
        "{}",
        results[1]
    );
    assert!(
        results[3].contains(
            "model `nope` (from the spawn-time override) cannot be used: unknown model alias `nope`"
        ),
        "{}",
        results[3]
    );
    assert!(
        results[4].contains("unknown subagent_type `wizard`; available:")
            && results[4].contains("general-purpose"),
        "{}",
        results[4]
    );
}

#[tokio::test]
async fn cancelling_the_parent_cancels_its_children() {
    let tree = Tree::new(
        vec![
            Script::matching(
                "#parent",
                vec![Step::calls(vec![spawn(
                    json!({"prompt": "#stuck", "description": "stuck child"}),
                )])],
            ),
            Script::matching(
                "#stuck",
                vec![Step::text("never").after_faults(vec![Fault::Hang])],
            ),
        ],
        "",
    )
    .await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let server = &tree.server;
    let ((outcome, _), ()) = tokio::join!(tree.run("", "#parent go", &cancel), async {
        assert!(
            server
                .wait_for(Duration::from_secs(30), |log| log
                    .iter()
                    .any(|r| r.script.as_deref() == Some("#stuck")))
                .await
        );
        trigger.cancel();
    });
    assert!(matches!(outcome, Err(TurnError::Cancelled)), "{outcome:?}");
    let left = server
        .wait_for(Duration::from_secs(30), |log| {
            log.iter()
                .any(|r| r.script.as_deref() == Some("#stuck") && r.client_gone_at.is_some())
        })
        .await;
    assert!(left, "the child's model request was never dropped");
}

#[tokio::test]
async fn a_child_over_its_token_budget_stops_and_says_why() {
    let tree = Tree::new(
        vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![spawn(
                        json!({"prompt": "#hungry", "description": "spend tokens"}),
                    )]),
                    Step::text("ok"),
                ],
            ),
            Script::matching(
                "#hungry",
                vec![
                    Step {
                        usage: Some(ScriptedUsage {
                            input: 900,
                            output: 200,
                            cached: 0,
                        }),
                        ..Step::calls(vec![ScriptedToolCall::new("list_dir", json!({}))])
                    },
                    Step::text("never reached"),
                ],
            ),
        ],
        "[subagents]\nmax_tokens_per_child = 1000\n",
    )
    .await;
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    let result = &Tree::tool_results(&tree.requests_of("#parent")[1])[0];
    assert!(
        result.contains("failed")
            && result.contains("budget.tokens: subagent token budget spent (1100 of 1000)"),
        "{result}"
    );
    // One code, and the turns and tokens the child really spent.
    assert_eq!(result.matches("budget.tokens:").count(), 1, "{result}");
    assert!(
        result.contains("1 turn(s)") && result.contains("900 tokens in / 200 out"),
        "{result}"
    );
    assert_eq!(tree.requests_of("#hungry").len(), 1);
}

#[tokio::test]
async fn an_empty_final_message_is_an_empty_receipt_failure() {
    let tree = Tree::new(
        vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![spawn(
                        json!({"prompt": "#mute", "description": "says nothing"}),
                    )]),
                    Step::text("ok"),
                ],
            ),
            Script::matching("#mute", vec![Step::default()]),
        ],
        "",
    )
    .await;
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    let result = &Tree::tool_results(&tree.requests_of("#parent")[1])[0];
    assert!(result.contains("task.empty_agent_receipt"), "{result}");
}

#[tokio::test]
async fn switching_subagents_off_removes_the_tools() {
    let mut tree = Tree::new(
        vec![Script::matching("#parent", vec![Step::text("alone")])],
        "",
    )
    .await;
    tree.env.push(("KIGI_SUBAGENTS".into(), "0".into()));
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "alone");
    let offered = Tree::offered_tools(&tree.requests_of("#parent")[0]);
    assert!(
        !offered
            .iter()
            .any(|t| t == "spawn_subagent" || t == "get_command_or_subagent_output"),
        "{offered:?}"
    );
    let disabled = Tree::new(
        vec![Script::matching(
            "#parent",
            vec![
                Step::calls(vec![spawn(
                    json!({"prompt": "#p", "description": "plan it", "subagent_type": "plan"}),
                )]),
                Step::text("ok"),
            ],
        )],
        "[subagents.toggle]\nplan = false\n",
    )
    .await;
    disabled
        .run("", "#parent go", &CancellationToken::new())
        .await
        .0
        .unwrap();
    let result = &Tree::tool_results(&disabled.requests_of("#parent")[1])[0];
    assert!(
        result.contains("subagent_type `plan` is disabled by [subagents.toggle]"),
        "{result}"
    );
}

#[tokio::test]
async fn personas_and_roles_shape_the_child_and_each_names_its_layer() {
    let config = "[models.routed]\nbase_url = \"{URL}\"\nmodel = \"routed-model\"\n[models.fast]\nbase_url = \"{URL}\"\nmodel = \"fast-model\"\n\
[subagents.personas.quick]\ninstructions = \"Answer in one line.\"\nmodel = \"fast\"\n\
[subagents.personas.broken]\ninstructions_file = \"nowhere.md\"\n\
[subagents.roles.auditor]\ndescription = \"Audits code\"\ndefault_capability_mode = \"read-only\"\nmodel = \"routed\"\npersona = \"reviewer\"\nprompt_file = \".kigi/prompts/auditor.md\"\n";
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![
                    spawn(json!({"prompt": "#p1 work", "description": "with a persona", "persona": "quick"})),
                    spawn(json!({"prompt": "#p2 audit", "description": "run the role", "subagent_type": "auditor"})),
                    spawn(json!({"prompt": "#p3 work", "description": "broken persona", "persona": "broken"})),
                    spawn(json!({"prompt": "#p4 work", "description": "missing persona", "persona": "ghost"})),
                ]),
                Step::text("ok"),
            ]),
            Script::matching("#p1", vec![Step::text("one line")]),
            Script::matching("#p2", vec![Step::text("audited")]),
        ],
        config,
    )
    .await;
    std::fs::create_dir_all(tree.cwd.join(".kigi/prompts")).unwrap();
    std::fs::write(
        tree.cwd.join(".kigi/prompts/auditor.md"),
        "You are the auditor. Check every unsafe block.",
    )
    .unwrap();
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    let p1 = &tree.requests_of("#p1")[0];
    let first = p1.body["messages"][1]["content"].as_str().unwrap();
    assert!(first.starts_with("<system-reminder>\nPersona `quick`:\nAnswer in one line.\n</system-reminder>\n\n#p1 work"), "{first}");
    assert_eq!(p1.body["model"], "fast-model");
    let p2 = &tree.requests_of("#p2")[0];
    assert_eq!(p2.body["model"], "routed-model");
    assert!(
        p2.body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("You are the auditor.")
    );
    assert!(
        p2.body["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("Persona `reviewer`:")
    );
    assert!(
        !Tree::offered_tools(p2)
            .iter()
            .any(|t| t == "write_file" || t == "run_terminal_cmd")
    );
    let results = Tree::tool_results(&tree.requests_of("#parent")[1]);
    assert!(
        results[0].contains("model fast-model (persona), persona quick"),
        "{}",
        results[0]
    );
    assert!(
        results[1].contains("[auditor]")
            && results[1].contains("model routed-model (role), persona reviewer"),
        "{}",
        results[1]
    );
    assert!(
        results[2].contains("persona `broken`: instructions_file"),
        "{}",
        results[2]
    );
    assert!(
        results[3].contains("persona `ghost` not found; available:")
            && results[3].contains("concise"),
        "{}",
        results[3]
    );
    let description = tree.requests_of("#parent")[0].body["tools"].to_string();
    assert!(
        description.contains("- auditor: (role) Audits code"),
        "{description}"
    );
}

#[tokio::test]
async fn named_children_and_their_parent_message_each_other() {
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![spawn(json!({"prompt": "#scout look around", "description": "look around", "name": "scout"}))]),
                Step::calls(vec![ScriptedToolCall::new("list_subagents", json!({"include_finished": true}))]),
                Step::calls(vec![ScriptedToolCall::new("send_to_subagent", json!({"target": "scout", "message": "now check the tests"}))]),
                Step::calls(vec![ScriptedToolCall::new("get_command_or_subagent_output", json!({"ids": ["scout"], "timeout_secs": 60}))]),
                Step::calls(vec![
                    spawn(json!({"prompt": "#busy work", "description": "busy work", "name": "busy", "background": true})),
                ]),
                Step::calls(vec![ScriptedToolCall::new("send_to_subagent", json!({"target": "busy", "message": "mind the edge case"}))]),
                Step::calls(vec![ScriptedToolCall::new("get_command_or_subagent_output", json!({"ids": ["busy"], "timeout_secs": 60}))]),
                Step::text("done"),
            ]),
            Script::matching("#scout", vec![
                Step::calls(vec![ScriptedToolCall::new("notify_parent", json!({"message": "halfway: found the config"}))]),
                Step::text("first report"),
                Step::text("tests ok"),
            ]),
            Script::matching("#busy", vec![
                Step { latency_ms: 800, ..Step::calls(vec![ScriptedToolCall::new("list_dir", json!({}))]) },
                Step::text("handled the edge case"),
            ]),
        ],
        "",
    )
    .await;
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "done");
    let parent = tree.requests_of("#parent");
    let note = parent[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        note,
        "<system-reminder>\nSubagent sub-1 says:\nhalfway: found the config\n</system-reminder>"
    );
    let listed = &Tree::tool_results(&parent[2])[1];
    assert!(
        listed.starts_with("sub-1 (scout) [general-purpose] completed: look around"),
        "{listed}"
    );
    let sent = &Tree::tool_results(&parent[3])[2];
    assert!(
        sent.starts_with("subagent sub-1 continues with your message"),
        "{sent}"
    );
    let scout = tree.requests_of("#scout");
    assert_eq!(scout.len(), 3);
    let last = scout[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(last, "Message from your parent agent:\nnow check the tests");
    assert!(Tree::tool_results(&parent[4])[3].ends_with("tests ok"));
    // A running child gets the message at its next step.
    let queued = &Tree::tool_results(&parent[6])[5];
    assert!(
        queued.starts_with("delivered: subagent sub-2 reads it at its next step"),
        "{queued}"
    );
    let busy = tree.requests_of("#busy");
    assert!(
        busy[1]
            .body
            .to_string()
            .contains("Message from your parent agent:\\nmind the edge case"),
        "{}",
        busy[1].body
    );
    assert!(Tree::tool_results(&parent[7])[6].ends_with("handled the edge case"));
}

#[tokio::test]
async fn resume_from_carries_a_completed_childs_conversation_and_refuses_the_rest() {
    let config = "[models.other]\nbase_url = \"{URL}\"\nmodel = \"other-model\"\n[subagents.models]\nexplore = \"other\"\n";
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![
                    spawn(json!({"prompt": "#r1 research", "description": "research", "subagent_type": "explore", "name": "research"})),
                    spawn(json!({"prompt": "#mute say nothing", "description": "say nothing", "name": "mute"})),
                ]),
                Step::calls(vec![
                    spawn(json!({"prompt": "go on", "description": "continue research", "subagent_type": "explore", "resume_from": "research", "cwd": "ignored"})),
                    spawn(json!({"prompt": "go on", "description": "wrong type", "resume_from": "research"})),
                    spawn(json!({"prompt": "go on", "description": "failed source", "resume_from": "mute"})),
                    spawn(json!({"prompt": "go on", "description": "no source", "resume_from": "ghost"})),
                ]),
                Step::text("ok"),
            ]),
            Script::matching("#r1", vec![Step::text("research: the bug is in parse()"), Step::text("continued from the research")]),
            Script::matching("#mute", vec![Step::default()]),
        ],
        config,
    )
    .await;
    let (outcome, id) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    let results = Tree::tool_results(&tree.requests_of("#parent")[2]);
    assert!(
        results[2].contains("resumed source")
            && results[2].ends_with("continued from the research"),
        "{}",
        results[2]
    );
    assert!(
        results[3]
            .contains("resume_from `research`: it is of type `explore`, not `general-purpose`"),
        "{}",
        results[3]
    );
    assert!(
        results[4]
            .contains("resume_from `mute`: it failed; only a completed subagent can be resumed"),
        "{}",
        results[4]
    );
    assert!(
        results[5]
            .contains("resume_from `ghost`: no subagent with that id or name in this session"),
        "{}",
        results[5]
    );
    let resumed = &tree.requests_of("#r1")[1];
    assert_eq!(resumed.body["model"], "other-model");
    let said: Vec<&str> = resumed.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(
        said[1..],
        ["#r1 research", "research: the bug is in parse()", "go on"]
    );
    // The new child's transcript holds the inherited conversation too.
    let wire = std::fs::read_to_string(tree.store.child_wire_path(&id, "sub-3").unwrap()).unwrap();
    assert!(wire.contains("the bug is in parse()") && wire.contains("continued from the research"));
}

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn a_worktree_child_writes_only_there_and_its_changes_apply_or_conflict_safely() {
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![spawn(json!({"prompt": "#wt1 edit", "description": "edit in isolation", "isolation": "worktree", "name": "w1"}))]),
                Step::calls(vec![ScriptedToolCall::new("apply_worktree", json!({"subagent": "w1"}))]),
                Step::calls(vec![spawn(json!({"prompt": "#wt2 edit", "description": "conflicting edit", "isolation": "worktree", "name": "w2"}))]),
                Step::calls(vec![ScriptedToolCall::new("apply_worktree", json!({"subagent": "w2"}))]),
                Step::calls(vec![spawn(json!({"prompt": "#wt3 look", "description": "no changes", "isolation": "worktree"}))]),
                Step::text("done"),
            ]),
            Script::matching("#wt1", vec![
                Step::calls(vec![
                    ScriptedToolCall::new("search_replace", json!({"path": "a.txt", "old_string": "one", "new_string": "two"})),
                    ScriptedToolCall::new("write_file", json!({"path": "new.txt", "content": "new\n"})),
                    ScriptedToolCall::new("write_file", json!({"path": "../escape.txt", "content": "x"})),
                ]),
                Step::text("edited"),
            ]),
            Script::matching("#wt2", vec![
                Step::calls(vec![ScriptedToolCall::new("search_replace", json!({"path": "a.txt", "old_string": "one", "new_string": "three"}))]),
                Step::text("edited too"),
            ]),
            Script::matching("#wt3", vec![Step::calls(vec![ScriptedToolCall::new("read_file", json!({"path": "a.txt"}))]), Step::text("looked")]),
        ],
        "",
    )
    .await;
    git(&tree.cwd, &["init", "-q"]);
    std::fs::write(tree.cwd.join("a.txt"), "one\n").unwrap();
    git(&tree.cwd, &["add", "a.txt"]);
    git(&tree.cwd, &["commit", "-q", "-m", "start"]);
    let (outcome, id) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "done");
    let parent = tree.requests_of("#parent");
    let first = &Tree::tool_results(&parent[1])[0];
    assert!(
        first.contains(&format!("on branch kigi/{id}/sub-1 (2 file(s) changed")),
        "{first}"
    );
    let child = Tree::tool_results(&tree.requests_of("#wt1")[1]);
    assert!(
        child[2].contains("is outside this agent's worktree"),
        "{}",
        child[2]
    );
    // Applied: the main tree has the child's edits, unstaged; its worktree and branch are gone.
    let applied = &Tree::tool_results(&parent[2])[1];
    assert_eq!(
        applied,
        "applied 2 file(s) to the working tree (not staged): a.txt, new.txt"
    );
    assert_eq!(
        std::fs::read_to_string(tree.cwd.join("a.txt")).unwrap(),
        "two\n"
    );
    assert_eq!(
        std::fs::read_to_string(tree.cwd.join("new.txt")).unwrap(),
        "new\n"
    );
    // The second child changed the same line from HEAD: the apply changes nothing and says which file.
    let conflict = &Tree::tool_results(&parent[4])[3];
    assert!(
        conflict.contains("nothing was changed") && conflict.contains("Files involved: a.txt"),
        "{conflict}"
    );
    assert_eq!(
        std::fs::read_to_string(tree.cwd.join("a.txt")).unwrap(),
        "two\n"
    );
    let branches = git(&tree.cwd, &["branch", "--list", "kigi/*"]);
    assert!(
        branches.contains(&format!("kigi/{id}/sub-2")) && !branches.contains("sub-1"),
        "{branches}"
    );
    // A child that changed nothing leaves no worktree behind.
    let third = &Tree::tool_results(&parent[5])[4];
    assert!(
        third.contains("worktree: no changes; the worktree was removed"),
        "{third}"
    );
    let worktrees = git(&tree.cwd, &["worktree", "list"]);
    assert_eq!(
        worktrees.lines().count(),
        2,
        "main and sub-2 only: {worktrees}"
    );
}

#[tokio::test]
async fn a_worktree_childs_commands_write_only_its_worktree() {
    // Outside the system temp dir (writable in the sandbox) and outside any git repository.
    let tmp = tempfile::tempdir_in("/var/tmp").expect("/var/tmp is where this test works");
    let tree = Tree::new_in(
        tmp,
        vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![spawn(
                        json!({"prompt": "#wt try", "description": "try", "isolation": "worktree"}),
                    )]),
                    Step::text("done"),
                ],
            ),
            Script::matching(
                "#wt",
                vec![
                    Step::calls(vec![
                        ScriptedToolCall::new(
                            "run_terminal_cmd",
                            json!({"command": "touch inside.txt"}),
                        ),
                        ScriptedToolCall::new(
                            "run_terminal_cmd",
                            json!({"command": "touch ../../../../repo/escaped.txt"}),
                        ),
                    ]),
                    Step::text("tried"),
                ],
            ),
        ],
        "",
    )
    .await;
    git(&tree.cwd, &["init", "-q"]);
    std::fs::write(tree.cwd.join("a.txt"), "one\n").unwrap();
    git(&tree.cwd, &["add", "a.txt"]);
    git(&tree.cwd, &["commit", "-q", "-m", "start"]);
    // The worktree is `home/worktrees/<session>/sub-1`, beside `repo`: four levels up.
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "done");
    assert!(!tree.cwd.join("escaped.txt").exists());
    let results = Tree::tool_results(&tree.requests_of("#wt")[1]);
    assert!(!results[0].contains("sandbox"), "{}", results[0]);
    assert!(results[1].contains("kigi's sandbox"), "{}", results[1]);
}

#[tokio::test]
async fn worktree_isolation_outside_git_is_refused() {
    let tree = Tree::new(
        vec![Script::matching(
            "#parent",
            vec![
                Step::calls(vec![spawn(
                    json!({"prompt": "#x", "description": "isolated", "isolation": "worktree"}),
                )]),
                Step::text("ok"),
            ],
        )],
        "",
    )
    .await;
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    let result = &Tree::tool_results(&tree.requests_of("#parent")[1])[0];
    assert!(
        result.contains("isolation `worktree` needs a git repository"),
        "{result}"
    );
}

#[tokio::test]
async fn a_worktree_that_cannot_be_made_is_a_failed_call_with_its_code() {
    let tree = Tree::new(
        vec![Script::matching(
            "#parent",
            vec![
                Step::calls(vec![spawn(
                    json!({"prompt": "#x", "description": "isolated", "isolation": "worktree"}),
                )]),
                Step::text("ok"),
            ],
        )],
        "",
    )
    .await;
    git(&tree.cwd, &["init", "-q"]);
    std::fs::write(tree.cwd.join("a.txt"), "one\n").unwrap();
    git(&tree.cwd, &["add", "a.txt"]);
    git(&tree.cwd, &["commit", "-q", "-m", "start"]);
    // A file where the worktrees folder goes: the request is fine, the environment is not.
    std::fs::write(tree.tmp.path().join("home").join("worktrees"), "in the way").unwrap();
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    let result = &Tree::tool_results(&tree.requests_of("#parent")[1])[0];
    assert!(result.contains("spawn.worktree: "), "{result}");
    assert!(result.contains("worktrees"), "{result}");
}

#[tokio::test]
async fn kill_timeout_and_the_tree_budget_each_stop_a_child_and_say_why() {
    let spend = |marker: &str| {
        Script::matching(
            marker,
            vec![
                Step {
                    usage: Some(ScriptedUsage {
                        input: 900,
                        output: 100,
                        cached: 0,
                    }),
                    ..Step::calls(vec![ScriptedToolCall::new("list_dir", json!({}))])
                },
                Step::text(format!("{marker} finished")),
            ],
        )
    };
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![spawn(json!({"prompt": "#stuck1", "description": "stuck child", "name": "stuck", "background": true}))]),
                Step::calls(vec![ScriptedToolCall::new("kill_task", json!({"task_id": "stuck"}))]),
                Step::calls(vec![spawn(json!({"prompt": "#stuck2", "description": "slow child"}))]),
                Step::calls(vec![spawn(json!({"prompt": "#t1", "description": "first spender"}))]),
                Step::calls(vec![spawn(json!({"prompt": "#t2", "description": "second spender"}))]),
                Step::text("ok"),
            ]),
            Script::matching("#stuck1", vec![Step::text("never").after_faults(vec![Fault::Hang])]),
            Script::matching("#stuck2", vec![Step::text("never").after_faults(vec![Fault::Hang])]),
            Script { steps: vec![Step { usage: Some(ScriptedUsage { input: 900, output: 100, cached: 0 }), ..Step::text("#t1 finished") }], ..Script::matching("#t1", vec![]) },
            spend("#t2"),
        ],
        "[subagents]\ntimeout_ms = 300\nmax_tokens_per_tree = 1500\n",
    )
    .await;
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    let parent = tree.requests_of("#parent");
    let killed = &Tree::tool_results(&parent[2])[1];
    assert!(
        killed.contains("cancelled") && killed.contains("turn.cancelled"),
        "{killed}"
    );
    let gone = tree
        .server
        .wait_for(Duration::from_secs(30), |log| {
            log.iter()
                .any(|r| r.script.as_deref() == Some("#stuck1") && r.client_gone_at.is_some())
        })
        .await;
    assert!(gone, "the killed child's request was never dropped");
    let timed_out = &Tree::tool_results(&parent[3])[2];
    assert!(
        timed_out.contains("timed out") && timed_out.contains("task.timeout: stopped after 0.3s"),
        "{timed_out}"
    );
    let first = &Tree::tool_results(&parent[4])[3];
    assert!(
        first.contains("completed") && first.contains("resume_from \"sub-3\""),
        "{first}"
    );
    let second = &Tree::tool_results(&parent[5])[4];
    assert!(
        second.contains("budget.tokens: session tree token budget spent (2000 of 1500)"),
        "{second}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swarm_of_128_runs_through_the_coordinator_and_reports_in_item_order() {
    let items: Vec<String> = (1..=128).map(|n| format!("file{n:03}.rs")).collect();
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![ScriptedToolCall::new("agent_swarm", json!({
                    "description": "summarize files",
                    "prompt_template": "Summarize {{item}} in one line.",
                    "items": items,
                    "subagent_type": "explore",
                }))]),
                Step::calls(vec![ScriptedToolCall::new("agent_swarm", json!({"description": "bad", "prompt_template": "no placeholder", "items": ["a"]}))]),
                Step::text("summarized"),
            ]),
            Script { name: "member".into(), marker: None, steps: vec![Step::text("one line summary")] },
        ],
        "[swarm]\ninitial_burst = 128\nmax_concurrency = 32\n",
    )
    .await;
    let (outcome, id) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "summarized");
    let parent = tree.requests_of("#parent");
    let report = &Tree::tool_results(&parent[1])[0];
    assert!(
        report.starts_with("swarm \"summarize files\": 128 members in"),
        "{}",
        &report[..200]
    );
    assert!(
        report.contains("128 completed, 0 failed"),
        "{}",
        &report[..300]
    );
    let first = report.find("#1 file001.rs sub-").unwrap();
    let last = report.find("#128 file128.rs sub-").unwrap();
    assert!(first < last);
    assert_eq!(tree.requests_of("member").len(), 128);
    let agents = tree
        .store
        .child_wire_path(&id, "sub-1")
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    assert_eq!(std::fs::read_dir(agents).unwrap().count(), 128);
    let refused = &Tree::tool_results(&parent[2])[1];
    assert!(
        refused.contains("nothing was started")
            && refused.contains("does not contain {{item}}")
            && refused.contains("items has 1"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_spent_tree_budget_stops_the_next_child_before_its_first_request() {
    let tree = Tree::new(
        vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![spawn(
                        json!({"prompt": "#spender go", "description": "spend"}),
                    )]),
                    Step::calls(vec![spawn(
                        json!({"prompt": "#late go", "description": "too late"}),
                    )]),
                    Step::text("ok"),
                ],
            ),
            Script::matching(
                "#spender",
                vec![
                    Step {
                        usage: Some(ScriptedUsage {
                            input: 900,
                            output: 300,
                            cached: 0,
                        }),
                        ..Step::calls(vec![ScriptedToolCall::new("list_dir", json!({}))])
                    },
                    Step::text("never reached"),
                ],
            ),
            Script::matching("#late", vec![Step::text("should not run")]),
        ],
        "[subagents]\nmax_tokens_per_tree = 1000\n",
    )
    .await;
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    assert!(
        tree.requests_of("#late").is_empty(),
        "a child started a request after the tree's budget was spent"
    );
    let late = &Tree::tool_results(&tree.requests_of("#parent")[2])[1];
    assert!(
        late.contains("budget.tokens: session tree token budget spent"),
        "{late}"
    );
}

#[tokio::test]
async fn a_worktree_childs_edits_meet_the_projects_path_rules_in_its_own_checkout() {
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![spawn(json!({"prompt": "#wtrule edit", "description": "edit", "isolation": "worktree"}))]),
                Step::text("done"),
            ]),
            Script::matching("#wtrule", vec![
                Step::calls(vec![
                    ScriptedToolCall::new("write_file", json!({"path": ".github/workflows/ci.yml", "content": "x"})),
                    ScriptedToolCall::new("write_file", json!({"path": "src/ok.txt", "content": "x"})),
                ]),
                Step::text("tried"),
            ]),
        ],
        "[permissions]\ndeny = [\"Edit(/.github/**)\"]\n",
    )
    .await;
    git(&tree.cwd, &["init", "-q"]);
    std::fs::write(tree.cwd.join("a.txt"), "one\n").unwrap();
    git(&tree.cwd, &["add", "a.txt"]);
    git(&tree.cwd, &["commit", "-q", "-m", "start"]);
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "done");
    let results = Tree::tool_results(&tree.requests_of("#wtrule")[1]);
    assert!(
        results[0].contains("deny rule `Edit(/.github/**)`"),
        "{}",
        results[0]
    );
    assert!(!results[1].contains("was not run"), "{}", results[1]);
}

#[tokio::test]
async fn hard_model_lists_refuse_before_a_child_starts_and_soft_lists_advise() {
    let model = |alias: &str| {
        format!("[models.{alias}]\nbase_url = \"{{URL}}\"\nmodel = \"{alias}-model\"\n")
    };
    let config = format!(
        "{}{}{}{}[subagents]\ndeny_models = [\"heavy\"]\npreferred_models = \"fast\"\n",
        model("fast"),
        model("heavy"),
        model("review"),
        model("plain")
    );
    let tree = Tree::new(
        vec![
            Script::matching("#parent", vec![
                Step::calls(vec![
                    spawn(json!({"prompt": "#h1", "description": "denied model", "subagent_type": "reviewer", "model": "heavy"})),
                    spawn(json!({"prompt": "#h2", "description": "effort not allowed", "subagent_type": "reviewer", "effort": "low"})),
                    spawn(json!({"prompt": "#h3", "description": "model not allowed", "subagent_type": "reviewer", "model": "plain", "effort": "high"})),
                    spawn(json!({"prompt": "#h4", "description": "outside the menu", "subagent_type": "menu", "model": "review"})),
                    spawn(json!({"prompt": "#h5", "description": "runs with advice", "subagent_type": "reviewer", "model": "review", "effort": "medium"})),
                    spawn(json!({"prompt": "#h6", "description": "unknown effort", "effort": "max"})),
                    spawn(json!({"prompt": "#h7", "description": "legacy type name", "subagent_type": "grok-build-helper"})),
                    ScriptedToolCall::new("agent_swarm", json!({"description": "swarm low effort", "prompt_template": "#s {{item}}", "items": ["a", "b"], "subagent_type": "reviewer", "effort": "low"})),
                    ScriptedToolCall::new("agent_swarm", json!({"description": "swarm bad effort", "prompt_template": "#s {{item}}", "items": ["a", "b"], "effort": "max"})),
                ]),
                Step::text("ok"),
            ]),
            Script::matching("#h5", vec![Step::text("reviewed")]),
            Script::matching("#h7", vec![Step::text("helped")]),
        ],
        &config,
    )
    .await;
    let agents = tree.paths().kigi_home.join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews code\nmodel: fast\n\
         allowed_models: [fast, review]\nallowed_efforts: [medium, high]\n\
         preferred_models: [fast]\ndiscouraged_models: [review]\npreferred_efforts: [high]\n---\nReview.\n",
    )
    .unwrap();
    std::fs::write(
        agents.join("menu.md"),
        "---\nname: menu\ndescription: Menu only\nmodel: fast\nrestrict_models_to_menu: true\n---\nWork.\n",
    )
    .unwrap();
    std::fs::write(
        agents.join("kigi-helper.md"),
        "---\nname: kigi-helper\ndescription: Helps\n---\nHelp.\n",
    )
    .unwrap();
    let (outcome, _) = tree.run("", "#parent go", &CancellationToken::new()).await;
    assert_eq!(outcome.unwrap(), "ok");
    let results = Tree::tool_results(&tree.requests_of("#parent")[1]);
    let expect = |i: usize, parts: &[&str]| {
        for part in parts {
            assert!(results[i].contains(part), "{part} not in: {}", results[i]);
        }
    };
    expect(
        0,
        &[
            "profile.constraint_violation: subagent_type `reviewer`: model `heavy` (from the spawn-time override) is in deny_models [heavy] set by [subagents] in config.toml",
        ],
    );
    expect(
        1,
        &[
            "effort `low` (from the spawn-time override) is not in allowed_efforts [medium, high] set by agent `reviewer` (",
        ],
    );
    expect(
        2,
        &[
            "model `plain` (from the spawn-time override) is not in allowed_models [fast, review] set by agent `reviewer`",
        ],
    );
    expect(
        3,
        &[
            "model `review` (from the spawn-time override) is not in restrict_models_to_menu [fast] set by agent `menu`",
        ],
    );
    expect(
        4,
        &[
            "completed",
            "model review-model (spawn-time override), effort medium (spawn-time override)",
            "advice: model_not_preferred: model `review` is not among preferred_models [fast] (agent `reviewer`",
            "advice: model_discouraged: model `review` is in discouraged_models",
            "advice: effort_not_preferred: effort `medium` is not among preferred_efforts [high]",
        ],
    );
    expect(5, &["effort `max` is unknown (low, medium or high)"]);
    expect(
        6,
        &[
            "[kigi-helper]",
            "completed",
            "advice: model_not_preferred: model `parent-model` is not among preferred_models [fast] ([subagents] in config.toml)",
        ],
    );
    expect(
        7,
        &[
            "nothing was started",
            "effort `low`",
            "allowed_efforts [medium, high]",
        ],
    );
    expect(8, &["nothing was started", "effort `max` is unknown"]);
    // Refused children never reached the model; the advised one ran with its effort.
    for refused in ["#h1", "#h2", "#h3", "#h4", "#h6", "#s"] {
        assert!(
            tree.requests_of(refused).is_empty(),
            "{refused} reached the model"
        );
    }
    let h5 = &tree.requests_of("#h5")[0];
    assert_eq!(
        (&h5.body["model"], &h5.body["reasoning_effort"]),
        (&json!("review-model"), &json!("medium"))
    );
    // The soft lists are advice in the spawn tool's description, in a few words.
    let description = tree.requests_of("#parent")[0].body["tools"].to_string();
    assert!(
        description.contains(
            "- reviewer: Reviews code [prefer models fast; avoid review; prefer effort high]"
        ),
        "{description}"
    );
    assert!(
        description.contains("All types: prefer models fast."),
        "{description}"
    );
}

#[tokio::test]
async fn a_parents_hard_model_lists_narrow_its_children() {
    let model = |alias: &str| {
        format!("[models.{alias}]\nbase_url = \"{{URL}}\"\nmodel = \"{alias}-model\"\n")
    };
    let tree = Tree::new(
        vec![
            Script::matching(
                "#parent",
                vec![
                    Step::calls(vec![spawn(
                        json!({"prompt": "#kid", "description": "heavy child", "model": "heavy"}),
                    )]),
                    Step::text("ok"),
                ],
            ),
            Script::matching("#kid", vec![Step::text("ran")]),
        ],
        &format!("{}{}", model("fast"), model("heavy")),
    )
    .await;
    let (outcome, _) = tree
        .run(
            "deny_models: [heavy]\n",
            "#parent go",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.unwrap(), "ok");
    let result = &Tree::tool_results(&tree.requests_of("#parent")[1])[0];
    assert!(result.contains("deny_models"), "{result}");
    assert!(
        tree.requests_of("#kid").is_empty(),
        "the child never started"
    );
}
