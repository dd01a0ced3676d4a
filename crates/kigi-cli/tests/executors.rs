//! Executors end to end: the real `kigi` binary spawns a child whose turn runs on an
//! external engine (`[agent_executors.<id>]`), here kigi itself in stream-json mode or as an
//! ACP agent (`kigi acp`) against the same scripted model server, and plain shell commands
//! that fail or hang.
//!
//! The ACP executor's permission asks must reach a person, so those tests drive the outer
//! kigi as `kigi acp` from the official ACP TypeScript client (tests/acp/client.mjs), which
//! answers them: the path an editor user takes. Install it with
//! `npm ci --prefix crates/kigi-cli/tests/acp`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use kigi_testkit::{Script, ScriptSet, Step};
use serde_json::{Value, json};
use support::{Env, result_of, stderr, tool_results};

/// A parent that spawns one child with `spawn` arguments, then answers "parent done".
fn parent(spawn: Value) -> Script {
    Script::matching(
        "#parent",
        vec![
            Step::calls(vec![("spawn_subagent", spawn)]),
            Step::text("parent done"),
        ],
    )
}

/// An `Env` whose parent spawns one child described `description` on `executor`.
fn spawning_on(executor: &str, description: &str) -> Env {
    Env::with_scripts(ScriptSet::default().with(parent(json!({
        "prompt": "work", "description": description, "executor": executor,
    }))))
}

/// Runs the parent, which must succeed, and returns what its spawns were told.
fn parent_said(env: &Env) -> String {
    let out = env.kigi(&["-p", "#parent go", "--output-format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    tool_results(env).join("\n")
}

fn configure(env: &Env, executors: &str) {
    std::fs::write(env.home.join("config.toml"), executors).unwrap();
}

#[test]
fn a_child_on_a_kigi_executor_streams_its_calls_into_its_transcript_and_answers_the_parent() {
    let scripts = ScriptSet::default()
        .with(parent(json!({
            "prompt": "#ext list the folder",
            "description": "list via executor",
            "executor": "self-kigi",
        })))
        .with(Script::matching(
            "#ext",
            vec![
                Step::calls(vec![("list_dir", json!({}))]),
                Step::text("ext says: one file"),
            ],
        ));
    let env = Env::with_scripts(scripts);
    env.write("a.txt", "a");
    let inner_home = env.home.parent().unwrap().join("inner-home");
    std::fs::create_dir_all(&inner_home).unwrap();
    configure(
        &env,
        &format!(
            "[agent_executors.self-kigi]\nkind = \"command\"\ncommand = {:?}\n\
             args = [\"--output-format\", \"stream-json\", \"-p\", \"{{prompt}}\"]\n\
             env = {{ KIGI_HOME = {:?} }}\noutput_format = \"kigi-stream-json\"\n",
            env!("CARGO_BIN_EXE_kigi"),
            inner_home.display().to_string()
        ),
    );
    let out = env.kigi(&["-p", "#parent go", "--output-format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let result = result_of(&out);
    assert_eq!(result["result"], "parent done");
    let answer = tool_results(&env).join("\n");
    assert!(answer.contains("ext says: one file"), "{answer}");
    assert!(
        answer.contains("executor:self-kigi") || answer.contains("scripted"),
        "{answer}"
    );

    let id = result["session_id"].as_str().unwrap();
    let child = env.agent_events(id, "sub-1");
    let kinds: Vec<&str> = child.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "user_message",
            "assistant_message",
            "tool_call",
            "usage",
            "tool_result",
            "assistant_message",
            "usage",
            "turn_end"
        ],
        "{child:#?}"
    );
    assert_eq!(child[0]["model"], "executor:self-kigi");
    assert_eq!(child[1]["text"], "#ext list the folder");
    assert_eq!(child[3]["name"], "list_dir");
    let meta = &child[3]["_meta"]["kigi/tool"];
    assert_eq!(meta["namespace"], "external", "{meta}");
    assert_eq!(meta["label"], "list_dir");
    assert_eq!(child[5]["call_id"], child[3]["call_id"]);
    assert_eq!(child[5]["status"], "completed");
    assert!(child[5]["output"].as_str().unwrap().contains("a.txt"));
    assert_eq!(child[6]["text"], "ext says: one file");
    assert_eq!(child[8]["reason"], "completed");
}

#[test]
fn an_unknown_executor_fails_the_spawn_naming_it() {
    let env = spawning_on("nope", "on nothing");
    configure(
        &env,
        "[agent_executors.real]\nkind = \"command\"\ncommand = \"sh\"\noutput_format = \"codex-jsonl\"\n",
    );
    let said = parent_said(&env);
    assert!(
        said.contains("executor `nope` is not configured; configured: real"),
        "{said}"
    );
    // Nothing ran natively in its place: the parent's two requests are all the server saw.
    assert_eq!(env.server().requests().len(), 2);
}

#[test]
fn a_failing_executor_fails_the_child_with_its_stderr_tail() {
    let env = spawning_on("broken", "fail please");
    configure(
        &env,
        "[agent_executors.broken]\nkind = \"command\"\ncommand = \"sh\"\n\
         args = [\"-c\", \"echo engine exploded >&2; exit 7\"]\noutput_format = \"claude-stream-json\"\n",
    );
    let said = parent_said(&env);
    assert!(
        said.contains(
            "executor `broken` ended (exit code 7) without a result; stderr: engine exploded"
        ),
        "{said}"
    );
    let missing = spawning_on("ghost", "no program");
    configure(
        &missing,
        "[agent_executors.ghost]\nkind = \"command\"\ncommand = \"no-such-engine-xyz\"\noutput_format = \"codex-jsonl\"\n",
    );
    let said = parent_said(&missing);
    assert!(
        said.contains("executor `ghost`: `no-such-engine-xyz` is not on PATH"),
        "{said}"
    );
}

#[test]
fn a_timed_out_executor_leaves_no_process_behind() {
    let env = spawning_on("hang", "hang forever");
    let pids = env.repo.join("pids");
    configure(
        &env,
        &format!(
            "[agent_executors.hang]\nkind = \"command\"\ncommand = \"sh\"\n\
             args = [\"-c\", \"echo $$ > {0}; sleep 300 & echo $! >> {0}; wait\"]\n\
             output_format = \"kigi-stream-json\"\ntimeout_secs = 1\n",
            pids.display()
        ),
    );
    let said = parent_said(&env);
    assert!(
        said.contains("executor `hang` ran past its 1s limit and was killed"),
        "{said}"
    );
    let pids: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2);
    for pid in pids {
        assert!(gone(pid), "process {pid} outlived its executor");
    }
}

/// Whether `pid` is gone or a zombie (killed, awaiting its reaper), within a ceiling.
fn gone(pid: i32) -> bool {
    for _ in 0..500 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next());
        if !state.is_some_and(|s| s != "Z" && s != "X") {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// How long one ACP scenario may take, Node and both kigis together.
const SCENARIO_CEILING: Duration = Duration::from_secs(120);

/// Runs scenario `name` of tests/acp/client.mjs (the outer `kigi acp`) and returns what the
/// client saw.
fn acp_scenario(env: &Env, name: &str) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/acp");
    let sdk = dir.join("node_modules/@agentclientprotocol/sdk");
    assert!(
        sdk.exists(),
        "{} is missing: run `npm ci --prefix crates/kigi-cli/tests/acp` (Node 20+)",
        sdk.display()
    );
    let mut command = tokio::process::Command::new("node");
    command
        .arg(dir.join("client.mjs"))
        .arg(name)
        .current_dir(&env.repo)
        .env("KIGI_BIN", env!("CARGO_BIN_EXE_kigi"))
        .env("REPO", &env.repo)
        .env("HOME", env.home.parent().unwrap())
        .env("KIGI_HOME", &env.home)
        .env("KIGI_BASE_URL", env.server().url())
        .env("KIGI_MODEL", "scripted")
        .env_remove("KIGI_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let out = env
        .runtime
        .block_on(async { tokio::time::timeout(SCENARIO_CEILING, command.output()).await })
        .unwrap_or_else(|_| panic!("scenario {name} ran past {SCENARIO_CEILING:?}"))
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "scenario {name} failed:\n{stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("scenario {name}: {e}\n{stderr}"))
}

/// A parent that spawns a child on the `inner` ACP executor (`kigi acp` with its own home),
/// whose model writes `made.txt` and then answers.
fn acp_executor_env() -> Env {
    let scripts = ScriptSet::default()
        .with(parent(json!({
            "prompt": "#ext write the file",
            "description": "write via acp",
            "executor": "inner",
        })))
        .with(Script::matching(
            "#ext",
            vec![
                Step::calls(vec![(
                    "write_file",
                    json!({"path": "made.txt", "content": "made by the engine\n"}),
                )]),
                Step::text("ext finished"),
            ],
        ));
    let env = Env::with_scripts(scripts);
    let inner_home = env.home.parent().unwrap().join("inner-home");
    std::fs::create_dir_all(&inner_home).unwrap();
    configure(
        &env,
        &format!(
            "[agent_executors.inner]\nkind = \"acp\"\ncommand = {:?}\nargs = [\"acp\"]\n\
             env = {{ KIGI_HOME = {:?} }}\ntimeout_secs = 60\n",
            env!("CARGO_BIN_EXE_kigi"),
            inner_home.display().to_string()
        ),
    );
    env
}

/// The one permission ask the client saw, which must name the child.
fn the_childs_ask(seen: &Value) -> &Value {
    let asks = seen["permissions"].as_array().unwrap();
    assert_eq!(asks.len(), 1, "{seen:#}");
    let ask = &asks[0];
    let meta = &ask["toolCall"]["_meta"];
    assert_eq!(meta["kigi/agentId"], "sub-1", "{ask:#}");
    assert_eq!(meta["kigi/tool"]["namespace"], "external", "{ask:#}");
    // The agent said it edits; the kind is shown, and grants nothing.
    assert_eq!(meta["kigi/tool"]["kind"], "edit", "{ask:#}");
    ask
}

#[test]
fn a_child_on_the_kigi_acp_executor_writes_a_file_after_an_approval_bridged_to_the_parent() {
    let env = acp_executor_env();
    let seen = acp_scenario(&env, "executor_allow");
    assert_eq!(seen["stopReason"], "end_turn", "{seen:#}");
    the_childs_ask(&seen);
    // Written by the outer kigi's ACP client (the inner kigi wrote through `fs/write_text_file`).
    assert_eq!(
        std::fs::read_to_string(env.repo.join("made.txt")).unwrap(),
        "made by the engine\n"
    );
    let id = seen["session"]["sessionId"].as_str().unwrap();
    let child = env.agent_events(id, "sub-1");
    let kinds: Vec<&str> = child.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "user_message",
            "assistant_message",
            "tool_call",
            "tool_result",
            "assistant_message",
            "turn_end"
        ],
        "{child:#?}"
    );
    assert_eq!(child[0]["model"], "executor:inner");
    assert_eq!(child[1]["text"], "#ext write the file");
    let meta = &child[3]["_meta"]["kigi/tool"];
    assert_eq!(meta["namespace"], "external", "{meta}");
    assert_eq!(child[4]["call_id"], child[3]["call_id"]);
    assert_eq!(child[4]["status"], "completed", "{:#}", child[4]);
    assert_eq!(child[5]["text"], "ext finished");
    assert_eq!(child[6]["reason"], "completed");
    // The child's answer reached the parent.
    let answer = tool_results(&env).join("\n");
    assert!(answer.contains("ext finished"), "{answer}");
}

#[test]
fn a_refused_approval_leaves_the_file_unwritten() {
    let env = acp_executor_env();
    let seen = acp_scenario(&env, "executor_reject");
    assert_eq!(seen["stopReason"], "end_turn", "{seen:#}");
    the_childs_ask(&seen);
    assert!(!env.repo.join("made.txt").exists());
    let id = seen["session"]["sessionId"].as_str().unwrap();
    let child = env.agent_events(id, "sub-1");
    let result = child
        .iter()
        .find(|e| e["type"] == "tool_result")
        .unwrap_or_else(|| panic!("{child:#?}"));
    assert_eq!(result["status"], "failed", "{result:#}");
}

#[test]
fn an_unknown_acp_command_fails_the_spawn_naming_the_executor() {
    let env = spawning_on("ghost-acp", "no agent");
    configure(
        &env,
        "[agent_executors.ghost-acp]\nkind = \"acp\"\ncommand = \"no-such-acp-agent-xyz\"\n",
    );
    let said = parent_said(&env);
    assert!(
        said.contains("executor `ghost-acp`: `no-such-acp-agent-xyz` is not on PATH"),
        "{said}"
    );
    assert_eq!(env.server().requests().len(), 2);
}

/// The first user message the inner kigi sent its model, with `profile_delivery` as given.
fn inner_prompt_with_delivery(delivery: &str) -> String {
    let scripts = ScriptSet::default()
        .with(parent(json!({
            "prompt": "#ext say hi",
            "description": "profiled",
            "subagent_type": "writer",
            "executor": "inner",
        })))
        .with(Script::matching("#ext", vec![Step::text("hi from ext")]));
    let env = Env::with_scripts(scripts);
    std::fs::create_dir_all(env.home.join("agents")).unwrap();
    std::fs::write(
        env.home.join("agents/writer.md"),
        "---\nname: writer\ndescription: Writes things.\n---\nPROFILE-BODY-XYZ\n",
    )
    .unwrap();
    let inner_home = env.home.parent().unwrap().join("inner-home");
    std::fs::create_dir_all(&inner_home).unwrap();
    configure(
        &env,
        &format!(
            "[agent_executors.inner]\nkind = \"acp\"\ncommand = {:?}\nargs = [\"acp\"]\n\
             env = {{ KIGI_HOME = {:?} }}\n{delivery}",
            env!("CARGO_BIN_EXE_kigi"),
            inner_home.display().to_string()
        ),
    );
    let out = env.kigi(&["-p", "#parent go", "--output-format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let answer = tool_results(&env).join("\n");
    assert!(answer.contains("hi from ext"), "{answer}");
    let requests = env.server().requests().len();
    (0..requests)
        .map(|n| env.user_prompt(n))
        .find(|text| text.contains("#ext say hi"))
        .expect("the inner kigi's request")
}

#[test]
fn an_acp_executor_gets_the_profile_in_a_preamble_unless_it_opts_into_the_override() {
    let preamble = inner_prompt_with_delivery("");
    assert!(
        preamble.starts_with("<agent-profile name=\"writer\">")
            && preamble.contains("PROFILE-BODY-XYZ"),
        "{preamble}"
    );
    // Opted in, the profile goes in `session/new`'s `_meta` (which `kigi acp` does not
    // read), so the message carries none.
    let overridden = inner_prompt_with_delivery("profile_delivery = \"system_prompt_override\"\n");
    assert!(!overridden.contains("PROFILE-BODY-XYZ"), "{overridden}");
    assert!(overridden.contains("#ext say hi"), "{overridden}");
}
