//! The built-in tools on real files, real `git`-less folders and real child processes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use kigi_tools::{BashLimits, ToolContext, ToolError, ToolOutput, ToolRegistry};
use serde_json::{Value, json};

struct Workspace {
    _tmp: tempfile::TempDir,
    context: ToolContext,
}

impl Workspace {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let context = ToolContext::new(tmp.path());
        Self { _tmp: tmp, context }
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.context.cwd.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.context.cwd.join(rel)).unwrap()
    }

    async fn call(&self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let registry = ToolRegistry::built_in();
        registry
            .get(tool)
            .unwrap()
            .execute(args, &self.context)
            .await
    }

    async fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args).await.unwrap();
        assert!(!out.is_error, "{tool} failed: {}", out.content);
        out.content
    }

    async fn failed(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args).await.unwrap();
        assert!(out.is_error, "{tool} should have failed: {}", out.content);
        out.content
    }
}

#[tokio::test]
async fn read_file_numbers_lines_and_reads_ranges() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\ntwo\nthree\nfour\n");
    assert_eq!(
        ws.ok("read_file", json!({"path": "a.txt"})).await,
        "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n"
    );
    assert_eq!(
        ws.ok(
            "read_file",
            json!({"path": "a.txt", "offset": 2, "limit": 2})
        )
        .await,
        "     2\ttwo\n     3\tthree\n(lines 2-3 of 4; use offset to read on)\n"
    );
    assert!(
        ws.failed("read_file", json!({"path": "a.txt", "offset": 9}))
            .await
            .contains("has 4 lines")
    );
}

#[tokio::test]
async fn read_file_refuses_binary_and_names_missing_files() {
    let ws = Workspace::new();
    std::fs::write(ws.context.cwd.join("b.bin"), [0u8, 1, 2, 3]).unwrap();
    assert!(
        ws.failed("read_file", json!({"path": "b.bin"}))
            .await
            .contains("binary file")
    );
    let missing = ws.failed("read_file", json!({"path": "nope.txt"})).await;
    assert!(missing.starts_with("cannot read nope.txt"), "{missing}");
}

#[tokio::test]
async fn arguments_that_fail_the_schema_are_refused_with_the_reason() {
    let ws = Workspace::new();
    let err = ws
        .call("read_file", json!({"file": "a"}))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("invalid arguments for read_file: unknown field `file`"),
        "{err}"
    );
    let err = ws.call("grep", json!({"pattern": "("})).await.unwrap_err();
    assert!(err.to_string().contains("pattern:"), "{err}");
}

#[tokio::test]
async fn search_replace_needs_exactly_one_match_unless_replace_all() {
    let ws = Workspace::new();
    ws.write("s.rs", "let a = 1;\nlet b = 1;\n");
    let ambiguous = ws
        .failed(
            "search_replace",
            json!({"path": "s.rs", "old_string": "= 1", "new_string": "= 2"}),
        )
        .await;
    assert!(ambiguous.contains("occurs 2 times in s.rs"), "{ambiguous}");
    let missing = ws
        .failed(
            "search_replace",
            json!({"path": "s.rs", "old_string": "let c", "new_string": "x"}),
        )
        .await;
    assert!(missing.contains("not found in s.rs"), "{missing}");
    assert_eq!(ws.read("s.rs"), "let a = 1;\nlet b = 1;\n");
    ws.ok(
        "search_replace",
        json!({"path": "s.rs", "old_string": "let a = 1", "new_string": "let a = 10"}),
    )
    .await;
    assert_eq!(ws.read("s.rs"), "let a = 10;\nlet b = 1;\n");
    let all = ws.ok("search_replace", json!({"path": "s.rs", "old_string": "let", "new_string": "const", "replace_all": true})).await;
    assert_eq!(all, "replaced 2 occurrences in s.rs");
    assert_eq!(ws.read("s.rs"), "const a = 10;\nconst b = 1;\n");
}

#[tokio::test]
async fn write_file_creates_folders_and_says_what_it_did() {
    let ws = Workspace::new();
    assert_eq!(
        ws.ok(
            "write_file",
            json!({"path": "new/dir/f.txt", "content": "hi"})
        )
        .await,
        "created new/dir/f.txt (2 bytes)"
    );
    assert_eq!(
        ws.ok(
            "write_file",
            json!({"path": "new/dir/f.txt", "content": "bye!"})
        )
        .await,
        "overwrote new/dir/f.txt (4 bytes)"
    );
    assert_eq!(ws.read("new/dir/f.txt"), "bye!");
}

#[tokio::test]
async fn grep_honours_gitignore_and_caps_results() {
    let ws = Workspace::new();
    ws.write(".gitignore", "target/\n");
    ws.write("src/lib.rs", "fn alpha() {}\nfn beta() {}\n");
    ws.write("target/out.rs", "fn alpha() {}\n");
    ws.write("notes.md", "alpha\n");
    assert_eq!(
        ws.ok("grep", json!({"pattern": "fn \\w+", "glob": "*.rs"}))
            .await,
        "src/lib.rs:1:fn alpha() {}\nsrc/lib.rs:2:fn beta() {}"
    );
    let capped = ws
        .ok("grep", json!({"pattern": "alpha|beta", "max_results": 2}))
        .await;
    assert_eq!(capped.lines().count(), 3, "{capped}");
    assert!(capped.ends_with("(stopped at 2 matches; narrow the pattern or path)"));
    assert_eq!(
        ws.ok("grep", json!({"pattern": "zeta"})).await,
        "no matches"
    );
}

#[tokio::test]
async fn glob_matches_names_at_any_depth_or_paths() {
    let ws = Workspace::new();
    ws.write("a.rs", "");
    ws.write("src/b.rs", "");
    ws.write("src/c.txt", "");
    assert_eq!(
        ws.ok("glob", json!({"pattern": "*.rs"})).await,
        "a.rs\nsrc/b.rs"
    );
    assert_eq!(
        ws.ok("glob", json!({"pattern": "src/*"})).await,
        "src/b.rs\nsrc/c.txt"
    );
}

#[tokio::test]
async fn list_dir_puts_folders_first() {
    let ws = Workspace::new();
    ws.write("z.txt", "");
    ws.write("a/x.txt", "");
    assert_eq!(ws.ok("list_dir", json!({})).await, "a/\nz.txt");
}

#[tokio::test]
async fn commands_report_exit_codes_and_apply_the_prefix() {
    let mut ws = Workspace::new();
    assert_eq!(
        ws.ok(
            "run_terminal_cmd",
            json!({"command": "echo hi; echo err >&2"})
        )
        .await,
        "hi\nerr\n"
    );
    assert!(
        ws.failed("run_terminal_cmd", json!({"command": "exit 3"}))
            .await
            .starts_with("exit code 3")
    );
    ws.context.bash.prefix = Some("echo prefixed".into());
    assert_eq!(
        ws.ok("run_terminal_cmd", json!({"command": "&& echo after"}))
            .await,
        "prefixed\nafter\n"
    );
}

#[tokio::test]
async fn a_command_past_its_timeout_is_killed_with_its_children() {
    let mut ws = Workspace::new();
    ws.context.bash = BashLimits {
        timeout: Duration::from_millis(300),
        ..BashLimits::default()
    };
    let started = std::time::Instant::now();
    let out = ws
        .failed(
            "run_terminal_cmd",
            json!({"command": "echo started; sleep 30 & sleep 30"}),
        )
        .await;
    assert!(out.starts_with("timed out after 0.3s"), "{out}");
    assert!(out.contains("started"));
    // Not a timing assertion on speed: a ceiling proving the kill happened (30 s otherwise).
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[tokio::test]
async fn output_past_the_limit_keeps_head_and_tail() {
    let mut ws = Workspace::new();
    ws.context.bash.output_limit = 100;
    let out = ws
        .ok("run_terminal_cmd", json!({"command": "seq 1 1000"}))
        .await;
    assert!(out.starts_with("1\n2\n"), "{out}");
    assert!(out.ends_with("999\n1000\n"), "{out}");
    assert!(out.contains("bytes of output dropped (limit 100)"), "{out}");
}

#[tokio::test]
async fn background_tasks_can_be_read_and_killed() {
    let ws = Workspace::new();
    let started = ws
        .ok(
            "run_terminal_cmd",
            json!({"command": "echo one; sleep 0.2; echo two", "background": true}),
        )
        .await;
    assert!(
        started.starts_with("started background task task-1"),
        "{started}"
    );
    let done = ws
        .ok(
            "get_task_output",
            json!({"task_id": "task-1", "wait_secs": 30}),
        )
        .await;
    assert_eq!(
        done,
        "task-1 `echo one; sleep 0.2; echo two`: exited with code 0\none\ntwo\n"
    );
    ws.ok(
        "run_terminal_cmd",
        json!({"command": "sleep 60", "background": true}),
    )
    .await;
    let running = ws.ok("get_task_output", json!({"task_id": "task-2"})).await;
    assert!(running.contains(": running"), "{running}");
    let killed = ws.ok("kill_task", json!({"task_id": "task-2"})).await;
    assert!(killed.contains(": killed"), "{killed}");
    let unknown = ws.failed("kill_task", json!({"task_id": "task-9"})).await;
    assert_eq!(
        unknown,
        "no task `task-9`; tasks in this session: task-1, task-2"
    );
}

#[tokio::test]
async fn todo_write_replaces_the_list() {
    let ws = Workspace::new();
    let out = ws.ok("todo_write", json!({"todos": [{"content": "read", "status": "completed"}, {"content": "edit", "status": "in_progress"}]})).await;
    assert_eq!(out, "[x] read\n[~] edit");
    assert_eq!(ws.context.todos.lock().unwrap().len(), 2);
}

#[test]
fn tool_schemas_are_stable() {
    let registry = ToolRegistry::built_in();
    let schemas: serde_json::Map<String, Value> = registry
        .names()
        .map(|name| (name.to_owned(), registry.get(name).unwrap().parameters()))
        .collect();
    insta::assert_json_snapshot!("tool_schemas", schemas);
}

#[tokio::test]
async fn with_a_write_root_file_tools_cannot_write_outside_it() {
    let mut ws = Workspace::new();
    std::fs::create_dir_all(ws.context.cwd.join("wt")).unwrap();
    ws.context.write_root = Some(ws.context.cwd.join("wt"));
    ws.write("wt/a.txt", "a");
    ws.write("outside.txt", "keep");
    ws.ok("write_file", json!({"path": "wt/b.txt", "content": "b"}))
        .await;
    for (tool, args) in [
        ("write_file", json!({"path": "outside.txt", "content": "x"})),
        (
            "write_file",
            json!({"path": "wt/../sneaky.txt", "content": "x"}),
        ),
        (
            "search_replace",
            json!({"path": "outside.txt", "old_string": "keep", "new_string": "lost"}),
        ),
    ] {
        let refused = ws.failed(tool, args).await;
        assert!(
            refused.contains("is outside this agent's worktree"),
            "{refused}"
        );
    }
    assert_eq!(ws.read("outside.txt"), "keep");
    assert!(!ws.context.cwd.join("sneaky.txt").exists());
}

/// A shell line that starts a sleeper in the background, writing its pid to `pid`.
const LEAVE_A_SLEEPER: &str =
    "sh -c 'echo $$ > pid; exec sleep 60' & while [ ! -s pid ]; do sleep 0.01; done; echo started";

#[tokio::test]
async fn a_foreground_command_leaves_nothing_running_when_it_ends() {
    let ws = Workspace::new();
    let out = ws
        .call("run_terminal_cmd", json!({"command": LEAVE_A_SLEEPER}))
        .await
        .unwrap();
    assert!(out.content.contains("started"), "{}", out.content);
    assert!(
        !kigi_testkit::process_probe::still_running(&ws.read("pid")),
        "the sleeper outlived the call"
    );
}

#[test]
fn a_background_task_dies_with_the_runtime_that_ran_it() {
    let ws = Workspace::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let out = ws
            .call(
                "run_terminal_cmd",
                // A grandchild: killing only the task's own `sh` would leave it running.
                json!({"command": "sh -c 'echo $$ > pid; exec sleep 60'; true", "background": true}),
            )
            .await
            .unwrap();
        assert!(out.content.contains("task-1"), "{}", out.content);
        let path = ws.context.cwd.join("pid");
        let ceiling = std::time::Instant::now() + Duration::from_secs(10);
        while std::fs::read_to_string(&path).map_or(true, |p| p.trim().is_empty()) {
            assert!(std::time::Instant::now() < ceiling, "the task never started");
            tokio::task::yield_now().await;
        }
    });
    // The process exits without anyone cancelling the task: the runtime drops its future.
    drop(runtime);
    assert!(
        !kigi_testkit::process_probe::still_running(&ws.read("pid")),
        "the background task outlived kigi"
    );
}

#[tokio::test]
async fn files_that_are_not_regular_are_refused_without_blocking() {
    let ws = Workspace::new();
    let fifo = ws.context.cwd.join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::os::unix::fs::symlink("/dev/zero", ws.context.cwd.join("zeros")).unwrap();
    for (tool, args) in [
        ("read_file", json!({"path": "pipe"})),
        ("read_file", json!({"path": "zeros"})),
        (
            "search_replace",
            json!({"path": "pipe", "old_string": "a", "new_string": "b"}),
        ),
    ] {
        // A regression would block forever: the ceiling turns that into a failure.
        let out = tokio::time::timeout(Duration::from_secs(10), ws.call(tool, args.clone()))
            .await
            .unwrap_or_else(|_| panic!("{tool} {args} blocked"))
            .unwrap();
        assert!(out.is_error, "{tool} {args}: {}", out.content);
        assert!(
            out.content.contains("not a regular file"),
            "{tool} {args}: {}",
            out.content
        );
    }
}

#[tokio::test]
async fn a_confined_writer_cannot_leave_its_root_by_dot_dot_or_symlink() {
    let mut ws = Workspace::new();
    let root = ws.context.cwd.clone();
    ws.context.write_root = Some(root.clone());
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x");
    // `..` through a folder that does not exist yet (write_file would create it).
    let sneaky = format!(
        "nx/{}{}",
        "../".repeat(root.components().count() + 2),
        target.display().to_string().trim_start_matches('/')
    );
    // A symlink planted in the root, pointing out of it (a shell command could plant one).
    std::os::unix::fs::symlink(outside.path(), root.join("door")).unwrap();
    for path in [sneaky.as_str(), "door/x"] {
        let out = ws
            .call("write_file", json!({"path": path, "content": "pwned"}))
            .await
            .unwrap();
        assert!(out.is_error, "{path}: {}", out.content);
        assert!(
            out.content.contains("outside this agent's worktree"),
            "{}",
            out.content
        );
    }
    assert!(!target.exists(), "a write escaped its root");
    // Inside the root, writing works as before.
    let ok = ws
        .call(
            "write_file",
            json!({"path": "inside/y.txt", "content": "fine"}),
        )
        .await
        .unwrap();
    assert!(!ok.is_error, "{}", ok.content);
}

#[tokio::test]
async fn secrets_are_not_read_directly_through_a_symlink_or_by_grep() {
    let mut ws = Workspace::new();
    let home = tempfile::tempdir().unwrap();
    let home_path = home.path().canonicalize().unwrap();
    std::fs::create_dir_all(home_path.join(".ssh")).unwrap();
    std::fs::write(home_path.join(".ssh/id_test"), "PRIVATE KEY").unwrap();
    ws.context.secrets = kigi_tools::secret_paths::SecretPaths {
        home: Some(home_path.clone()),
        kigi_home: None,
    };
    ws.write(".env", "TOKEN=PRIVATE KEY\n");
    ws.write("notes.txt", "nothing secret\n");
    std::os::unix::fs::symlink(home_path.join(".ssh"), ws.context.cwd.join("keys")).unwrap();
    let key = home_path.join(".ssh/id_test").display().to_string();
    for (tool, args) in [
        ("read_file", json!({"path": ".env"})),
        ("read_file", json!({"path": key})),
        ("read_file", json!({"path": "keys/id_test"})),
        ("grep", json!({"pattern": "PRIVATE", "path": "keys"})),
        (
            "search_replace",
            json!({"path": ".env", "old_string": "TOKEN", "new_string": "T"}),
        ),
    ] {
        let out = ws.call(tool, args.clone()).await.unwrap();
        assert!(out.is_error, "{tool} {args}: {}", out.content);
        assert!(
            !out.content.contains("PRIVATE"),
            "{tool} {args}: {}",
            out.content
        );
        assert!(out.content.contains("does not read it"), "{}", out.content);
    }
    // A search of the workspace passes over the .env file and reads the rest.
    let found = ws
        .call("grep", json!({"pattern": "PRIVATE|secret"}))
        .await
        .unwrap();
    assert!(found.content.contains("notes.txt"), "{}", found.content);
    assert!(!found.content.contains("PRIVATE"), "{}", found.content);
    assert_eq!(ws.read(".env"), "TOKEN=PRIVATE KEY\n");
}
