//! Executors nobody here wrote: OpenAI's Codex (`codex exec --json`) and Anthropic's Claude
//! Code (`claude -p --output-format stream-json`), the real CLIs from the npm registry pinned
//! by tests/peers/package-lock.json (`npm ci --prefix crates/kigi-cli/tests/peers`; `.ci/run`
//! does it), each pointed through its own configuration at the same scripted model server
//! the parent kigi talks to. A child on each answers, and the tool call the engine made lands
//! in the child's transcript as the engine's own (marked external: it gained no kigi
//! permission).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::PathBuf;

use kigi_testkit::{Script, ScriptSet, Step};
use serde_json::{Value, json};
use support::{Env, result_of, stderr, tool_results};

/// A peer's command from the pinned install; missing means `npm ci` was not run.
fn peer(bin: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers/node_modules/.bin")
        .join(bin);
    assert!(
        path.exists(),
        "{} is missing: run `npm ci --prefix crates/kigi-cli/tests/peers` (.ci/run does)",
        path.display()
    );
    path
}

/// A parent that spawns one child on `executor` with `prompt`, then answers "parent done".
fn parent(executor: &str, prompt: &str) -> Script {
    Script::matching(
        "#parent",
        vec![
            Step::calls(vec![(
                "spawn_subagent",
                json!({"prompt": prompt, "description": "on a peer", "executor": executor}),
            )]),
            Step::text("parent done"),
        ],
    )
}

/// The child's recorded tool call and its result.
fn call_and_result(events: &[Value]) -> (&Value, &Value) {
    let call = events
        .iter()
        .find(|e| e["type"] == "tool_call")
        .unwrap_or_else(|| panic!("no tool call in {events:#?}"));
    let result = events
        .iter()
        .find(|e| e["type"] == "tool_result" && e["call_id"] == call["call_id"])
        .unwrap_or_else(|| panic!("no result for the call in {events:#?}"));
    (call, result)
}

#[test]
fn a_child_on_codex_exec_answers_and_its_command_is_in_the_childs_transcript() {
    let codex = peer("codex");
    let scripts = ScriptSet::default()
        .with(parent("codex", "#codex list the folder"))
        // Codex sends its environment as the first user message and the prompt after it,
        // so its conversation is the one without a marker the server routes by.
        .with(Script {
            name: "codex".into(),
            marker: None,
            steps: vec![
                Step::calls(vec![("exec_command", json!({"cmd": "ls"}))]),
                Step::text("codex says: one file"),
            ],
        });
    let env = Env::with_scripts(scripts);
    env.write("only-file.txt", "x");
    // Codex's own configuration: the scripted server as a Responses API provider.
    let codex_home = env.home.parent().unwrap().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"scripted\"\nmodel_provider = \"scripted\"\n\
             [model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{}\"\n\
             wire_api = \"responses\"\nenv_key = \"SCRIPTED_KEY\"\n",
            env.server().url()
        ),
    )
    .unwrap();
    std::fs::write(
        env.home.join("config.toml"),
        format!(
            "[agent_executors.codex]\nkind = \"command\"\ncommand = {:?}\n\
             args = [\"exec\", \"--json\", \"--skip-git-repo-check\", \"{{prompt}}\"]\n\
             env = {{ CODEX_HOME = {:?}, SCRIPTED_KEY = \"x\" }}\n\
             output_format = \"codex-jsonl\"\ntimeout_secs = 120\n",
            codex.display().to_string(),
            codex_home.display().to_string()
        ),
    )
    .unwrap();
    let out = env.kigi(&["-p", "#parent go", "--output-format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(result_of(&out)["result"], "parent done");
    let answer = tool_results(&env).join("\n");
    assert!(answer.contains("codex says: one file"), "{answer}");

    let id = result_of(&out)["session_id"].as_str().unwrap().to_owned();
    let child = env.agent_events(&id, "sub-1");
    assert_eq!(child[0]["model"], "executor:codex");
    let (call, result) = call_and_result(&child);
    assert_eq!(call["name"], "command_execution", "{call}");
    assert!(call["raw_input"].as_str().unwrap().contains("ls"), "{call}");
    assert_eq!(
        call["_meta"]["kigi/tool"]["namespace"], "external",
        "{call}"
    );
    assert!(
        result["output"].as_str().unwrap().contains("only-file.txt"),
        "codex ran `ls` in the child's folder: {result}"
    );
    assert!(
        child
            .iter()
            .any(|e| e["type"] == "assistant_message" && e["text"] == "codex says: one file"),
        "{child:#?}"
    );
    // The parent's two requests and Codex's two went to the one server.
    let paths: Vec<String> = env
        .server()
        .requests()
        .iter()
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(
        paths.iter().filter(|p| p.ends_with("/responses")).count(),
        2,
        "{paths:?}"
    );
}

#[test]
fn a_child_on_claude_code_answers_and_its_read_is_in_the_childs_transcript() {
    let claude = peer("claude");
    let env = Env::with_scripts(ScriptSet::default());
    let file = env.write("notes.txt", "the secret word is kumquat");
    let scripts = ScriptSet::default()
        .with(parent("claude", "#claude read the notes"))
        .with(Script::matching(
            "#claude",
            vec![
                Step::calls(vec![(
                    "Read",
                    json!({"file_path": file.display().to_string()}),
                )]),
                Step::text("claude says: kumquat"),
            ],
        ));
    let env = Env {
        server: Some(
            env.runtime
                .block_on(kigi_testkit::ScriptedServer::start(scripts))
                .unwrap(),
        ),
        ..env
    };
    // Claude Code's own configuration: its environment, the scripted server as Anthropic.
    std::fs::write(
        env.home.join("config.toml"),
        format!(
            "[agent_executors.claude]\nkind = \"command\"\ncommand = {:?}\n\
             args = [\"-p\", \"{{prompt}}\", \"--output-format\", \"stream-json\", \"--verbose\", \"--model\", \"scripted\"]\n\
             env = {{ ANTHROPIC_BASE_URL = {:?}, ANTHROPIC_API_KEY = \"x\", \
             CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = \"1\", DISABLE_AUTOUPDATER = \"1\" }}\n\
             output_format = \"claude-stream-json\"\ntimeout_secs = 120\n",
            claude.display().to_string(),
            env.server().url().trim_end_matches('/').trim_end_matches("/v1"),
        ),
    )
    .unwrap();
    let out = env.kigi(&["-p", "#parent go", "--output-format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let answer = tool_results(&env).join("\n");
    assert!(answer.contains("claude says: kumquat"), "{answer}");

    let id = result_of(&out)["session_id"].as_str().unwrap().to_owned();
    let child = env.agent_events(&id, "sub-1");
    assert_eq!(child[0]["model"], "executor:claude");
    let (call, result) = call_and_result(&child);
    assert_eq!(call["name"], "Read", "{call}");
    assert_eq!(
        call["_meta"]["kigi/tool"]["namespace"], "external",
        "{call}"
    );
    assert!(
        result["output"].as_str().unwrap().contains("kumquat"),
        "Claude Code read the file itself: {result}"
    );
    // The parent's two requests and Claude Code's (two at least) went to the one server.
    let paths: Vec<String> = env
        .server()
        .requests()
        .iter()
        .map(|r| r.path.clone())
        .collect();
    assert!(
        paths.iter().filter(|p| p.ends_with("/messages")).count() >= 2,
        "{paths:?}"
    );
}
