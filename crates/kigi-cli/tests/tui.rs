//! The interactive terminal end to end: the real `kigi` binary in a tmux pane (100 × 30)
//! against the scripted model server, driven with `send-keys` and read with `capture-pane`.
//! Every wait polls the pane with a ceiling; each test has its own tmux server, killed on drop.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use kigi_testkit::{Fault, Script, ScriptSet, Step};
use serde_json::json;
use support::Env;

/// The longest any one screen wait lasts.
const CEILING: Duration = Duration::from_secs(30);

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A tmux server of its own running kigi in one pane; killed on drop.
struct Pane {
    socket: String,
}

impl Pane {
    fn start(env: &Env, args: &[&str]) -> Self {
        Self::start_with(env, &[], args)
    }

    /// [`Pane::start`] with more environment variables (`NAME=value`).
    fn start_with(env: &Env, vars: &[&str], args: &[&str]) -> Self {
        let socket = format!(
            "kigi-tui-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let script = format!(
            "cd '{}' && env HOME='{}' KIGI_HOME='{}' KIGI_BASE_URL='{}' KIGI_MODEL=scripted KIGI_API_KEY= {} '{}' {}; echo KIGI-EXITED-$?; sleep 60",
            env.repo.display(),
            env.home.parent().unwrap().display(),
            env.home.display(),
            env.server().url(),
            vars.iter()
                .map(|v| format!("'{v}'"))
                .collect::<Vec<_>>()
                .join(" "),
            env!("CARGO_BIN_EXE_kigi"),
            quoted.join(" ")
        );
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "100",
                "-y",
                "30",
            ])
            .arg(script)
            .status()
            .expect("these tests need tmux (.ci/run installs it)");
        assert!(status.success());
        Self { socket }
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-S", "-500"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits (at most [`CEILING`]) until the screen satisfies `settled` (`what` says what
    /// was awaited); returns that screen.
    fn wait_until(&self, what: &str, settled: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if settled(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < CEILING,
                "the pane never showed {what}; it shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits (at most [`CEILING`]) until the pane shows `text`; returns the screen.
    fn wait_for(&self, text: &str) -> String {
        self.wait_until(&format!("{text:?}"), |screen| screen.contains(text))
    }

    fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys"])
            .args(keys)
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn type_text(&self, text: &str) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-l", text])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn request_bodies(env: &Env) -> String {
    env.server()
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_prompt_streams_a_markdown_answer_into_the_scrollback() {
    let env = Env::new(vec![Step::text(
        "# Plan\n\n- read the code\n- **fix** it\n\n| file | lines |\n|---|---|\n| main.rs | 12 |\n",
    )]);
    let pane = Pane::start(&env, &["tour please"]);
    let screen = pane.wait_for("main.rs │ 12");
    assert!(screen.contains("› tour please"), "{screen}");
    assert!(screen.contains("# Plan"), "{screen}");
    assert!(screen.contains("• read the code"), "{screen}");
    assert!(screen.contains("scripted · default"), "{screen}");
    pane.keys(&["C-d"]);
    pane.wait_for("KIGI-EXITED-0");
}

#[test]
fn an_edit_asks_is_allowed_and_the_file_changes() {
    let env = Env::new(vec![
        Step::tool_call(
            "search_replace",
            json!({"path": "notes.txt", "old_string": "old line", "new_string": "new line"}),
        ),
        Step::text("edited"),
    ]);
    env.write("notes.txt", "old line\n");
    let pane = Pane::start(&env, &["change the note"]);
    let screen = pane.wait_for("1. Allow once");
    assert!(
        screen.contains("kigi asks to run search_replace"),
        "{screen}"
    );
    assert!(screen.contains("-old line"), "{screen}");
    assert!(screen.contains("+new line"), "{screen}");
    pane.keys(&["1"]);
    pane.wait_for("edited");
    assert_eq!(
        std::fs::read_to_string(env.repo.join("notes.txt")).unwrap(),
        "new line\n"
    );
    let screen = pane.screen();
    assert!(screen.contains("✓ Edit notes.txt"), "{screen}");
}

#[test]
fn a_denied_command_reaches_the_model_as_denied_with_the_reason() {
    let env = Env::new(vec![
        Step::tool_call("run_terminal_cmd", json!({"command": "touch created.txt"})),
        Step::text("understood"),
    ]);
    let pane = Pane::start(&env, &["make a file"]);
    pane.wait_for("touch created.txt");
    pane.wait_for("3. Deny");
    pane.keys(&["3"]);
    pane.wait_for("Why not?");
    pane.type_text("not in this repo");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("understood");
    assert!(screen.contains("denied"), "{screen}");
    assert!(!env.repo.join("created.txt").exists());
    let bodies = request_bodies(&env);
    assert!(bodies.contains("not in this repo"), "{bodies}");
    assert!(bodies.contains("denied"), "{bodies}");
}

#[test]
fn esc_interrupts_a_long_answer() {
    let env = Env::new(vec![
        Step::text("The first half of a very long answer that goes on and on, then hangs forever")
            .after_faults(vec![Fault::Hang]),
        Step::text("fresh answer"),
    ]);
    let pane = Pane::start(&env, &["talk a lot"]);
    pane.wait_for("The first half");
    pane.keys(&["Escape"]);
    pane.wait_for("■ Interrupted");
    // The session goes on: the next prompt is answered.
    pane.type_text("again");
    pane.keys(&["Enter"]);
    pane.wait_for("› again");
}

#[test]
fn a_message_typed_while_the_agent_works_is_queued_then_delivered() {
    let mut first = Step::text("first answer");
    first.latency_ms = 3_000;
    let env = Env::new(vec![first, Step::text("got your note")]);
    let pane = Pane::start(&env, &["start working"]);
    env.wait_for_first_request();
    pane.type_text("also check the tests");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("queued: also check the tests");
    assert!(screen.contains("1 queued"), "{screen}");
    let screen = pane.wait_for("got your note");
    assert!(screen.contains("› also check the tests"), "{screen}");
    assert!(request_bodies(&env).contains("also check the tests"));
}

#[test]
fn resume_reopens_a_session_of_this_folder() {
    let env = Env::new(vec![Step::text("answer one")]);
    let pane = Pane::start(&env, &["hello one"]);
    pane.wait_for("answer one");
    pane.keys(&["C-d"]);
    pane.wait_for("KIGI-EXITED-0");
    drop(pane);
    let pane = Pane::start(&env, &[]);
    pane.wait_for("Ask kigi");
    pane.type_text("/resume");
    pane.keys(&["Enter"]);
    pane.wait_for("hello one");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Resumed session");
    assert!(screen.contains("answer one"), "{screen}");
}

impl Pane {
    /// Pastes `text` as the terminal would (bracketed, since kigi asks for it).
    fn paste(&self, text: &str) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "set-buffer", "-b", "kigi", text])
            .status()
            .unwrap();
        assert!(status.success());
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "paste-buffer", "-p", "-d", "-b", "kigi"])
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn resize(&self, width: u16, height: u16) {
        let status = Command::new("tmux")
            .args([
                "-L",
                &self.socket,
                "resize-window",
                "-x",
                &width.to_string(),
                "-y",
                &height.to_string(),
            ])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

#[test]
fn a_resize_to_forty_columns_reprints_the_conversation_without_broken_rows() {
    let env = Env::new(vec![Step::text(
        "A first paragraph that is long enough to wrap once the terminal gets narrow.\n\n- item one\n- item two\n",
    )]);
    let pane = Pane::start(&env, &["explain"]);
    pane.wait_for("• item two");
    pane.resize(40, 20);
    // Everything, scrollback included, is at most 40 columns, printed once, and no row is a
    // piece of a wider row the terminal re-wrapped. The terminal re-wraps the old screen at
    // once, before kigi redraws: wait for kigi's redraw, not for the first 40-column rule.
    let reprinted = |screen: &str| {
        screen.contains(&format!("{}\n", "─".repeat(40)))
            && screen.matches("› explain").count() == 1
            && screen.contains("• item two")
            && screen.lines().all(|line| {
                let rule = line.trim_end();
                line.chars().count() <= 40
                    && (rule.is_empty()
                        || !rule.chars().all(|c| c == '─')
                        || rule.chars().count() == 40)
            })
    };
    let screen = pane.wait_until("the conversation reprinted at 40 columns", reprinted);
    assert!(reprinted(&screen), "{screen}");
}

#[test]
fn shift_tab_cycles_the_permission_mode_for_the_session_and_ctrl_c_twice_quits() {
    let env = Env::new(vec![
        Step::tool_call(
            "search_replace",
            json!({"path": "notes.txt", "old_string": "old", "new_string": "new"}),
        ),
        Step::text("edited without asking"),
    ]);
    env.write("notes.txt", "old\n");
    let pane = Pane::start(&env, &[]);
    pane.wait_for("scripted · default");
    pane.keys(&["BTab"]);
    pane.wait_for("· acceptEdits ·");
    // The host runs in the new mode: an edit in the workspace no longer asks.
    pane.type_text("edit the note");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("edited without asking");
    assert!(!screen.contains("Allow once"), "{screen}");
    assert_eq!(
        std::fs::read_to_string(env.repo.join("notes.txt")).unwrap(),
        "new\n"
    );
    pane.keys(&["BTab"]);
    pane.wait_for("· plan ·");
    pane.keys(&["C-c"]);
    pane.wait_for("Press Ctrl+C again to quit");
    pane.keys(&["C-c"]);
    pane.wait_for("KIGI-EXITED-0");
}

#[test]
fn a_large_paste_is_folded_in_the_prompt_and_sent_whole() {
    let env = Env::new(vec![Step::text("read your paste")]);
    let pane = Pane::start(&env, &[]);
    pane.wait_for("Ask kigi");
    pane.type_text("look at this: ");
    let pasted: String = (1..=12).map(|i| format!("log line {i}\n")).collect();
    pane.paste(&pasted);
    pane.wait_for("look at this: [pasted 12 lines]");
    pane.keys(&["Enter"]);
    pane.wait_for("read your paste");
    let bodies = request_bodies(&env);
    assert!(bodies.contains("log line 12"), "{bodies}");
}

#[test]
fn at_attaches_the_file_and_model_switches_the_model_for_the_next_turn() {
    let env = Env::new(vec![Step::text("first"), Step::text("second")]);
    env.write("src/parser.rs", "fn parse_marker_4711() {}\n");
    let pane = Pane::start(&env, &[]);
    pane.wait_for("Ask kigi");
    pane.type_text("/model other-model");
    pane.keys(&["Enter"]);
    // The host switched the model (no session reopened): the status line follows it.
    pane.wait_for("Model: other-model from the next turn");
    pane.wait_for("other-model · default");
    pane.type_text("read @pars");
    pane.wait_for("@src/parser.rs");
    pane.keys(&["Tab"]);
    pane.wait_for("› read @src/parser.rs");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("first");
    assert!(
        screen.contains("↳ attached src/parser.rs (1 line)"),
        "{screen}"
    );
    let requests = env.server().requests();
    assert_eq!(requests.len(), 1);
    let last = &requests.last().unwrap().body;
    assert_eq!(last["model"], "other-model");
    // The prompt as typed, and the file's content quoted for the model.
    let body = last.to_string();
    assert!(body.contains("read @src/parser.rs"), "{body}");
    assert!(body.contains("parse_marker_4711"), "{body}");
}

#[test]
fn a_mention_of_no_file_stays_text_and_attaches_nothing() {
    let env = Env::new(vec![Step::text("ok")]);
    let pane = Pane::start(&env, &["ping @someone about it"]);
    let screen = pane.wait_for("ok");
    assert!(!screen.contains("attached"), "{screen}");
    let body = env.server().requests()[0].body.to_string();
    assert!(body.contains("ping @someone about it"), "{body}");
}

#[test]
fn a_background_command_is_counted_in_the_status_line_and_listed_in_the_tasks_pane() {
    let env = Env::new(vec![
        Step::tool_call(
            "run_terminal_cmd",
            json!({"command": "sleep 30", "background": true}),
        ),
        Step::text("it runs"),
    ]);
    let pane = Pane::start(&env, &["start it"]);
    pane.wait_for("1. Allow once");
    pane.keys(&["1"]);
    pane.wait_for("it runs");
    pane.wait_for("1 background command");
    pane.keys(&["C-b"]);
    let screen = pane.wait_for("▾ Background commands  1 running · 1 in all");
    assert!(screen.contains("sleep 30"), "{screen}");
    assert!(screen.contains("No subagents yet"), "{screen}");
}

#[test]
fn a_foreground_childs_block_shows_its_activity_the_panes_list_it_and_enter_opens_its_frame() {
    let mut slow = Step::text("one file: a.txt");
    slow.latency_ms = 8_000;
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#parent",
            vec![
                Step::calls(vec![(
                    "todo_write",
                    json!({"todos": [
                        {"content": "delegate the listing", "status": "in_progress"},
                        {"content": "report back", "status": "pending"},
                    ]}),
                )]),
                Step::calls(vec![(
                    "spawn_subagent",
                    json!({"prompt": "#child list the folder", "description": "list the folder", "subagent_type": "explore"}),
                )]),
                Step::text("The child listed it."),
            ],
        ))
        .with(Script::matching(
            "#child",
            vec![Step::calls(vec![("list_dir", json!({}))]), slow],
        ));
    let env = Env::with_scripts(scripts);
    env.write("a.txt", "a");
    let pane = Pane::start(&env, &["#parent delegate"]);
    pane.wait_for("Subagent running: \"list the folder\" (explore · sub-1) — Thinking");
    // The todo pane shows the list the model wrote.
    pane.keys(&["C-t"]);
    pane.wait_for("◐ delegate the listing");
    pane.wait_for("☐ report back");
    // The tasks pane lists the child with its model.
    pane.keys(&["C-b"]);
    let screen = pane.wait_for("▾ Subagents  1 running");
    assert!(screen.contains("explore · scripted ·"), "{screen}");
    // Enter opens its frame: its own prompt and tool calls.
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Esc/q returns");
    assert!(screen.contains("› #child list the folder"), "{screen}");
    assert!(screen.contains("✓ List"), "{screen}");
    assert!(screen.contains("explore · list the folder"), "{screen}");
    pane.keys(&["Escape"]);
    pane.keys(&["Escape"]);
    let screen = pane.wait_for("Subagent completed: \"list the folder\" (explore · sub-1)");
    assert!(screen.contains("1 tool calls"), "{screen}");
    pane.wait_for("The child listed it.");
}

#[test]
fn k_in_the_tasks_pane_kills_a_background_child_and_its_block_says_cancelled() {
    let mut hang = Step::text("never sent");
    hang.latency_ms = 120_000;
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#parent",
            vec![
                Step::calls(vec![(
                    "spawn_subagent",
                    json!({"prompt": "#bg watch the logs", "description": "watch the logs", "background": true}),
                )]),
                Step::text("started it"),
            ],
        ))
        .with(Script::matching("#bg", vec![hang]));
    let env = Env::with_scripts(scripts);
    let pane = Pane::start(&env, &["#parent start a watcher"]);
    pane.wait_for("Subagent started: \"watch the logs\"");
    pane.wait_for("started it");
    pane.keys(&["C-b"]);
    pane.wait_for("▾ Subagents  1 running");
    pane.keys(&["k"]);
    pane.wait_for("Kill sub-1? y kills it");
    pane.keys(&["y"]);
    let screen = pane.wait_for("Subagent cancelled in");
    assert!(screen.contains("\"watch the logs\" ("), "{screen}");
}

/// The description of `spawn_subagent` the model was offered in request `n`.
fn spawn_description(env: &Env, n: usize) -> String {
    let requests = env.server().requests();
    requests[n].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "spawn_subagent")
        .map(|t| t["function"]["description"].as_str().unwrap().to_owned())
        .unwrap_or_else(|| panic!("no spawn_subagent in request {n}"))
}

/// The selected row of the agents modal last drawn on `screen` (the row after `›`).
impl Pane {
    /// kigi started with `$EDITOR` a script that applies `sed_expression` to the file it is
    /// given, at its prompt.
    fn with_editor(env: &Env, sed_expression: &str) -> Self {
        let editor = env.write(
            "../editor.sh",
            &format!("#!/bin/sh\nsed -i '{sed_expression}' \"$1\"\n"),
        );
        let status = Command::new("chmod")
            .arg("+x")
            .arg(&editor)
            .status()
            .unwrap();
        assert!(status.success());
        let pane = Self::start_with(env, &[&format!("EDITOR={}", editor.display())], &[]);
        pane.wait_for("Ask kigi");
        pane
    }

    /// `n` in the open modal, `name` at its `prompt`, until the editor has run and the new
    /// definition is listed as created.
    fn create_in_modal(&self, prompt: &str, name: &str) {
        self.keys(&["n"]);
        self.wait_for(prompt);
        self.type_text(name);
        self.keys(&["Enter"]);
        self.wait_for("created");
    }
}

fn agents_pointer(screen: &str) -> Option<String> {
    let modal = &screen[screen.rfind("Manage Agents")?..];
    modal
        .lines()
        .find_map(|line| line.strip_prefix("› "))
        .map(|row| row.trim_end().to_owned())
}

impl Pane {
    /// Presses Down in the agents modal until the row of `name` is selected, each press
    /// awaited (the pointer moved) before the next is decided on, so it never overshoots.
    fn select_agent(&self, name: &str) {
        let mut row =
            agents_pointer(&self.wait_until("the agents modal", |s| agents_pointer(s).is_some()))
                .unwrap();
        for _ in 0..20 {
            if row.split_whitespace().next() == Some(name) {
                return;
            }
            self.keys(&["Down"]);
            let moved = self.wait_until(&format!("the pointer moving down from {row:?}"), |s| {
                agents_pointer(s).is_some_and(|now| now != row)
            });
            row = agents_pointer(&moved).unwrap();
        }
        panic!("no row of {name} in the agents modal");
    }
}

#[test]
fn switching_a_type_off_in_the_agents_modal_stops_the_model_being_offered_it() {
    let env = Env::new(vec![Step::text("one"), Step::text("two")]);
    let config = env.home.join("config.toml");
    std::fs::write(&config, "# my settings, kept\n").unwrap();
    let pane = Pane::start(&env, &["first"]);
    pane.wait_for("one");
    assert!(spawn_description(&env, 0).contains("- explore:"));
    pane.type_text("/agents");
    pane.keys(&["Enter"]);
    pane.wait_for("Manage Agents");
    pane.select_agent("explore");
    pane.keys(&["Space"]);
    pane.wait_for("explore off from the next turn");
    pane.keys(&["Escape"]);
    pane.type_text("second");
    pane.keys(&["Enter"]);
    pane.wait_for("two");
    let offered = spawn_description(&env, 1);
    assert!(!offered.contains("- explore:"), "{offered}");
    assert!(offered.contains("- plan:"), "{offered}");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "# my settings, kept\n\n[subagents.toggle]\nexplore = false\n"
    );
}

#[test]
fn a_type_switched_off_stays_off_in_a_new_session() {
    let env = Env::with_scripts(ScriptSet::single(vec![Step::text("answer-one")]).with(
        Script::matching("second-session", vec![Step::text("answer-two")]),
    ));
    let pane = Pane::start(&env, &["first"]);
    pane.wait_for("answer-one");
    assert!(spawn_description(&env, 0).contains("- explore:"));
    pane.type_text("/agents");
    pane.keys(&["Enter"]);
    pane.wait_for("Manage Agents");
    pane.select_agent("explore");
    pane.keys(&["Space"]);
    pane.wait_for("explore off from the next turn");
    pane.keys(&["Escape"]);
    pane.type_text("/new");
    pane.keys(&["Enter"]);
    pane.wait_for("New session");
    pane.type_text("second-session");
    pane.keys(&["Enter"]);
    pane.wait_for("answer-two");
    let offered = spawn_description(&env, 1);
    assert!(!offered.contains("- explore:"), "{offered}");
    assert!(offered.contains("- plan:"), "{offered}");
    // The modal of the new session says the same.
    pane.type_text("/agents");
    pane.keys(&["Enter"]);
    pane.wait_for("Manage Agents");
    pane.select_agent("explore");
    let row = agents_pointer(&pane.screen()).unwrap();
    assert!(row.contains(" off "), "{row}");
}

#[test]
fn an_agent_created_in_the_modal_opens_in_the_editor_is_offered_then_deleted() {
    let env = Env::new(vec![Step::text("one")]);
    let pane = Pane::with_editor(
        &env,
        "s/^description: .*/description: Checks the marker 4242./",
    );
    pane.type_text("/agents");
    pane.keys(&["Enter"]);
    pane.wait_for("Manage Agents");
    // The editor runs on the starter; the list is read again with its edit.
    pane.create_in_modal("New agent's name:", "checker");
    let screen = pane.wait_for("Checks the marker 4242.");
    assert!(screen.contains("› checker "), "{screen}");
    let file = env.repo.join(".kigi/agents/checker.md");
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("name: checker")
    );
    pane.keys(&["Escape"]);
    pane.type_text("hello");
    pane.keys(&["Enter"]);
    pane.wait_for("one");
    assert!(spawn_description(&env, 0).contains("- checker: Checks the marker 4242."));
    // Deleted after a yes.
    pane.type_text("/agents");
    pane.keys(&["Enter"]);
    pane.wait_for("Manage Agents");
    pane.select_agent("checker");
    pane.keys(&["d"]);
    pane.wait_for("y deletes it");
    pane.keys(&["y"]);
    pane.wait_for("deleted");
    assert!(!file.exists());
}

#[test]
fn a_finished_child_of_an_earlier_run_opens_from_its_transcript_after_continue() {
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#parent",
            vec![
                Step::calls(vec![(
                    "spawn_subagent",
                    json!({"prompt": "#child list the folder", "description": "list the folder", "subagent_type": "explore"}),
                )]),
                Step::text("The child listed it."),
            ],
        ))
        .with(Script::matching(
            "#child",
            vec![
                Step::calls(vec![("list_dir", json!({}))]),
                Step::text("one file: a.txt"),
            ],
        ));
    let env = Env::with_scripts(scripts);
    env.write("a.txt", "a");
    let pane = Pane::start(&env, &["#parent delegate"]);
    pane.wait_for("The child listed it.");
    pane.keys(&["C-d"]);
    pane.wait_for("KIGI-EXITED-0");
    drop(pane);
    // A new kigi, a new terminal: all it knows of the child is on disk.
    let pane = Pane::start(&env, &["--continue"]);
    let screen = pane.wait_for("1 subagent ran in it before: Ctrl+B lists it");
    assert!(
        screen.contains("Subagent completed: \"list the folder\" (explore · sub-1)"),
        "{screen}"
    );
    pane.keys(&["C-b"]);
    pane.wait_for("▾ Subagents  0 running · 1 in all");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Esc/q returns");
    for shown in [
        "✓ explore · list the folder  from disk",
        "› #child list the folder",
        "✓ List",
        "one file: a.txt",
        "completed",
    ] {
        assert!(screen.contains(shown), "no {shown:?} in:\n{screen}");
    }
    pane.keys(&["q"]);
    pane.wait_until("the frame closed", |s| !s.contains("Esc/q returns"));
    // No model request was made: nothing was sent, the child was read, not run.
    assert_eq!(env.server().requests().len(), 4);
}

#[test]
fn a_persona_made_in_the_modal_is_listed_switched_off_for_the_next_run_and_deleted() {
    let scripts = ScriptSet::default().with(Script::matching(
        "#spawner",
        vec![
            Step::calls(vec![(
                "spawn_subagent",
                json!({"prompt": "#never be brief", "description": "brief", "subagent_type": "explore", "persona": "concise"}),
            )]),
            Step::text("noted the refusal"),
        ],
    ));
    let env = Env::with_scripts(scripts);
    let pane = Pane::with_editor(
        &env,
        "s/^description = .*/description = \"Answers tersely 4242.\"/",
    );
    pane.type_text("/personas");
    pane.keys(&["Enter"]);
    pane.wait_for("[Personas]");
    // A new persona: the starter in $KIGI_HOME/personas/, opened in the editor.
    pane.create_in_modal("New persona's name:", "terse");
    let screen = pane.wait_for("Answers tersely 4242.");
    assert!(screen.contains("› terse "), "{screen}");
    let file = env.home.join("personas/terse.toml");
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("instructions = ")
    );
    // A bundled persona is switched off (written to config.toml) but never edited. (Tab
    // there and back puts the pointer on the first row.)
    let modal_shows = |tab: &'static str, first: &'static str| {
        move |s: &str| {
            s.rfind("Manage Agents")
                .is_some_and(|at| s[at..].contains(tab))
                && agents_pointer(s).is_some_and(|row| row.starts_with(first))
        }
    };
    pane.keys(&["Tab"]);
    pane.wait_until("the Agents tab", modal_shows("[Agents]", "kigi "));
    pane.keys(&["Tab"]);
    pane.wait_until("concise first", modal_shows("[Personas]", "concise "));
    pane.keys(&["Space"]);
    pane.wait_for("persona concise off from the next spawn");
    assert_eq!(
        std::fs::read_to_string(env.home.join("config.toml")).unwrap(),
        "[subagents.persona_toggle]\nconcise = false\n"
    );
    pane.keys(&["e"]);
    pane.wait_for("concise is bundled with kigi: read-only");
    // The user's persona is deleted after a yes.
    pane.select_agent("terse");
    pane.keys(&["d"]);
    pane.wait_for("y deletes it");
    pane.keys(&["y"]);
    pane.wait_for("deleted");
    assert!(!file.exists());
    pane.keys(&["Escape"]);
    pane.keys(&["C-d"]);
    pane.wait_for("KIGI-EXITED-0");
    drop(pane);
    // The next kigi reads the switch: a spawn that names the persona is refused.
    let pane = Pane::start(&env, &["#spawner go"]);
    pane.wait_for("noted the refusal");
    let bodies = request_bodies(&env);
    assert!(
        bodies.contains("persona `concise` is switched off"),
        "{bodies}"
    );
    // No child was started: both requests are the parent's.
    let scripts: Vec<Option<String>> = env
        .server()
        .requests()
        .iter()
        .map(|r| r.script.clone())
        .collect();
    assert_eq!(
        scripts,
        [Some("#spawner".to_owned()), Some("#spawner".to_owned())]
    );
}

#[test]
fn a_swarm_member_its_provider_throttles_is_counted_rate_limited_in_the_swarms_block() {
    let throttled = Step::text("never sent").after_faults(vec![Fault::Status {
        status: 429,
        retry_after_ms: None,
        code: None,
        message: Some("slow down".into()),
    }]);
    let scripts = ScriptSet::default()
        .with(Script::matching(
            "#lead",
            vec![
                Step::calls(vec![(
                    "agent_swarm",
                    json!({"description": "sweep", "prompt_template": "#member {{item}}", "items": ["fine", "slow"], "subagent_type": "explore"}),
                )]),
                Step::text("the sweep is over"),
            ],
        ))
        .with(Script::matching("#member fine", vec![Step::text("all good")]))
        .with(Script::matching("#member slow", vec![throttled]));
    let env = Env::with_scripts(scripts);
    // No retries: the first 429 ends the member, and the swarm does not run it again.
    std::fs::write(
        env.home.join("config.toml"),
        "[retry]\nmax_rate_limit_retries = 0\n[swarm]\nrate_limit_retries = 0\n",
    )
    .unwrap();
    let pane = Pane::start(&env, &["#lead sweep it"]);
    let screen = pane.wait_for("the sweep is over");
    assert!(
        screen.contains("Swarm \"sweep\": 2/2 done · 1 rate-limited — in"),
        "{screen}"
    );
    pane.keys(&["C-b"]);
    pane.wait_for("▸ Swarm \"sweep\": 2/2 done · 1 rate-limited");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("sweep #2");
    assert!(screen.contains("rate-limited"), "{screen}");
}
