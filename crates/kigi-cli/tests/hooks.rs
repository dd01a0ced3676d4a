//! Hooks through the real `kigi` binary and the scripted model: real shell scripts at each
//! event, Claude Code's contract (stdin JSON, exit 2 blocks, JSON decisions), kigi's agent
//! identities, timeouts, trust, and the transcript's record of every run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_testkit::{Script, ScriptSet, Step};
use serde_json::{Value, json};
use support::{Env, result_of, stderr, tool_results};

/// An executable script `name` in `$KIGI_HOME` holding `body`; its path.
fn hook_script(env: &Env, name: &str, body: &str) -> String {
    let path = env.home.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).unwrap();
    path.display().to_string()
}

fn config(env: &Env, text: &str) {
    std::fs::write(env.home.join("config.toml"), text).unwrap();
}

fn hook_runs(env: &Env, id: &str) -> Vec<Value> {
    env.session_events(id)
        .into_iter()
        .filter(|e| e["type"] == "hook_run")
        .collect()
}

#[test]
fn a_pre_tool_use_hook_blocks_rm_rf_and_the_model_reads_why() {
    let env = Env::new(vec![
        Step::calls(vec![
            ("run_terminal_cmd", json!({"command": "rm -rf victim"})),
            ("run_terminal_cmd", json!({"command": "echo fine"})),
        ]),
        Step::text("done"),
    ]);
    env.write("victim/keep.txt", "keep");
    let script = hook_script(
        &env,
        "no-rm.sh",
        "if grep -q 'rm -rf'; then echo 'rm -rf is not allowed here' >&2; exit 2; fi",
    );
    config(
        &env,
        &format!(
            "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\nhooks = [{{ type = \"command\", command = \"{script}\" }}]\n"
        ),
    );
    let out = env.kigi(&[
        "-p",
        "go",
        "--permission-mode",
        "bypassPermissions",
        "--output-format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.repo.join("victim/keep.txt").exists());
    let results = tool_results(&env);
    assert!(
        results[0].contains("a PreToolUse hook blocked it: rm -rf is not allowed here"),
        "{results:?}"
    );
    assert!(results[1].contains("fine"), "{results:?}");
    let id = result_of(&out)["session_id"].as_str().unwrap().to_owned();
    let runs = hook_runs(&env, &id);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[0]["event"], "PreToolUse");
    assert_eq!(runs[0]["outcome"], "blocked");
    assert_eq!(runs[0]["exit_code"], 2);
    assert_eq!(runs[1]["outcome"], "ok");
}

#[test]
fn updated_input_rewrites_the_command_and_allow_answers_the_ask() {
    let env = Env::new(vec![
        Step::calls(vec![(
            "run_terminal_cmd",
            json!({"command": "echo original > out.txt"}),
        )]),
        Step::text("done"),
    ]);
    let script = hook_script(
        &env,
        "rewrite.sh",
        r#"cat > /dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo rewritten > out.txt"}}}'"#,
    );
    config(
        &env,
        &format!(
            "[[hooks.PreToolUse]]\nmatcher = \"run_terminal_cmd\"\nhooks = [{{ command = \"{script}\" }}]\n"
        ),
    );
    // Default mode: the command would ask, and nobody can answer; the hook's allow answers.
    let out = env.kigi(&["-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(env.repo.join("out.txt")).unwrap(),
        "rewritten\n",
        "{:?}",
        tool_results(&env)
    );
}

#[test]
fn a_post_tool_use_hook_formats_the_file_an_edit_wrote() {
    let env = Env::new(vec![
        Step::calls(vec![(
            "write_file",
            json!({"path": "notes.txt", "content": "hello hooks\n"}),
        )]),
        Step::text("done"),
    ]);
    // The path from Claude Code's field, then the file upper-cased in place.
    let script = hook_script(
        &env,
        "format.sh",
        r#"path=$(sed -n 's/.*"file_path":"\([^"]*\)".*/\1/p'); tr a-z A-Z < "$path" > "$path.tmp" && mv "$path.tmp" "$path"; echo formatted"#,
    );
    config(
        &env,
        &format!(
            "[[hooks.PostToolUse]]\nmatcher = \"Write|Edit\"\nhooks = [{{ command = \"{script}\" }}]\n"
        ),
    );
    let out = env.kigi(&["-p", "go", "--permission-mode", "acceptEdits"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(env.repo.join("notes.txt")).unwrap(),
        "HELLO HOOKS\n"
    );
}

#[test]
fn subagent_hooks_receive_the_childs_id_type_and_parent() {
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#parent",
            vec![
                Step::calls(vec![(
                    "spawn_subagent",
                    json!({"prompt": "#child look", "description": "look", "subagent_type": "explore"}),
                )]),
                Step::text("parent done"),
            ],
        ))
        .with(Script::matching("#child", vec![Step::text("child done")]));
    let env = Env::with_scripts(scripts);
    let log = env.home.join("hook-log.jsonl");
    let script = hook_script(
        &env,
        "log.sh",
        &format!("cat >> {}; echo >> {}", log.display(), log.display()),
    );
    config(
        &env,
        &format!(
            "[[hooks.SubagentStart]]\nhooks = [{{ command = \"{script}\" }}]\n[[hooks.SubagentStop]]\nhooks = [{{ command = \"{script}\" }}]\n"
        ),
    );
    let out = env.kigi(&["-p", "#parent go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events: Vec<&str> = lines
        .iter()
        .map(|l| l["hook_event_name"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["SubagentStart", "SubagentStop"]);
    for line in &lines {
        assert_eq!(line["agent_id"], "sub-1", "{line}");
        assert_eq!(line["agent_type"], "explore", "{line}");
        assert_eq!(line["parent_agent_id"], "main", "{line}");
        assert!(
            line["transcript_path"]
                .as_str()
                .unwrap()
                .ends_with("agents/sub-1/wire.jsonl"),
            "{line}"
        );
    }
}

#[test]
fn user_prompt_submit_context_reaches_the_model() {
    let env = Env::new(vec![Step::text("ok")]);
    let script = hook_script(
        &env,
        "context.sh",
        "cat > /dev/null; echo 'The release branch is kiwi-7.'",
    );
    config(
        &env,
        &format!("[[hooks.UserPromptSubmit]]\nhooks = [{{ command = \"{script}\" }}]\n"),
    );
    let out = env.kigi(&["-p", "which branch?"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sent = env.server().requests()[0].body["messages"].to_string();
    assert!(sent.contains("The release branch is kiwi-7."), "{sent}");
    assert!(sent.contains("which branch?"), "{sent}");
}

#[test]
fn a_stop_hook_that_exits_2_sends_the_agent_back_once() {
    let env = Env::new(vec![
        Step::text("done already"),
        Step::text("now really done"),
    ]);
    let script = hook_script(
        &env,
        "stop.sh",
        "if grep -q '\"stop_hook_active\":false'; then echo 'run the tests first' >&2; exit 2; fi",
    );
    config(
        &env,
        &format!("[[hooks.Stop]]\nhooks = [{{ command = \"{script}\" }}]\n"),
    );
    let out = env.kigi(&["-p", "finish", "--output-format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(result_of(&out)["result"], "now really done");
    let requests = env.server().requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].body.to_string().contains("run the tests first"));
}

#[test]
fn a_hanging_hook_is_killed_at_its_timeout_and_the_run_goes_on() {
    let env = Env::new(vec![
        Step::calls(vec![(
            "run_terminal_cmd",
            json!({"command": "echo still here"}),
        )]),
        Step::text("done"),
    ]);
    let pid_file = env.home.join("hook.pid");
    let script = hook_script(
        &env,
        "hang.sh",
        &format!("echo $$ > {}; exec sleep 600", pid_file.display()),
    );
    config(
        &env,
        &format!("[[hooks.PreToolUse]]\nhooks = [{{ command = \"{script}\", timeout = 0.5 }}]\n"),
    );
    let out = env.kigi(&[
        "-p",
        "go",
        "--permission-mode",
        "bypassPermissions",
        "--output-format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(tool_results(&env)[0].contains("still here"));
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(
        !kigi_testkit::process_probe::still_running(&pid),
        "the hook outlived its timeout"
    );
    let id = result_of(&out)["session_id"].as_str().unwrap().to_owned();
    let runs = hook_runs(&env, &id);
    assert_eq!(runs[0]["outcome"], "timed_out", "{runs:?}");
}

#[test]
fn an_untrusted_projects_hooks_never_run_until_the_folder_is_trusted() {
    let marker = |env: &Env| env.repo.join("hook-ran");
    let agent = "---\nname: worker\ndescription: works\nhooks:\n  SessionStart:\n    - hooks:\n        - type: command\n          command: touch hook-ran\n---\nWork.\n";
    let settings = "[[hooks.PreToolUse]]\nhooks = [{ command = \"touch hook-ran\" }]\n";
    let steps = || {
        vec![
            Step::calls(vec![("list_dir", json!({}))]),
            Step::text("done"),
        ]
    };
    let env = Env::new(steps());
    env.write(".kigi/agents/worker.md", agent);
    env.write(".kigi/settings.toml", settings);
    let out = env.kigi(&["-p", "go", "--agent", "worker"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!marker(&env).exists(), "an untrusted hook ran");
    assert!(stderr(&out).contains("hooks ignored"), "{}", stderr(&out));

    // The same files in a trusted folder: both hooks run (so the test above can fail).
    let env = Env::new(steps());
    env.write(".kigi/agents/worker.md", agent);
    let trust = env.kigi(&["trust"]);
    assert!(trust.status.success(), "{}", stderr(&trust));
    let out = env.kigi(&["-p", "go", "--agent", "worker"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(marker(&env).exists());
}

#[test]
fn hooks_list_shows_every_active_hook_with_its_source() {
    let env = Env::new(vec![Step::text("unused")]);
    config(
        &env,
        "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\nhooks = [{ command = \"check.sh\", timeout = 5 }]\n",
    );
    env.write(
        ".kigi/settings.toml",
        "[[hooks.Stop]]\nhooks = [{ command = \"project.sh\" }]\n",
    );
    let listed = |env: &Env| -> Value {
        let out = env.kigi(&["hooks", "list", "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let untrusted = listed(&env);
    assert_eq!(
        untrusted["hooks"].as_array().unwrap().len(),
        1,
        "{untrusted}"
    );
    assert_eq!(untrusted["hooks"][0]["event"], "PreToolUse");
    assert_eq!(untrusted["hooks"][0]["matcher"], "Bash");
    assert_eq!(untrusted["hooks"][0]["timeout_secs"], 5.0);
    assert!(
        untrusted["hooks"][0]["source"]
            .as_str()
            .unwrap()
            .ends_with("config.toml")
    );
    assert!(
        untrusted["notices"][0]
            .as_str()
            .unwrap()
            .contains("hooks ignored"),
        "{untrusted}"
    );
    assert!(env.kigi(&["trust"]).status.success());
    let trusted = listed(&env);
    let events: Vec<&str> = trusted["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["event"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["PreToolUse", "Stop"]);
}
