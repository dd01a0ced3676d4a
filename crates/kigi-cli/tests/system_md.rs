//! `$KIGI_HOME/SYSTEM.md` through the real binary: a legacy body becomes the main agent's whole
//! prompt, an upgraded profile (frontmatter) becomes the main agent, `--agent` bypasses it, and
//! a broken file is reported while the built-in runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_testkit::Step;
use serde_json::json;
use support::{Env, stderr};

fn system_prompt(env: &Env) -> String {
    let body = &env.server().requests()[0].body;
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_legacy_system_md_is_the_main_agents_prompt_and_agent_bypasses_it() {
    let env = Env::new(vec![Step::text("hi")]);
    std::fs::write(
        env.home.join("SYSTEM.md"),
        "You are Pat, working in ${{ working_directory }}.\n",
    )
    .unwrap();
    let out = env.kigi(&["-p", "hello"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let prompt = system_prompt(&env);
    assert!(prompt.starts_with("You are Pat, working in /"), "{prompt}");
    assert!(!prompt.contains("${{"), "{prompt}");

    let env = Env::new(vec![Step::text("hi")]);
    std::fs::write(env.home.join("SYSTEM.md"), "You are Pat.\n").unwrap();
    let out = env.kigi(&["-p", "hello", "--agent", "general-purpose"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!system_prompt(&env).contains("You are Pat"));
}

#[test]
fn an_upgraded_system_md_is_the_main_agent_and_a_broken_one_is_reported() {
    let env = Env::new(vec![
        Step::calls(vec![(
            "write_file",
            json!({"path": "a.txt", "content": "a"}),
        )]),
        Step::text("done"),
    ]);
    std::fs::write(
        env.home.join("SYSTEM.md"),
        "---\ndescription: a planner\npermissionMode: plan\n---\nYou only plan.\n",
    )
    .unwrap();
    let out = env.kigi(&["-p", "write it"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !env.repo.join("a.txt").exists(),
        "plan mode from SYSTEM.md refuses the write"
    );
    assert!(system_prompt(&env).contains("You only plan."));

    let env = Env::new(vec![Step::text("hi")]);
    std::fs::write(
        env.home.join("SYSTEM.md"),
        "---\ndescription: broken\npermissionMode: yolo\n---\nNever a prompt.\n",
    )
    .unwrap();
    let out = env.kigi(&["-p", "hello"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("SYSTEM.md"), "{}", stderr(&out));
    assert!(!system_prompt(&env).contains("Never a prompt."));
}
