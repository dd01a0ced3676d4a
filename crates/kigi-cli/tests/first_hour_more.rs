//! More of what a new user meets in the first hour, with the real binary against the scripted
//! model over loopback: `--continue` and `sessions list` by last use, `agents validate`
//! reporting every problem with suggestions, a broken agent named by its file, `CLAUDE.md`
//! read after `AGENTS.md`, `kigi init`, and `agents new` / `agents show` saying what they mean.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use kigi_testkit::Step;
use serde_json::Value;

mod support;

use support::{Env, result_of, stderr, stdout};

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

/// The system prompt of model request `n`.
fn system_prompt(env: &Env, n: usize) -> String {
    let request = &env.server().requests()[n];
    let messages = request.body["messages"].as_array().unwrap();
    let system = messages.iter().find(|m| m["role"] == "system").unwrap();
    kigi_testkit::wire::content_text(&system["content"])
}

#[test]
fn continue_takes_the_session_last_used_here_not_the_last_started() {
    let env = Env::new(
        ["a", "b", "c", "again", "more"]
            .into_iter()
            .map(Step::text)
            .collect(),
    );
    // Three sessions within (most likely) one second: ids alone cannot order them.
    let ids: Vec<String> = ["one", "two", "three"]
        .into_iter()
        .map(|prompt| {
            let out = env.kigi(&["-p", prompt, "--output-format", "json"]);
            assert!(out.status.success(), "{}", stderr(&out));
            result_of(&out)["session_id"].as_str().unwrap().to_owned()
        })
        .collect();
    let resumed = env.kigi(&["-p", "again", "--resume", &ids[0]]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let listed = json_of(&env.kigi(&["sessions", "list", "--json"]));
    let order: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, [&ids[0], &ids[2], &ids[1]]);
    assert!(listed[0]["last_used"].as_str().unwrap() >= listed[1]["last_used"].as_str().unwrap());
    let text = stdout(&env.kigi(&["sessions", "list"]));
    let text_order: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert_eq!(text_order, order);
    let continued = env.kigi(&["-p", "more", "--continue", "--output-format", "json"]);
    assert!(continued.status.success(), "{}", stderr(&continued));
    assert_eq!(result_of(&continued)["session_id"], ids[0].as_str());
    assert_eq!(env.user_prompt(4), "one");
}

const BROKEN_AGENT: &str = "---
name: broken
description: An agent with four mistakes.
permissionMode: acceptEdit
maxTurns: many
tools: [Reed, Grep, Frobnicate]
colour: red
---
You review code.
";

#[test]
fn validate_reports_every_problem_of_a_file_at_once_with_the_nearest_valid_value() {
    let env = Env::new(vec![]);
    env.write(".kigi/agents/broken.md", BROKEN_AGENT);
    let out = env.kigi(&["agents", "validate", ".kigi/agents/broken.md"]);
    assert!(!out.status.success());
    let text = stdout(&out);
    for expected in [
        "error: `permissionMode`: `acceptEdit` is not one of `default`, `acceptEdits`, `dontAsk`, `plan`, `bypassPermissions`; did you mean `acceptEdits`?",
        "error: `maxTurns`: expected a whole number, found `many`",
        "warning: `tools`: `Reed` is not a kigi tool; left out; did you mean `Read`?",
        "warning: `tools`: `Frobnicate` is not a kigi tool; left out",
        "warning: `colour`: unknown key, ignored; did you mean `color`?",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    let report = json_of(&env.kigi(&["agents", "validate", ".kigi/agents/broken.md", "--json"]));
    let fields: Vec<&str> = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        ["permissionMode", "maxTurns", "tools", "tools", "colour"]
    );
}

#[test]
fn a_broken_agent_asked_for_by_name_is_named_by_its_file_and_its_error() {
    let env = Env::new(vec![Step::text("never")]);
    let file = env.write(".kigi/agents/broken.md", BROKEN_AGENT);
    let shown = env.kigi(&["agents", "show", "broken"]);
    assert!(!shown.status.success());
    let err = stderr(&shown);
    assert!(
        err.contains(&file.display().to_string()) && err.contains("did you mean `acceptEdits`?"),
        "{err}"
    );
    assert!(!err.contains("no agent named"), "{err}");
    let run = env.kigi(&["-p", "hi", "--agent", "broken"]);
    assert!(!run.status.success());
    let err = stderr(&run);
    assert!(
        err.contains(&file.display().to_string()) && err.contains("expected a whole number"),
        "{err}"
    );
    assert!(env.server().requests().is_empty());
    // A name nothing meant still lists what there is.
    let unknown = env.kigi(&["agents", "show", "nobody"]);
    assert!(stderr(&unknown).contains("no agent named `nobody`"));
}

#[test]
fn claude_md_is_read_after_agents_md_within_the_same_budget() {
    let env = Env::new(vec![Step::text("ok"), Step::text("ok")]);
    env.write("AGENTS.md", "AGENTS-RULE: use tabs.\n");
    env.write("CLAUDE.md", "CLAUDE-RULE: run make check.\n");
    let out = env.kigi(&["-p", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let prompt = system_prompt(&env, 0);
    let agents = prompt.find("AGENTS-RULE").expect("AGENTS.md in the prompt");
    let claude = prompt.find("CLAUDE-RULE").expect("CLAUDE.md in the prompt");
    assert!(agents < claude, "AGENTS.md first:\n{prompt}");
    // One budget for both: a huge CLAUDE.md is cut, and the prompt says so.
    env.write("CLAUDE.md", &"x".repeat(40 * 1024));
    let out = env.kigi(&["-p", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let prompt = system_prompt(&env, 1);
    assert!(prompt.contains("AGENTS-RULE"), "{prompt}");
    let kept = prompt.matches('x').count();
    assert!(kept < 32 * 1024, "{kept} bytes of CLAUDE.md kept");
    assert!(prompt.contains("budget reached"), "{prompt}");
    assert!(prompt.contains("CLAUDE.md"), "{prompt}");
}

#[test]
fn init_writes_the_models_answer_as_agents_md_and_never_over_one_without_force() {
    let env = Env::new(vec![Step::text("# Repo\n\nRun `cargo test`.\n")]);
    let out = env.kigi(&["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = env.repo.join("AGENTS.md");
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        "# Repo\n\nRun `cargo test`.\n"
    );
    assert!(stdout(&out).contains("wrote"), "{}", stdout(&out));
    assert!(env.user_prompt(0).starts_with("Survey this repository"));
    let again = env.kigi(&["init"]);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
    assert_eq!(
        env.server().requests().len(),
        1,
        "refused before any request"
    );
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        "# Repo\n\nRun `cargo test`.\n"
    );
}

#[test]
fn init_with_force_replaces_the_file_and_takes_a_fence_off_the_answer() {
    let env = Env::new(vec![Step::text("```markdown\n# Repo, again\n```")]);
    let written = env.write("AGENTS.md", "old rules\n");
    let forced = env.kigi(&["init", "--force", "--json"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    let result = json_of(&forced);
    assert_eq!(result["replaced"], true);
    assert_eq!(result["path"], written.display().to_string());
    assert!(env.user_prompt(0).contains("exists already"));
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        "# Repo, again\n"
    );
}

#[test]
fn agents_new_warns_when_the_name_shadows_another_definition() {
    let env = Env::new(vec![]);
    let out = env.kigi(&["agents", "new", "--user", "explore"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`explore` now shadows the built-in agent"),
        "{}",
        stderr(&out)
    );
    let project = env.kigi(&["agents", "new", "reviewer"]);
    assert!(project.status.success(), "{}", stderr(&project));
    assert_eq!(stderr(&project), "", "nothing else is called reviewer");
    let user = env.kigi(&["agents", "new", "--user", "reviewer"]);
    assert!(
        stderr(&user).contains("`reviewer` is shadowed by the project agent in"),
        "{}",
        stderr(&user)
    );
    let untrusted = env.kigi(&["agents", "new", "plan"]);
    assert!(
        stderr(&untrusted).contains("ignored until the folder is trusted"),
        "{}",
        stderr(&untrusted)
    );
}

#[test]
fn agents_show_prints_modes_in_their_flag_spelling() {
    let env = Env::new(vec![]);
    std::fs::create_dir_all(env.home.join("agents")).unwrap();
    std::fs::write(
        env.home.join("agents/editor.md"),
        "---\nname: editor\ndescription: Edits.\npermissionMode: acceptEdits\n---\nEdit.\n",
    )
    .unwrap();
    let out = env.kigi(&["agents", "show", "editor"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("permission mode: acceptEdits\n"), "{text}");
    assert!(text.contains("prompt mode:     extend\n"), "{text}");
}
