//! `kigi acp` driven by an editor kigi did not write: the official ACP TypeScript SDK
//! (`@agentclientprotocol/sdk`, pinned in tests/acp/package-lock.json), run by Node, against
//! the real binary and the scripted model. Install it with
//! `npm ci --prefix crates/kigi-cli/tests/acp` (`.ci/run` does).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use kigi_testkit::{Fault, Script, ScriptSet, ScriptedToolCall, Step};
use serde_json::{Value, json};
use support::Env;

/// How long one scenario may take, Node and kigi together.
const SCENARIO_CEILING: Duration = Duration::from_secs(120);

fn client_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/acp")
}

/// Runs scenario `name` of tests/acp/client.mjs and returns what the client saw.
fn scenario(env: &Env, name: &str) -> Value {
    let sdk = client_dir().join("node_modules/@agentclientprotocol/sdk");
    assert!(
        sdk.exists(),
        "{} is missing: run `npm ci --prefix crates/kigi-cli/tests/acp` (Node 20+)",
        sdk.display()
    );
    let mut command = tokio::process::Command::new("node");
    command
        .arg(client_dir().join("client.mjs"))
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

/// The session updates of kind `kind`.
fn updates<'a>(seen: &'a Value, kind: &str) -> Vec<&'a Value> {
    seen["updates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| &n["update"])
        .filter(|u| u["sessionUpdate"] == kind)
        .collect()
}

/// The kinds of the session updates, runs of one kind shown once.
fn update_kinds(seen: &Value) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for notification in seen["updates"].as_array().unwrap() {
        let kind = notification["update"]["sessionUpdate"]
            .as_str()
            .unwrap()
            .to_owned();
        if kinds.last() != Some(&kind) {
            kinds.push(kind);
        }
    }
    kinds
}

/// The text of consecutive chunks of `kind`, one string per run.
fn chunk_runs(seen: &Value, kind: &str) -> Vec<String> {
    let mut runs: Vec<String> = Vec::new();
    let mut in_run = false;
    for notification in seen["updates"].as_array().unwrap() {
        let update = &notification["update"];
        if update["sessionUpdate"] == kind {
            let text = update["content"]["text"].as_str().unwrap();
            match (in_run, runs.last_mut()) {
                (true, Some(run)) => run.push_str(text),
                _ => runs.push(text.to_owned()),
            }
            in_run = true;
        } else {
            in_run = false;
        }
    }
    runs
}

fn one_script(marker: &str, steps: Vec<Step>) -> Env {
    Env::with_scripts(ScriptSet::default().with(Script::matching(marker, steps)))
}

#[test]
fn initialize_and_a_new_session_then_an_answer_streams_in_order() {
    let mut first = Step::calls([ScriptedToolCall::new(
        "todo_write",
        json!({"todos": [{"content": "greet", "status": "in_progress"}]}),
    )]);
    first.thinking = Some("The user wants a greeting.".into());
    first.text = Some("Planning the greeting first. ".into());
    first.chunk_chars = Some(4);
    let mut last = Step::text("Hello from kigi, streamed in small pieces.");
    last.chunk_chars = Some(4);
    let env = one_script("#stream", vec![first, last]);
    let seen = scenario(&env, "stream");

    assert_eq!(seen["init"]["protocolVersion"], 1);
    assert_eq!(seen["init"]["agentCapabilities"]["loadSession"], true);
    assert_eq!(seen["init"]["agentInfo"]["name"], "kigi");
    let modes = &seen["session"]["modes"];
    assert_eq!(modes["currentModeId"], "default");
    assert_eq!(modes["availableModes"].as_array().unwrap().len(), 5);
    assert_eq!(seen["stopReason"], "end_turn");
    assert_eq!(
        update_kinds(&seen),
        [
            "available_commands_update",
            "agent_thought_chunk",
            "agent_message_chunk",
            "tool_call",
            "tool_call_update",
            "plan",
            "agent_message_chunk"
        ]
    );
    assert_eq!(
        chunk_runs(&seen, "agent_message_chunk"),
        [
            "Planning the greeting first. ",
            "Hello from kigi, streamed in small pieces."
        ]
    );
    assert_eq!(
        chunk_runs(&seen, "agent_thought_chunk"),
        ["The user wants a greeting."]
    );
    assert_eq!(
        updates(&seen, "plan")[0]["entries"],
        json!([{"content": "greet", "priority": "medium", "status": "in_progress"}])
    );
    assert_eq!(seen["exit"]["code"], 0);
}

#[test]
fn a_tool_call_has_its_kind_location_kigi_tool_meta_and_final_content() {
    let env = one_script(
        "#tool",
        vec![
            Step::tool_call("read_file", json!({"path": "a.txt", "offset": 2})),
            Step::text("Read it."),
        ],
    );
    env.write("a.txt", "first line\nsecond line\n");
    let seen = scenario(&env, "tool");
    let call = updates(&seen, "tool_call")[0];
    assert_eq!(call["kind"], "read");
    assert_eq!(call["title"], "Read a.txt");
    let a_txt = env.repo.join("a.txt").display().to_string();
    assert_eq!(call["locations"], json!([{"path": a_txt, "line": 2}]));
    assert_eq!(call["rawInput"], json!({"path": "a.txt", "offset": 2}));
    let meta = &call["_meta"]["kigi/tool"];
    assert_eq!(
        (
            &meta["name"],
            &meta["kind"],
            &meta["label"],
            &meta["namespace"]
        ),
        (
            &json!("read_file"),
            &json!("read"),
            &json!("Read"),
            &json!("kigi")
        )
    );
    let done = updates(&seen, "tool_call_update");
    let last = done.last().unwrap();
    assert_eq!(last["toolCallId"], call["toolCallId"]);
    assert_eq!(last["status"], "completed");
    let text = last["content"][0]["content"]["text"].as_str().unwrap();
    assert!(text.contains("2\tsecond line"), "{text}");
    // The client offered fs/read_text_file: the read went through it.
    assert_eq!(seen["fsReads"], json!([a_txt]));
}

#[test]
fn a_write_asks_is_allowed_and_lands_through_the_clients_fs_write() {
    let env = one_script(
        "#write",
        vec![
            Step::tool_call(
                "write_file",
                json!({"path": "notes.txt", "content": "written through the editor\n"}),
            ),
            Step::text("Wrote the notes."),
        ],
    );
    let seen = scenario(&env, "write");
    let asks = seen["permissions"].as_array().unwrap();
    assert_eq!(asks.len(), 1, "{seen}");
    let kinds: Vec<&str> = asks[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
    assert_eq!(asks[0]["toolCall"]["kind"], "edit");
    let notes = env.repo.join("notes.txt");
    assert_eq!(
        seen["fsWrites"],
        json!([{"path": notes.display().to_string(), "content": "written through the editor\n"}])
    );
    // The editor recorded the write and did not make it: kigi did not write the disk.
    assert!(!notes.exists());
    let statuses: Vec<&Value> = updates(&seen, "tool_call_update")
        .iter()
        .map(|u| &u["status"])
        .collect();
    assert_eq!(statuses, [&json!("in_progress"), &json!("completed")]);
    assert_eq!(seen["stopReason"], "end_turn");
}

#[test]
fn a_command_the_client_rejects_does_not_run() {
    let env = one_script(
        "#deny",
        vec![
            Step::tool_call("run_terminal_cmd", json!({"command": "touch denied.txt"})),
            Step::text("It was denied."),
        ],
    );
    let seen = scenario(&env, "deny");
    let asks = seen["permissions"].as_array().unwrap();
    assert_eq!(asks.len(), 1, "{seen}");
    assert_eq!(asks[0]["toolCall"]["kind"], "execute");
    let done = updates(&seen, "tool_call_update");
    assert_eq!(done.last().unwrap()["status"], "failed");
    assert!(!env.repo.join("denied.txt").exists());
    assert_eq!(seen["stopReason"], "end_turn");
    // The model was told, and answered.
    assert_eq!(
        chunk_runs(&seen, "agent_message_chunk").last().unwrap(),
        "It was denied."
    );
}

#[test]
fn cancel_mid_turn_ends_the_prompt_cancelled() {
    let mut hanging = Step::text("This answer never finishes: the model hangs halfway through it.");
    hanging.faults = vec![Fault::Hang];
    let env = one_script("#cancel", vec![hanging]);
    let seen = scenario(&env, "cancel");
    assert_eq!(seen["stopReason"], "cancelled");
    assert!(!updates(&seen, "agent_message_chunk").is_empty());
    assert_eq!(seen["exit"]["code"], 0);
}

#[test]
fn session_load_replays_the_transcript_and_continues_it() {
    let env = one_script(
        "#load",
        vec![
            Step::tool_call("list_dir", json!({})),
            Step::text("first answer"),
            Step::text("second answer"),
        ],
    );
    env.write("a.txt", "a");
    let seen = scenario(&env, "load");
    assert_eq!(seen["firstExit"]["code"], 0);
    // The loaded session announces its slash commands once, after the replay.
    assert_eq!(updates(&seen, "available_commands_update").len(), 1);
    let updates: Vec<&Value> = seen["updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["update"]["sessionUpdate"] != "available_commands_update")
        .collect();
    let replayed: Vec<&Value> = updates[..seen["replayed"].as_u64().unwrap() as usize]
        .iter()
        .map(|n| &n["update"])
        .collect();
    let kinds: Vec<&str> = replayed
        .iter()
        .map(|u| u["sessionUpdate"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "user_message_chunk",
            "tool_call",
            "tool_call_update",
            "agent_message_chunk"
        ]
    );
    assert_eq!(replayed[0]["content"]["text"], "#load first question");
    assert_eq!(replayed[3]["content"]["text"], "first answer");
    assert_eq!(seen["loaded"]["modes"]["currentModeId"], "default");
    // And it carries on: the second prompt gets the script's next answer.
    assert_eq!(seen["stopReason"], "end_turn");
    let live = json!({"updates": updates[replayed.len()..]});
    assert_eq!(chunk_runs(&live, "agent_message_chunk"), ["second answer"]);
}

#[test]
fn a_subagents_events_arrive_as_kigi_session_updates() {
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#parent",
            vec![
                Step::tool_call(
                    "spawn_subagent",
                    json!({"prompt": "#child list the folder", "description": "list the folder", "subagent_type": "explore"}),
                ),
                Step::text("The child listed it."),
            ],
        ))
        .with(Script::matching(
            "#child",
            vec![
                Step::tool_call("list_dir", json!({})),
                Step::text("one file: a.txt"),
            ],
        ));
    let env = Env::with_scripts(scripts);
    env.write("a.txt", "a");
    let seen = scenario(&env, "subagent");
    assert_eq!(seen["stopReason"], "end_turn");
    let session = &seen["session"]["sessionId"];
    let child: Vec<&Value> = seen["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["method"] == "_kigi/session/update")
        .map(|n| &n["params"])
        .collect();
    assert!(!child.is_empty(), "{seen}");
    for params in &child {
        assert_eq!(&params["sessionId"], session);
        assert_eq!(params["agentId"], "sub-1");
        assert_eq!(params["parentId"], "main");
    }
    let types: Vec<&str> = child
        .iter()
        .map(|p| p["update"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"subagent_started"), "{types:?}");
    assert!(types.contains(&"tool_call"), "{types:?}");
    assert!(types.contains(&"subagent_finished"), "{types:?}");
    // The spawn itself is a tool call of the main agent.
    assert_eq!(updates(&seen, "tool_call")[0]["kind"], "think");
}

#[test]
fn set_mode_plan_makes_a_write_refused_without_asking() {
    let env = one_script(
        "#plan",
        vec![
            Step::tool_call("write_file", json!({"path": "plan.txt", "content": "x"})),
            Step::text("Plan mode refused it."),
        ],
    );
    let seen = scenario(&env, "plan");
    assert_eq!(
        updates(&seen, "current_mode_update")[0]["currentModeId"],
        "plan"
    );
    assert_eq!(seen["permissions"], json!([]));
    assert_eq!(seen["fsWrites"], json!([]));
    let done = updates(&seen, "tool_call_update");
    assert_eq!(done.last().unwrap()["status"], "failed");
    assert_eq!(done.last().unwrap()["_meta"]["kigi/toolStatus"], "refused");
    assert!(!env.repo.join("plan.txt").exists());
}

/// The model requests' messages, as JSON text.
fn sent_messages(env: &Env, n: usize) -> String {
    env.server().requests()[n].body["messages"].to_string()
}

#[test]
fn an_image_an_unsaved_buffer_and_a_linked_file_reach_the_model_and_a_missing_file_is_an_error() {
    let env = one_script("#attach", vec![Step::text("A pixel and two files.")]);
    std::fs::write(
        env.home.join("config.toml"),
        "[models.scripted]\nimages = true\n",
    )
    .unwrap();
    env.write("a.txt", "linked file text\n");
    let seen = scenario(&env, "attach");
    assert_eq!(
        seen["init"]["agentCapabilities"]["promptCapabilities"],
        json!({"image": true, "audio": false, "embeddedContext": true})
    );
    assert_eq!(seen["first"]["stopReason"], "end_turn", "{seen}");
    let sent = sent_messages(&env, 0);
    assert!(sent.contains("#attach what do you see"), "{sent}");
    assert!(
        sent.contains("data:image/png;base64,iVBORw0KGgo"),
        "the image reached the model: {sent}"
    );
    assert!(sent.contains("fn unsaved_buffer() {}"), "{sent}");
    assert!(sent.contains("linked file text"), "{sent}");
    // The link named a file that is not there: that prompt is refused, naming it, and the
    // model is not asked.
    let missing = &seen["missing"]["error"];
    assert_eq!(missing["code"], -32602, "{seen}");
    let message = missing["message"].as_str().unwrap();
    assert!(message.contains("missing.txt"), "{message}");
    assert_eq!(env.server().requests().len(), 1);
}

#[test]
fn the_model_option_lists_the_aliases_and_setting_it_changes_the_next_requests_model() {
    let env = one_script(
        "#model",
        vec![Step::text("first answer"), Step::text("second answer")],
    );
    std::fs::write(
        env.home.join("config.toml"),
        "[models.fast]\nmodel = \"kimi-fast\"\n",
    )
    .unwrap();
    let seen = scenario(&env, "model");
    let option = &seen["session"]["configOptions"][0];
    assert_eq!(
        (&option["id"], &option["category"], &option["currentValue"]),
        (&json!("model"), &json!("model"), &json!("scripted"))
    );
    let values: Vec<&Value> = option["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| &o["value"])
        .collect();
    assert_eq!(values, [&json!("scripted"), &json!("fast")]);
    assert_eq!(seen["setFast"]["configOptions"][0]["currentValue"], "fast");
    assert_eq!(seen["bad"]["code"], -32602, "{seen}");
    assert_eq!(
        seen["stopReasons"],
        json!(["end_turn", "end_turn", "end_turn"])
    );
    let models: Vec<Value> = env
        .server()
        .requests()
        .iter()
        .map(|r| r.body["model"].clone())
        .collect();
    // The alias's model id, then the one `/model` named; `/model` itself asked no model.
    assert_eq!(models, [json!("kimi-fast"), json!("raw-model-id")]);
    let announced: Vec<&Value> = updates(&seen, "config_option_update")
        .iter()
        .map(|u| &u["configOptions"][0]["currentValue"])
        .collect();
    assert_eq!(announced, [&json!("fast"), &json!("raw-model-id")]);
}

#[test]
fn slash_commands_are_announced_and_compact_compacts_before_the_rest_of_the_prompt() {
    let mut read = Step::calls([ScriptedToolCall::new(
        "read_file",
        json!({"path": "big.txt"}),
    )]);
    read.usage = Some(kigi_testkit::ScriptedUsage {
        input: 100,
        output: 10,
        cached: 0,
    });
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#compact",
            vec![read, Step::text("read it")],
        ))
        .with(Script::matching(
            "You write the summary that replaces",
            vec![Step::text("#after-compaction: big.txt holds x's.")],
        ))
        .with(Script::matching(
            "#after-compaction",
            vec![Step::text("done after compaction")],
        ));
    let env = Env::with_scripts(scripts);
    env.write("big.txt", &"x".repeat(8_000));
    let seen = scenario(&env, "commands");
    let commands: Vec<&str> = updates(&seen, "available_commands_update")[0]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(commands, ["compact", "init", "model"]);
    assert_eq!(seen["stopReasons"], json!(["end_turn", "end_turn"]));
    // The two prompts' answers, one after the other.
    assert_eq!(
        chunk_runs(&seen, "agent_message_chunk"),
        ["read itdone after compaction"]
    );
    let id = seen["session"]["sessionId"].as_str().unwrap();
    let events = env.session_events(id);
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "compaction_started" && e["trigger"] == "manual"),
        "{events:?}"
    );
    assert!(events.iter().any(|e| e["type"] == "compaction"));
    // The turn after the command is the rest of the line.
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "user_message" && e["text"] == "and now?"),
        "{events:?}"
    );
}

/// The last `tool_call_update` of the (first) call.
fn final_update(seen: &Value) -> Value {
    (*updates(seen, "tool_call_update").last().unwrap()).clone()
}

#[test]
fn an_unsandboxed_command_runs_in_the_clients_terminal_shown_in_its_call() {
    let env = one_script(
        "#terminal",
        vec![
            Step::tool_call(
                "run_terminal_cmd",
                json!({"command": "echo from-the-editor > term.txt && echo printed"}),
            ),
            Step::text("It ran in the editor."),
        ],
    );
    std::fs::write(
        env.home.join("config.toml"),
        "[sandbox]\nmode = \"danger-full-access\"\n",
    )
    .unwrap();
    let seen = scenario(&env, "terminal");
    assert_eq!(seen["stopReason"], "end_turn");
    assert_eq!(
        seen["terminals"],
        json!([{
            "terminalId": "term-1",
            "command": "sh",
            "args": ["-c", "echo from-the-editor > term.txt && echo printed"],
            "cwd": env.repo.display().to_string(),
        }]),
        "{seen}"
    );
    assert_eq!(seen["released"], json!(["term-1"]));
    // The client ran it (its process wrote the file), and its output reached the model.
    assert_eq!(
        std::fs::read_to_string(env.repo.join("term.txt")).unwrap(),
        "from-the-editor\n"
    );
    assert!(sent_messages(&env, 1).contains("printed"));
    // The call shows the terminal while it runs and after.
    let shown: Vec<&Value> = updates(&seen, "tool_call_update")
        .iter()
        .flat_map(|u| u["content"].as_array().into_iter().flatten())
        .filter(|c| c["type"] == "terminal")
        .collect();
    assert_eq!(shown.len(), 2, "{seen}");
    let last = final_update(&seen);
    assert_eq!(last["status"], "completed");
    assert_eq!(
        last["content"][0],
        json!({"type": "terminal", "terminalId": "term-1"})
    );
}

#[test]
fn a_sandboxed_command_stays_in_kigi_even_when_the_client_offers_its_terminal() {
    let env = one_script(
        "#terminal",
        vec![
            Step::tool_call(
                "run_terminal_cmd",
                json!({"command": "echo printed-by-kigi"}),
            ),
            Step::text("It ran in kigi."),
        ],
    );
    // The default sandbox: workspace-write.
    let seen = scenario(&env, "terminal");
    assert_eq!(seen["stopReason"], "end_turn");
    assert_eq!(seen["terminals"], json!([]));
    let last = final_update(&seen);
    assert_eq!(last["status"], "completed");
    assert_eq!(
        last["content"],
        json!([{"type": "content", "content": {"type": "text", "text": "```console\nprinted-by-kigi\n```"}}])
    );
}

#[test]
fn a_subagent_reads_and_writes_through_the_clients_fs_methods() {
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#files-parent",
            vec![
                Step::tool_call(
                    "spawn_subagent",
                    json!({"prompt": "#files-child copy a.txt", "description": "copy a file", "subagent_type": "general-purpose"}),
                ),
                Step::text("The child copied it."),
            ],
        ))
        .with(Script::matching(
            "#files-child",
            vec![
                Step::tool_call("read_file", json!({"path": "a.txt"})),
                Step::tool_call(
                    "write_file",
                    json!({"path": "b.txt", "content": "copied by the child\n"}),
                ),
                Step::text("copied"),
            ],
        ));
    let env = Env::with_scripts(scripts);
    env.write("a.txt", "original\n");
    let seen = scenario(&env, "subagentFiles");
    assert_eq!(seen["stopReason"], "end_turn", "{seen}");
    let a_txt = env.repo.join("a.txt").display().to_string();
    let b_txt = env.repo.join("b.txt");
    assert_eq!(seen["fsReads"], json!([a_txt]));
    assert_eq!(
        seen["fsWrites"],
        json!([{"path": b_txt.display().to_string(), "content": "copied by the child\n"}])
    );
    // The editor recorded the write and did not make it.
    assert!(!b_txt.exists());
}

/// Reads one line of kigi's stdout within a ceiling.
fn next_line(lines: &std::sync::mpsc::Receiver<String>) -> Value {
    let line = lines
        .recv_timeout(Duration::from_secs(30))
        .expect("kigi acp answered within 30 s");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout is not protocol: {line}: {e}"))
}

#[test]
fn a_malformed_message_gets_a_json_rpc_error_and_the_connection_stays_up() {
    let env = Env::new(vec![Step::text("unused")]);
    let mut child = env
        .command(&["acp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |text: &str| writeln!(stdin, "{text}").unwrap();
    send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#);
    assert_eq!(next_line(&lines)["result"]["protocolVersion"], 1);
    send("{this is not json");
    assert_eq!(next_line(&lines)["error"]["code"], -32700);
    send(r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"relative"}}"#);
    let invalid = next_line(&lines);
    assert_eq!(
        (invalid["id"].clone(), invalid["error"]["code"].clone()),
        (json!(2), json!(-32602))
    );
    send(r#"{"jsonrpc":"2.0","id":3,"method":"_kigi/no/such/method","params":{}}"#);
    let unknown = next_line(&lines);
    assert_eq!(
        (unknown["id"].clone(), unknown["error"]["code"].clone()),
        (json!(3), json!(-32601))
    );
    send(r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1}}"#);
    assert_eq!(next_line(&lines)["id"], 4);
    drop(stdin);
    let status = env.runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(30), async {
            tokio::task::spawn_blocking(move || child.wait().unwrap())
                .await
                .unwrap()
        })
        .await
        .expect("kigi acp exits when stdin closes")
    });
    assert!(status.success());
}
