//! MCP servers in real sessions: the real `kigi` binary, the scripted model, and the reference
//! server `@modelcontextprotocol/server-everything` (from the lockfile `.ci/run` installs).
//! The model calls the server's tools by their `mcp__` names and reads their results; a
//! project's `.mcp.json` never starts its command in a folder not trusted; a server that
//! crashes or never answers leaves the session working; a read-only child gets no destructive
//! MCP tool.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};

use kigi_testkit::{Script, ScriptSet, Step};
use serde_json::{Value, json};
use support::{Env, result_of, stderr, tool_results};

fn everything() -> PathBuf {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kigi-mcp/tests/npm/node_modules/.bin/mcp-server-everything");
    assert!(
        bin.exists(),
        "{} is missing: run `npm ci --prefix crates/kigi-mcp/tests/npm`",
        bin.display()
    );
    bin
}

fn config(env: &Env, text: &str) {
    std::fs::write(env.home.join("config.toml"), text).unwrap();
}

fn everything_config() -> String {
    format!(
        "[mcp_servers.everything]\ncommand = \"{}\"\nargs = [\"stdio\"]\n",
        everything().display()
    )
}

fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_model_calls_an_mcp_servers_tools_and_reads_their_results() {
    let env = Env::new(vec![
        Step::calls(vec![
            (
                "mcp__everything__echo",
                json!({"message": "hello from kigi"}),
            ),
            ("mcp__everything__get-sum", json!({"a": 2, "b": 40})),
        ]),
        Step::text("done"),
    ]);
    config(&env, &everything_config());
    let out = env.kigi(&[
        "-p",
        "use the server",
        "--output-format",
        "json",
        "--allowedTools",
        "mcp__everything__*",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first = &env.server().requests()[0].body;
    let tools = offered(first);
    assert!(
        tools.iter().any(|t| t == "mcp__everything__echo"),
        "{tools:?}"
    );
    let results = tool_results(&env);
    assert!(results[0].contains("Echo: hello from kigi"), "{results:?}");
    assert!(results[1].contains("42"), "{results:?}");
    // The transcript's envelope names the MCP namespace.
    let id = result_of(&out)["session_id"].as_str().unwrap().to_owned();
    let call = env
        .session_events(&id)
        .into_iter()
        .find(|e| e["type"] == "tool_call")
        .unwrap();
    assert_eq!(call["_meta"]["kigi/tool"]["namespace"], "mcp", "{call}");
    assert_eq!(call["_meta"]["kigi/tool"]["server"], "everything", "{call}");
}

#[test]
fn an_untrusted_projects_mcp_json_never_starts_until_trusted() {
    let steps = || vec![Step::text("ok")];
    let project_json = |marker: &Path| {
        format!(
            r#"{{"mcpServers": {{"planted": {{"command": "sh", "args": ["-c", "touch {}"]}}}}}}"#,
            marker.display()
        )
    };
    let env = Env::new(steps());
    let marker = env.repo.join("mcp-ran");
    env.write(".mcp.json", &project_json(&marker));
    let out = env.kigi(&["-p", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !marker.exists(),
        "an untrusted project's MCP server started"
    );
    assert!(stderr(&out).contains("not trusted"), "{}", stderr(&out));

    // Trusted, the same entry starts (it is no MCP server, so it then fails, and the session
    // goes on): the test above can fail.
    let env = Env::new(steps());
    let marker = env.repo.join("mcp-ran");
    env.write(".mcp.json", &project_json(&marker));
    assert!(env.kigi(&["trust"]).status.success());
    let out = env.kigi(&["-p", "hi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(marker.exists());
}

#[test]
fn a_crashing_server_and_one_that_never_answers_leave_the_session_working() {
    let env = Env::new(vec![
        Step::calls(vec![(
            "mcp__everything__echo",
            json!({"message": "still here"}),
        )]),
        Step::text("done"),
    ]);
    config(
        &env,
        &format!(
            "{}[mcp_servers.crashes]\ncommand = \"sh\"\nargs = [\"-c\", \"echo boom >&2; exit 3\"]\n\
             [mcp_servers.silent]\ncommand = \"sh\"\nargs = [\"-c\", \"exec sleep 600\"]\nstartup_timeout_ms = 300\n",
            everything_config()
        ),
    );
    let out = env.kigi(&[
        "-p",
        "go",
        "--output-format",
        "json",
        "--allowedTools",
        "mcp__everything",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(tool_results(&env)[0].contains("Echo: still here"));
    let said = stderr(&out);
    assert!(
        said.contains("crashes") && said.contains("silent"),
        "{said}"
    );
}

#[test]
fn a_read_only_child_gets_the_read_only_tools_and_never_a_destructive_one() {
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#parent",
            vec![
                Step::calls(vec![(
                    "spawn_subagent",
                    json!({"prompt": "#child look", "description": "look", "capability_mode": "read-only"}),
                )]),
                Step::text("parent done"),
            ],
        ))
        .with(Script::matching(
            "#child",
            vec![
                Step::calls(vec![(
                    "mcp__everything__gzip-file-as-resource",
                    json!({"name": "x.gz", "data": "https://example.invalid/x"}),
                )]),
                Step::text("child done"),
            ],
        ));
    let env = Env::with_scripts(scripts);
    config(&env, &everything_config());
    let out = env.kigi(&["-p", "#parent go", "--permission-mode", "bypassPermissions"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let child: Vec<Value> = env
        .server()
        .requests()
        .into_iter()
        .filter(|r| r.script.as_deref() == Some("#child"))
        .map(|r| r.body)
        .collect();
    let tools = offered(&child[0]);
    assert!(
        tools.iter().any(|t| t == "mcp__everything__echo"),
        "{tools:?}"
    );
    assert!(
        !tools
            .iter()
            .any(|t| t == "mcp__everything__gzip-file-as-resource"),
        "{tools:?}"
    );
    let results: Vec<String> = child[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(results[0].starts_with("unknown tool"), "{results:?}");
}

#[test]
fn an_mcp_resource_is_listed_and_read_through_the_resource_tools() {
    let env = Env::new(vec![
        Step::calls(vec![(
            "list_mcp_resources",
            json!({"server": "everything"}),
        )]),
        Step::text("listed"),
    ]);
    config(&env, &everything_config());
    let out = env.kigi(&["-p", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = tool_results(&env)[0].clone();
    let uri = listing
        .split_whitespace()
        .find(|w| w.starts_with("demo://resource/static/document/"))
        .unwrap_or_else(|| panic!("a static document in {listing}"))
        .to_owned();
    let env = Env::new(vec![
        Step::calls(vec![(
            "read_mcp_resource",
            json!({"server": "everything", "uri": uri}),
        )]),
        Step::text("read"),
    ]);
    config(&env, &everything_config());
    let out = env.kigi(&["-p", "read"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let read = &tool_results(&env)[0];
    assert!(
        !read.is_empty() && !read.contains("no ready MCP server"),
        "{read}"
    );
}

#[test]
fn mcp_add_list_get_and_remove_manage_and_connect_the_users_servers() {
    let env = Env::new(vec![Step::text("unused")]);
    std::fs::write(
        env.home.join("config.toml"),
        "# mine\ndefault_model = \"scripted\"\n",
    )
    .unwrap();
    let bin = everything().display().to_string();
    let kigi = |args: &[&str]| {
        let out = env.kigi(args);
        assert!(out.status.success(), "kigi {args:?}: {}", stderr(&out));
        out
    };
    kigi(&["mcp", "add", "everything", "--", &bin, "stdio"]);
    let config = std::fs::read_to_string(env.home.join("config.toml")).unwrap();
    assert!(
        config.starts_with("# mine\n") && config.contains("[mcp_servers.everything]"),
        "{config}"
    );
    let listed: Value = serde_json::from_slice(&kigi(&["mcp", "list", "--json"]).stdout).unwrap();
    assert_eq!(listed["servers"][0]["name"], "everything", "{listed}");
    assert_eq!(listed["servers"][0]["source"], "user");
    assert!(
        listed["servers"][0]["tools"].as_u64().unwrap() > 3,
        "{listed}"
    );
    let got: Value =
        serde_json::from_slice(&kigi(&["mcp", "get", "everything", "--json"]).stdout).unwrap();
    let echo = got["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__everything__echo")
        .unwrap();
    assert_eq!(echo["read_only"], true, "{echo}");
    assert!(!got["resources"].as_array().unwrap().is_empty(), "{got}");
    // A project's server needs trust before it is started.
    kigi(&[
        "mcp", "add", "proj", "--scope", "project", "--", "sh", "-c", "exit 1",
    ]);
    let listed: Value = serde_json::from_slice(&kigi(&["mcp", "list", "--json"]).stdout).unwrap();
    let proj = listed["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "proj")
        .unwrap();
    assert!(
        proj["status"].as_str().unwrap().contains("needs trust"),
        "{proj}"
    );
    kigi(&["mcp", "remove", "everything"]);
    let config = std::fs::read_to_string(env.home.join("config.toml")).unwrap();
    assert_eq!(
        config.trim_end(),
        "# mine\ndefault_model = \"scripted\"",
        "{config}"
    );
    assert!(!env.kigi(&["mcp", "remove", "everything"]).status.success());
}

/// server-everything over streamable HTTP on a free port, killed when dropped.
struct HttpEverything {
    child: std::process::Child,
    url: String,
}

impl HttpEverything {
    fn start() -> Self {
        use std::io::BufRead;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let mut child = std::process::Command::new(everything())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        // Ready is the server's own line, waited for with a ceiling.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if line.contains("listening on port") {
                    let _ = tx.send(());
                }
            }
        });
        rx.recv_timeout(std::time::Duration::from_secs(20))
            .expect("server-everything did not report listening within 20 s");
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_server_over_streamable_http_serves_the_model_too() {
    let server = HttpEverything::start();
    let env = Env::new(vec![
        Step::calls(vec![("mcp__web__get-sum", json!({"a": 20, "b": 22}))]),
        Step::text("done"),
    ]);
    config(
        &env,
        &format!("[mcp_servers.web]\nurl = \"{}\"\n", server.url),
    );
    let out = env.kigi(&["-p", "add them", "--allowedTools", "mcp__web__get-sum"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        tool_results(&env)[0].contains("42"),
        "{:?}",
        tool_results(&env)
    );
}

#[test]
fn a_servers_read_only_hint_does_not_skip_the_ask() {
    let env = Env::new(vec![
        Step::calls(vec![("mcp__everything__echo", json!({"message": "x"}))]),
        Step::text("done"),
    ]);
    config(&env, &everything_config());
    let out = env.kigi(&["-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_results(&env);
    assert!(results[0].contains("was not run"), "{results:?}");
}

#[test]
fn a_tools_image_reaches_a_model_that_reads_images_and_only_a_note_reaches_others() {
    for reads_images in [true, false] {
        let env = Env::new(vec![
            Step::calls(vec![("mcp__everything__get-tiny-image", json!({}))]),
            Step::text("seen"),
        ]);
        config(
            &env,
            &format!(
                "{}[models.scripted]\nimages = {reads_images}\n",
                everything_config()
            ),
        );
        let out = env.kigi(&["-p", "look", "--allowedTools", "mcp__everything__*"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let sent = env.server().requests()[1].body["messages"].to_string();
        assert!(
            sent.contains("[image: image/png"),
            "the note is always there: {sent}"
        );
        assert_eq!(
            sent.contains("data:image/png;base64,"),
            reads_images,
            "images = {reads_images}: {sent}"
        );
    }
}

#[test]
fn a_childs_own_inline_servers_start_with_it_and_only_it_gets_their_tools() {
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#parent",
            vec![
                Step::calls(vec![(
                    "spawn_subagent",
                    json!({"prompt": "#child echo", "description": "echo", "subagent_type": "echoer"}),
                )]),
                Step::text("parent done"),
            ],
        ))
        .with(Script::matching(
            "#child",
            vec![
                Step::calls(vec![("mcp__own__echo", json!({"message": "from the child"}))]),
                Step::text("child done"),
            ],
        ));
    let env = Env::with_scripts(scripts);
    let agents = env.home.join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("echoer.md"),
        format!(
            "---\nname: echoer\ndescription: echoes\nmcpServers:\n  own:\n    command: {}\n    args: [stdio]\n---\nEcho.\n",
            everything().display()
        ),
    )
    .unwrap();
    let out = env.kigi(&["-p", "#parent go", "--permission-mode", "bypassPermissions"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = env.server().requests();
    let parent_tools = offered(&requests[0].body);
    assert!(
        !parent_tools.iter().any(|t| t.starts_with("mcp__own__")),
        "{parent_tools:?}"
    );
    let child: Vec<Value> = requests
        .into_iter()
        .filter(|r| r.script.as_deref() == Some("#child"))
        .map(|r| r.body)
        .collect();
    assert!(offered(&child[0]).iter().any(|t| t == "mcp__own__echo"));
    assert!(
        child[1]["messages"]
            .to_string()
            .contains("Echo: from the child")
    );
}
