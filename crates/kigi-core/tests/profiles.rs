//! Agent profiles as seed 002 describes them, through the session host against the scripted
//! model server: routes, `private`, `whenToUse`, the delegation notice, and definitions
//! (agents, personas, routes) added while a session runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_agent::PermissionMode;
use kigi_core::host::OpenRequest;
use kigi_testkit::{RecordedRequest, Script, ScriptSet, ScriptedToolCall, Step};
use serde_json::{Value, json};
use support::*;

fn spawn(args: Value) -> Step {
    Step::calls([ScriptedToolCall::new("spawn_subagent", args)])
}

fn main_script(steps: Vec<Step>) -> Script {
    Script {
        name: "main".into(),
        marker: None,
        steps,
    }
}

fn requests_of(fx: &Fixture, script: &str) -> Vec<RecordedRequest> {
    fx.server
        .requests()
        .into_iter()
        .filter(|r| r.script.as_deref() == Some(script))
        .collect()
}

fn system_prompt(request: &RecordedRequest) -> String {
    request.body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned()
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

fn spawn_description(request: &RecordedRequest) -> String {
    request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "spawn_subagent")
        .map(|t| t["function"]["description"].as_str().unwrap().to_owned())
        .unwrap()
}

fn write(path: std::path::PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const FAST_MODEL: &str = "[models.fast]\nbase_url = \"{URL}\"\nmodel = \"fast-model\"\n";

#[tokio::test]
async fn a_route_runs_with_its_own_model_tools_and_prompt_and_is_offered_by_its_id() {
    let fx = Fixture::with_config(
        ScriptSet {
            scripts: vec![
                main_script(vec![
                    spawn(json!({
                        "subagent_type": "explore",
                        "route": "explore.fast",
                        "description": "quick look",
                        "prompt": "#routed-child look around",
                    })),
                    Step::text("done"),
                ]),
                Script::matching("#routed-child", vec![Step::text("looked")]),
            ],
        },
        FAST_MODEL,
    )
    .await;
    write(
        fx.tmp.path().join("home/agents/.routes/explore/fast.md"),
        "---\nid: explore.fast\nprofile: explore\ndescription: A quick look on the fast model\n\
         whenToUse: Small questions\nprompt_mode: prepend\nmodel_alias: fast\ntools: [Read]\n---\n\
         ROUTE-RULES: answer in one line.\n",
    );
    let session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..OpenRequest::new(&fx.cwd)
    });
    session.run_turn("delegate").await.unwrap();
    let main = requests_of(&fx, "main");
    assert!(
        spawn_description(&main[0]).contains(
            "\n- explore.fast: (route of explore) A quick look on the fast model When to use: Small questions [model fast]"
        ),
        "{}",
        spawn_description(&main[0])
    );
    let child = requests_of(&fx, "#routed-child");
    let child = child
        .first()
        .unwrap_or_else(|| panic!("{:?}", fx.tool_results(session.id())));
    assert_eq!(child.body["model"], "fast-model");
    assert_eq!(offered_tools(child), ["read_file"]);
    let prompt = system_prompt(child);
    assert!(
        prompt.contains("ROUTE-RULES: answer in one line."),
        "{prompt}"
    );
    assert!(
        !prompt.contains("You run as subagent"),
        "a route of a built-in is a built-in"
    );
}

#[tokio::test]
async fn a_private_profile_takes_no_new_dispatch_while_its_running_child_finishes() {
    let fx = Fixture::with_config(
        ScriptSet {
            scripts: vec![
                main_script(vec![
                    spawn(json!({
                        "subagent_type": "retiring",
                        "description": "first run",
                        "prompt": "#first-child go",
                        "background": true,
                    })),
                    Step::text("started"),
                    spawn(json!({
                        "subagent_type": "retiring",
                        "description": "second run",
                        "prompt": "#second-child go",
                    })),
                    Step::calls([ScriptedToolCall::new(
                        "get_command_or_subagent_output",
                        json!({"ids": ["sub-1"], "timeout_secs": 30}),
                    )]),
                    Step::text("done"),
                    spawn(json!({
                        "subagent_type": "retiring",
                        "resume_from": "sub-1",
                        "description": "carry on",
                        "prompt": "more",
                    })),
                    Step::text("resumed"),
                ]),
                Script::matching(
                    "#first-child",
                    vec![Step::text("first finished"), Step::text("carried on")],
                ),
                Script::matching("#second-child", vec![Step::text("must not run")]),
            ],
        },
        "",
    )
    .await;
    let agent = fx.tmp.path().join("home/agents/retiring.md");
    let body = "description: Retiring role\n---\nDo the old job.\n";
    write(agent.clone(), &format!("---\nname: retiring\n{body}"));
    let session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..OpenRequest::new(&fx.cwd)
    });
    session.run_turn("start one").await.unwrap();
    write(
        agent,
        &format!(
            "---\nname: retiring\nprivate: true\n{}",
            body.replace("old job", "NEW job")
        ),
    );
    session.run_turn("start another").await.unwrap();
    // A resumed child carries on with the prompt it started with.
    session.run_turn("resume it").await.unwrap();
    let results = fx.tool_results(session.id());
    let refused = &results[1].1;
    assert!(refused.contains("profile is private"), "{refused}");
    assert!(
        results[2].1.contains("first finished"),
        "the running child finishes: {:?}",
        results[2]
    );
    assert!(requests_of(&fx, "#second-child").is_empty());
    assert!(results[3].1.contains("carried on"), "{:?}", results[3]);
    let resumed = requests_of(&fx, "#first-child").pop().unwrap();
    let prompt = system_prompt(&resumed);
    assert!(
        prompt.contains("Do the old job.") && !prompt.contains("NEW job"),
        "{prompt}"
    );
    let last_main = requests_of(&fx, "main").pop().unwrap();
    assert!(!spawn_description(&last_main).contains("- retiring:"));
}

#[tokio::test]
async fn definitions_added_while_the_session_runs_are_spawnable_at_once() {
    let fx = Fixture::with_config(
        ScriptSet {
            scripts: vec![
                main_script(vec![
                    spawn(json!({
                        "subagent_type": "newcomer",
                        "description": "too early",
                        "prompt": "#newcomer-child go",
                    })),
                    Step::text("not yet"),
                    spawn(json!({
                        "subagent_type": "newcomer",
                        "persona": "terse",
                        "description": "now it exists",
                        "prompt": "#newcomer-child go",
                    })),
                    Step::text("done"),
                ]),
                Script::matching("#newcomer-child", vec![Step::text("arrived")]),
            ],
        },
        "",
    )
    .await;
    let session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..OpenRequest::new(&fx.cwd)
    });
    session.run_turn("try").await.unwrap();
    write(
        fx.tmp.path().join("home/agents/newcomer.md"),
        "---\nname: newcomer\ndescription: Added late\nwhenToUse: After the session started\n---\n\
         NEWCOMER-BODY\n",
    );
    write(
        fx.tmp.path().join("home/personas/terse.toml"),
        "description = \"short answers\"\ninstructions = \"Answer in one line.\"\n",
    );
    session.run_turn("try again").await.unwrap();
    let results = fx.tool_results(session.id());
    assert!(
        results[0].1.contains("unknown subagent_type `newcomer`"),
        "{:?}",
        results[0]
    );
    assert!(results[1].1.contains("arrived"), "{:?}", results[1]);
    let main = requests_of(&fx, "main");
    assert!(
        spawn_description(main.last().unwrap())
            .contains("- newcomer: Added late When to use: After the session started")
    );
    // A custom agent is told it was delegated, and by whom, before its own body.
    let child = &requests_of(&fx, "#newcomer-child")[0];
    let prompt = system_prompt(child);
    let notice = prompt
        .find("You run as subagent sub-2 of type `newcomer`: the main agent delegated this task to you (\"now it exists\")")
        .unwrap_or_else(|| panic!("{prompt}"));
    assert!(notice < prompt.find("NEWCOMER-BODY").unwrap());
    let first_user = child.body["messages"][1]["content"].as_str().unwrap();
    assert!(first_user.contains("Answer in one line."), "{first_user}");
}

#[tokio::test]
async fn a_model_profiles_entry_shapes_a_child_on_its_model_and_adds_its_hard_lists() {
    let fx = Fixture::with_config(
        ScriptSet {
            scripts: vec![
                main_script(vec![
                    spawn(json!({
                        "subagent_type": "reviewer",
                        "description": "review quickly",
                        "prompt": "#profiled-child review",
                    })),
                    spawn(json!({
                        "subagent_type": "reviewer",
                        "model": "big",
                        "description": "review heavily",
                        "prompt": "#profiled-child review",
                    })),
                    Step::text("done"),
                ]),
                Script::matching("#profiled-child", vec![Step::text("reviewed")]),
            ],
        },
        &format!("{FAST_MODEL}[models.big]\nbase_url = \"{{URL}}\"\nmodel = \"big-model\"\n"),
    )
    .await;
    write(
        fx.tmp.path().join("home/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews code\nmodel_alias: fast\n\
         model_profiles:\n  - alias: fast\n    when: Quick passes.\n    thinking_effort: high\n    \
         prompt_mode: prepend\n    prompt: PROFILE-DELTA\n    max_completion_tokens: 77\n    \
         request_params:\n      temperature: 0.2\n  - alias: big\n    deny_models: [big]\n  \
         - alias: unconfigured\n    when: never shown\n---\nREVIEWER-BODY\n",
    );
    let session = fx.open(OpenRequest {
        permission_mode: Some(PermissionMode::BypassPermissions),
        ..OpenRequest::new(&fx.cwd)
    });
    session.run_turn("review").await.unwrap();
    let description = spawn_description(&requests_of(&fx, "main")[0]);
    assert!(
        description.contains("- reviewer: Reviews code [models: fast: Quick passes.; big]"),
        "{description}"
    );
    let children = requests_of(&fx, "#profiled-child");
    assert_eq!(children.len(), 1, "the second spawn is refused");
    let child = &children[0].body;
    assert_eq!(child["model"], "fast-model");
    assert_eq!(child["reasoning_effort"], "high");
    assert_eq!(child["max_tokens"], 77, "{child}");
    assert_eq!(child["temperature"], 0.2);
    let prompt = system_prompt(&children[0]);
    let delta = prompt
        .find("PROFILE-DELTA")
        .unwrap_or_else(|| panic!("{prompt}"));
    assert!(delta < prompt.find("REVIEWER-BODY").unwrap());
    let results = fx.tool_results(session.id());
    assert!(
        results[1]
            .1
            .contains("model_profiles entry `big` of agent `reviewer`"),
        "{:?}",
        results[1]
    );
}
