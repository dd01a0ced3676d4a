//! What a new user meets in the first hour, with the real binary against the scripted model
//! over loopback: a closed pipe, the prompt from stdin, `--json` and `--output-format` where
//! they belong, progress in text mode, errors said once, a refused key, `kigi swarm` and
//! `kigi demo` telling the truth, shell completions and `--help`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Stdio;

use kigi_testkit::{Fault, Script, ScriptSet, Step};
use serde_json::{Value, json};

mod support;

use support::{Env, result_of, stderr, stdout};

fn json_of(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

#[test]
fn a_closed_stdout_ends_sessions_list_quietly() {
    let env = Env::new(vec![Step::text("done")]);
    assert!(env.kigi(&["-p", "one"]).status.success());
    let out = env.kigi_into_closed_pipe(&["sessions", "list"]);
    assert_eq!(out.status.code(), Some(141), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_closed_stdout_ends_a_stream_json_run_quietly() {
    let env = Env::new(vec![Step::text("done")]);
    let out = env.kigi_into_closed_pipe(&["-p", "hello", "--output-format", "stream-json"]);
    assert_eq!(out.status.code(), Some(141), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn the_prompt_is_read_from_stdin_with_no_argument_or_a_dash() {
    let env = Env::new(vec![Step::text("answered")]);
    let out = env.kigi_with_stdin(&["-p"], b"what is here?\n".to_vec());
    assert_eq!(stdout(&out), "answered\n", "{}", stderr(&out));
    assert_eq!(env.user_prompt(0), "what is here?");
    let env = Env::new(vec![Step::text("answered")]);
    let out = env.kigi_with_stdin(
        &["-p", "-", "--output-format", "json"],
        b"from a dash".to_vec(),
    );
    assert_eq!(result_of(&out)["result"], "answered");
    assert_eq!(env.user_prompt(0), "from a dash");
}

#[test]
fn piped_text_is_appended_to_the_prompt_argument() {
    let env = Env::new(vec![Step::text("explained")]);
    let out = env.kigi_with_stdin(
        &["-p", "explain"],
        b"error: line 1\nerror: line 2\n".to_vec(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        env.user_prompt(0),
        "explain\n\nerror: line 1\nerror: line 2"
    );
}

#[test]
fn stdin_past_the_cap_is_refused_before_anything_is_sent() {
    let env = Env::new(vec![Step::text("never")]);
    let out = env.kigi_with_stdin(&["-p"], vec![b'x'; 4 * 1024 * 1024 + 1]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("larger than 4 MiB"),
        "{}",
        stderr(&out)
    );
    assert!(env.server().requests().is_empty());
    let empty = env.kigi_with_stdin(&["-p"], Vec::new());
    assert_eq!(empty.status.code(), Some(2));
    assert!(
        stderr(&empty).contains("stdin was empty"),
        "{}",
        stderr(&empty)
    );
}

#[test]
fn a_silent_open_stdin_does_not_hold_a_run_that_has_a_prompt() {
    let env = Env::new(vec![Step::text("went ahead")]);
    let mut child = env
        .command(&["-p", "go"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Held open, never written, until kigi has answered.
    let stdin = child.stdin.take().unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(stdout(&out), "went ahead\n", "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing arrived on stdin within 3s"),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.user_prompt(0), "go");
}

#[test]
fn the_json_result_names_the_model_and_the_duration_in_milliseconds() {
    let env = Env::new(vec![Step::text("ok")]);
    let out = env.kigi(&["-p", "hi", "--output-format", "json"]);
    let result = result_of(&out);
    assert_eq!(result["model"], "scripted");
    assert!(result["duration_ms"].is_u64(), "{result}");
}

#[test]
fn text_mode_shows_each_result_under_its_call_and_draws_nothing_without_a_terminal() {
    let env = Env::new(vec![
        Step::calls(vec![
            ("glob", json!({"pattern": "*.md"})),
            ("grep", json!({"pattern": "needle"})),
        ]),
        Step::text("Found."),
    ]);
    env.write("README.md", "# a needle here\n");
    let out = env.kigi(&["-p", "look"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    let glob = lines.iter().position(|l| l.starts_with("→ glob")).unwrap();
    let grep = lines.iter().position(|l| l.starts_with("→ grep")).unwrap();
    assert_eq!(lines[glob + 1], "    README.md", "{err}");
    assert_eq!(lines[grep + 1], "    README.md:1:# a needle here", "{err}");
    assert!(!err.contains('\r') && !err.contains('⠋'), "{err:?}");
    assert_eq!(stdout(&out), "Found.\n");
}

#[test]
fn list_and_result_commands_take_json() {
    let env = Env::new(vec![Step::text("OK")]);
    let personas = json_of(&env.kigi(&["personas", "list", "--json"]));
    assert!(personas["entries"].is_array(), "{personas}");
    let name = personas["entries"][0]["name"].as_str().unwrap().to_owned();
    let shown = json_of(&env.kigi(&["personas", "show", &name, "--json"]));
    assert_eq!(shown["name"], name.as_str());
    assert!(shown["instructions"].is_string(), "{shown}");
    env.write(".kigi/prompts/reviewer.md", "Review carefully.\n");
    env.write(
        ".kigi/roles/reviewer.toml",
        "description = \"Reviews diffs\"\nprompt_file = \".kigi/prompts/reviewer.md\"\n",
    );
    let roles = json_of(&env.kigi(&["roles", "list", "--json"]));
    assert_eq!(roles["entries"][0]["name"], "reviewer", "{roles}");
    let role = json_of(&env.kigi(&["roles", "show", "reviewer", "--json"]));
    assert_eq!(role["prompt"], "Review carefully.\n", "{role}");
    assert_eq!(
        json_of(&env.kigi(&["worktree", "list", "--json"])),
        json!([])
    );
    let ping = json_of(&env.kigi(&["models", "ping", "--json"]));
    assert_eq!(
        (
            &ping["answer"],
            &ping["model"],
            ping["duration_ms"].is_u64()
        ),
        (&json!("OK"), &json!("scripted"), true)
    );
    let ran = result_of(&env.kigi(&["-p", "hi", "--output-format", "json"]));
    let id = ran["session_id"].as_str().unwrap();
    let shown = json_of(&env.kigi(&["sessions", "show", id, "--json"]));
    assert_eq!(shown["id"], id);
    assert_eq!(
        shown["events"][0]["event"]["type"], "session_start",
        "{shown}"
    );
}

#[test]
fn output_format_is_refused_where_it_means_nothing() {
    let env = Env::new(vec![]);
    let out = env.kigi(&["--output-format", "json", "sessions", "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("take --json"), "{}", stderr(&out));
    let out = env.kigi(&["sessions", "list", "--output-format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn an_error_says_its_cause_once() {
    let env = Env::new(vec![]);
    assert!(env.kigi(&["agents", "new", "twice"]).status.success());
    let again = env.kigi(&["agents", "new", "twice"]);
    assert_eq!(again.status.code(), Some(1));
    let err = stderr(&again);
    assert_eq!(err.matches("os error 17").count(), 1, "{err}");
}

#[test]
fn a_refused_key_names_the_variable_it_came_from() {
    let env = Env::new(vec![Step::text("never").after_faults(vec![
        Fault::Status {
            status: 401,
            retry_after_ms: None,
            code: Some("invalid_api_key".into()),
            message: Some("Incorrect API key provided".into()),
        },
    ])]);
    let out = env
        .command(&["-p", "hi"])
        .env("KIGI_API_KEY", "sk-wrong-key-123456")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("check the API key in $KIGI_API_KEY"), "{err}");
    assert!(!err.contains("sk-wrong-key-123456"), "{err}");
}

#[test]
fn swarm_accepts_an_item_placeholder_with_spaces_and_reports_milliseconds() {
    let scripts = ScriptSet::default().with(Script {
        name: "member".into(),
        marker: None,
        steps: vec![Step::text("checked")],
    });
    let env = Env::with_scripts(scripts);
    let items = env.write("items.txt", "alpha\nbeta\n");
    let out = env.kigi(&[
        "swarm",
        "--template",
        "check {{ item }}",
        "--items-file",
        items.to_str().unwrap(),
        "--output-format",
        "json",
    ]);
    let report = result_of(&out);
    assert!(report["duration_ms"].is_u64(), "{report}");
    assert!(report.get("duration").is_none(), "{report}");
    let prompts: Vec<String> = (0..2).map(|n| env.user_prompt(n)).collect();
    assert!(
        prompts.iter().any(|p| p.contains("check alpha")),
        "{prompts:?}"
    );
    let one = env.write("one.txt", "alpha\n");
    let out = env.kigi(&[
        "swarm",
        "--template",
        "check {{item}}",
        "--items-file",
        one.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("run `kigi -p"), "{}", stderr(&out));
}

#[test]
fn demo_says_plainly_that_it_ignores_a_prompt() {
    let env = Env::new(vec![]);
    let out = env.kigi(&["demo", "fix my bug", "--output-format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the scripted model ignores your prompt"),
        "{}",
        stderr(&out)
    );
    let plain = env.kigi(&["demo", "--output-format", "json"]);
    assert!(!stderr(&plain).contains("ignores your prompt"));
}

#[test]
fn completions_and_help_say_what_kigi_is() {
    let env = Env::new(vec![]);
    for shell in ["bash", "zsh", "fish"] {
        let out = env.kigi(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        assert!(stdout(&out).contains("swarm"), "{shell}");
    }
    let help = env.kigi(&["--help"]);
    assert!(
        stdout(&help).starts_with("kigi: a terminal coding agent"),
        "{}",
        stdout(&help)
    );
}
