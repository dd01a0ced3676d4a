//! The agent tree's views as `TestBackend` snapshots: lifecycle blocks of children (running,
//! completed, failed, cancelled; foreground and background), a swarm's one block, the tasks
//! pane (with a kill waiting for its yes), the todo pane, a child's framed view, the agents
//! modal and the command palette.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kigi_agent::PermissionMode;
use kigi_protocol::{
    BackgroundCommandStatus, CanonicalToolMeta, HostEvent, HostEventBody, HostNotice, SessionEvent,
    ToolCallMeta, ToolKind, ToolNamespace, ToolStatus,
};
use kigi_tui::agent_catalog::{AgentCatalog, CatalogEntry};
use kigi_tui::agents_modal::AgentsTab;
use kigi_tui::app::{Action, App};
use kigi_tui::input_history::InputHistory;
use kigi_tui::theme::{Theme, ThemeName};
use kigi_tui::view::render_live;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use serde_json::json;

struct Tree {
    app: App,
    base: Instant,
}

impl Tree {
    fn new() -> Self {
        let mut app = App::new(
            Theme::new(ThemeName::Night, true),
            InputHistory::default(),
            PermissionMode::Default,
            "/work/demo".into(),
        );
        let base = Instant::now();
        app.now = base;
        let mut tree = Self { app, base };
        tree.main(
            0,
            SessionEvent::SessionStart {
                session_id: "s-1".into(),
                agent: "kigi".into(),
                model: "scripted".into(),
                cwd: "/work/demo".into(),
                kigi_version: "0".into(),
            },
        );
        tree
    }

    fn at(&self, secs: u64) -> Instant {
        self.base + Duration::from_secs(secs)
    }

    fn main(&mut self, secs: u64, event: SessionEvent) {
        let now = self.at(secs);
        self.app
            .on_host_event_at(&HostEvent::main(HostEventBody::Session(event)), now);
    }

    fn child(&mut self, secs: u64, id: &str, body: HostEventBody) {
        let now = self.at(secs);
        self.app.on_host_event_at(
            &HostEvent {
                agent_id: id.into(),
                parent_id: Some("main".into()),
                body,
            },
            now,
        );
    }

    fn start(&mut self, secs: u64, id: &str, description: &str, background: bool) {
        self.child(
            secs,
            id,
            HostEventBody::Notice(HostNotice::SubagentStarted {
                description: description.into(),
                agent_type: "explore".into(),
                persona: (id == "sub-2").then(|| "Implementer".into()),
                model: "scripted".into(),
                model_source: "parent".into(),
                background,
                worktree: None,
                resumed: false,
            }),
        );
    }

    fn activity(&mut self, id: &str, label: &str) {
        self.child(
            0,
            id,
            HostEventBody::Notice(HostNotice::SubagentActivity {
                label: label.into(),
            }),
        );
    }

    fn usage(&mut self, id: &str, tokens: u64) {
        self.child(
            0,
            id,
            HostEventBody::Session(SessionEvent::Usage {
                input_tokens: tokens,
                output_tokens: 0,
                cached_input_tokens: 0,
                context_window: None,
            }),
        );
    }

    fn finish(&mut self, id: &str, status: &str, elapsed_ms: u64, error: Option<&str>) {
        self.child(
            0,
            id,
            HostEventBody::Notice(HostNotice::SubagentFinished {
                status: serde_json::from_value(serde_json::Value::from(status)).unwrap(),
                error: error.map(Into::into),
                input_tokens: 0,
                output_tokens: 0,
                tool_calls: 3,
                steps: 2,
                elapsed_ms,
            }),
        );
    }

    fn key(&mut self, code: KeyCode) -> Vec<Action> {
        self.app.on_key(KeyEvent::from(code))
    }

    fn ctrl(&mut self, ch: char) -> Vec<Action> {
        self.app
            .on_key(KeyEvent::new(KeyCode::Char(ch), KeyModifiers::CONTROL))
    }
}

fn call(id: &str, name: &str, kind: ToolKind, input: serde_json::Value) -> SessionEvent {
    SessionEvent::ToolCall {
        call_id: id.into(),
        name: name.into(),
        raw_input: input.to_string(),
        meta: Some(ToolCallMeta {
            tool: CanonicalToolMeta {
                version: 1,
                name: name.into(),
                kind,
                namespace: ToolNamespace::Kigi,
                label: name.into(),
                read_only: false,
                input: Some(input),
                server: None,
            },
        }),
    }
}

fn result(id: &str, name: &str, status: ToolStatus, output: &str) -> SessionEvent {
    SessionEvent::ToolResult {
        call_id: id.into(),
        name: name.into(),
        status,
        output: output.into(),
    }
}

fn live(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            let area = frame.area();
            render_live(app, area, frame.buffer_mut());
        })
        .unwrap();
    format!("{}", terminal.backend())
}

fn history(app: &App, width: u16) -> String {
    let lines: Vec<Line<'static>> = app
        .transcript
        .cells
        .iter()
        .filter(|c| !matches!(c, kigi_tui::transcript::HistoryCell::Tool(_)))
        .flat_map(|cell| cell.lines(width as usize, &app.theme))
        .collect();
    let mut terminal = Terminal::new(TestBackend::new(width, lines.len().max(1) as u16)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(Paragraph::new(lines), frame.area()))
        .unwrap();
    format!("{}", terminal.backend())
}

/// A parent that started a foreground child (running a command) and a background one.
fn two_children() -> Tree {
    let mut tree = Tree::new();
    tree.app.busy = true;
    tree.main(0, SessionEvent::UserMessage { text: "go".into() });
    tree.start(1, "sub-1", "run the tests", false);
    tree.activity("sub-1", "Running: cargo test");
    tree.usage("sub-1", 1_200);
    tree.start(2, "sub-2", "watch the logs", true);
    tree.activity("sub-2", "Waiting for approval");
    tree.app.now = tree.at(14);
    tree
}

#[test]
fn running_children_show_their_lifecycle_blocks_with_live_activity() {
    let tree = two_children();
    insta::assert_snapshot!(live(&tree.app, 90, 6));
}

#[test]
fn ended_children_leave_blocks_in_their_final_state() {
    let mut tree = two_children();
    tree.finish("sub-1", "completed", 4_200, None);
    tree.finish("sub-2", "cancelled", 12_000, None);
    tree.start(3, "sub-3", "lint", true);
    tree.finish("sub-3", "failed", 800, Some("model.rate_limited: 429"));
    tree.start(4, "sub-4", "format", false);
    tree.finish("sub-4", "timed_out", 60_000, None);
    assert_eq!(tree.app.transcript.running_children(), 0);
    insta::assert_snapshot!(history(&tree.app, 100));
}

#[test]
fn a_swarm_is_one_block_with_counts_running_then_finished() {
    let mut tree = Tree::new();
    tree.main(
        0,
        call(
            "w1",
            "agent_swarm",
            ToolKind::Task,
            json!({"description": "review", "prompt_template": "review {{item}}", "items": ["a", "b", "c", "d"]}),
        ),
    );
    for n in 1..=3 {
        tree.start(n, &format!("sub-{n}"), &format!("review #{n}"), false);
    }
    tree.finish("sub-1", "completed", 2_000, None);
    tree.finish("sub-2", "failed", 2_000, Some("boom"));
    let running = live(&tree.app, 80, 4);
    assert!(running.contains("Swarm \"review\": 2/4 done · 1 failed · 1 running"));
    // Members are counted in the swarm's block, not printed one by one.
    assert!(tree.app.transcript.cells.is_empty());
    tree.start(4, "sub-4", "review #4", false);
    tree.finish("sub-3", "completed", 2_000, None);
    tree.finish("sub-4", "cancelled", 2_000, None);
    tree.main(
        9,
        result("w1", "agent_swarm", ToolStatus::Completed, "report"),
    );
    insta::assert_snapshot!(format!("{running}\n{}", history(&tree.app, 80)));
}

#[test]
fn a_swarm_block_counts_rate_limited_members_apart_and_a_member_run_again_once() {
    let mut tree = Tree::new();
    tree.main(
        0,
        call(
            "w1",
            "agent_swarm",
            ToolKind::Task,
            json!({"description": "sweep", "prompt_template": "check {{item}}", "items": ["a", "b", "c", "d", "e"]}),
        ),
    );
    for n in 1..=3 {
        tree.start(n, &format!("sub-{n}"), &format!("sweep #{n}"), false);
    }
    tree.finish("sub-1", "completed", 2_000, None);
    // How the host reports a member its provider throttled (the child's error leads with
    // the stable code).
    let limited = "model.rate_limited: 429 Too Many Requests";
    tree.finish("sub-2", "failed", 1_000, Some(limited));
    let first = live(&tree.app, 80, 4);
    // The engine runs member #2 again: while that run goes on, it is not done.
    tree.start(4, "sub-4", "sweep #2", false);
    let retried = live(&tree.app, 80, 4);
    tree.finish("sub-4", "failed", 1_000, Some(limited));
    tree.finish("sub-3", "failed", 3_000, Some("model.unavailable: 503"));
    tree.start(5, "sub-5", "sweep #4", false);
    tree.finish("sub-5", "completed", 1_000, None);
    tree.start(6, "sub-6", "sweep #5", false);
    tree.finish("sub-6", "cancelled", 1_000, None);
    tree.app.now = tree.at(8);
    tree.ctrl('b');
    tree.key(KeyCode::Enter);
    let pane = live(&tree.app, 90, 12);
    tree.key(KeyCode::Esc);
    tree.main(
        9,
        result("w1", "agent_swarm", ToolStatus::Completed, "report"),
    );
    let swarm = &tree.app.transcript.swarms[0];
    assert_eq!(
        (swarm.done(), swarm.members.len()),
        (5, 6),
        "five members, six runs"
    );
    // A rate limit colours the finished block as a failure.
    assert!(matches!(
        tree.app.transcript.cells.last(),
        Some(kigi_tui::transcript::HistoryCell::Lifecycle(block))
            if block.mark == kigi_tui::lifecycle_view::LifecycleMark::Failed
    ));
    insta::assert_snapshot!(format!(
        "{first}\n{retried}\n{pane}\n{}",
        history(&tree.app, 80)
    ));
}

#[test]
fn a_swarm_whose_only_trouble_was_a_rate_limit_still_ends_in_the_failure_colour() {
    let mut tree = Tree::new();
    tree.main(
        0,
        call(
            "w1",
            "agent_swarm",
            ToolKind::Task,
            json!({"description": "pair", "prompt_template": "{{item}}", "items": ["a", "b"]}),
        ),
    );
    tree.start(1, "sub-1", "pair #1", false);
    tree.start(1, "sub-2", "pair #2", false);
    tree.finish("sub-1", "completed", 1_000, None);
    tree.finish("sub-2", "failed", 1_000, Some("model.rate_limited: 429"));
    tree.main(3, result("w1", "agent_swarm", ToolStatus::Completed, "r"));
    let Some(kigi_tui::transcript::HistoryCell::Lifecycle(block)) =
        tree.app.transcript.cells.last()
    else {
        panic!("no swarm block: {:?}", tree.app.transcript.cells);
    };
    assert_eq!(block.text, "Swarm \"pair\": 2/2 done · 1 rate-limited");
    assert_eq!(block.mark, kigi_tui::lifecycle_view::LifecycleMark::Failed);
}

#[test]
fn the_tasks_pane_lists_children_selects_and_asks_before_a_kill() {
    let mut tree = two_children();
    tree.finish("sub-1", "completed", 4_200, None);
    assert!(tree.ctrl('b').is_empty());
    tree.key(KeyCode::Down);
    assert!(tree.key(KeyCode::Char('k')).is_empty());
    insta::assert_snapshot!(live(&tree.app, 100, 10));
    assert_eq!(
        tree.key(KeyCode::Char('y')),
        [Action::KillSubagent("sub-2".into())]
    );
    // A finished child is not offered a kill.
    tree.key(KeyCode::Up);
    tree.key(KeyCode::Char('k'));
    assert_eq!(tree.app.tasks.as_ref().unwrap().confirm_kill, None);
    // Enter on the group folds it; Esc closes the pane.
    tree.key(KeyCode::Up);
    tree.key(KeyCode::Enter);
    assert!(tree.app.tasks.as_ref().unwrap().collapsed);
    tree.key(KeyCode::Esc);
    assert!(tree.app.tasks.is_none());
}

#[test]
fn the_todo_pane_shows_the_list_the_last_completed_todo_write_set() {
    let mut tree = Tree::new();
    let todos = |state: &str| {
        json!({"todos": [
            {"content": "read the parser", "status": "completed"},
            {"content": "fix the off-by-one", "status": state},
            {"content": "run the tests", "status": "pending"},
        ]})
    };
    tree.main(
        0,
        call("t1", "todo_write", ToolKind::Plan, todos("in_progress")),
    );
    tree.main(0, result("t1", "todo_write", ToolStatus::Completed, "ok"));
    // A refused call leaves the list as it was.
    tree.main(
        0,
        call("t2", "todo_write", ToolKind::Plan, todos("completed")),
    );
    tree.main(0, result("t2", "todo_write", ToolStatus::Refused, "no"));
    tree.ctrl('t');
    insta::assert_snapshot!(live(&tree.app, 60, 8));
}

#[test]
fn the_framed_view_shows_the_childs_own_conversation_live() {
    let mut tree = two_children();
    let child_event = |tree: &mut Tree, event: SessionEvent| {
        tree.child(3, "sub-1", HostEventBody::Session(event));
    };
    child_event(
        &mut tree,
        SessionEvent::UserMessage {
            text: "run the tests and report failures".into(),
        },
    );
    child_event(
        &mut tree,
        call(
            "k1",
            "read_file",
            ToolKind::Read,
            json!({"path": "Cargo.toml"}),
        ),
    );
    child_event(
        &mut tree,
        result("k1", "read_file", ToolStatus::Completed, "[package]\n"),
    );
    child_event(
        &mut tree,
        call(
            "k2",
            "run_terminal_cmd",
            ToolKind::Execute,
            json!({"command": "cargo test"}),
        ),
    );
    // Enter on an empty prompt opens the running foreground child.
    tree.key(KeyCode::Enter);
    assert_eq!(tree.app.framed.as_ref().unwrap().child_id, "sub-1");
    let running = live(&tree.app, 70, 14);
    child_event(
        &mut tree,
        result("k2", "run_terminal_cmd", ToolStatus::Failed, "1 failed"),
    );
    tree.finish("sub-1", "failed", 5_000, Some("tests fail"));
    let failed = live(&tree.app, 70, 14);
    insta::assert_snapshot!(format!("{running}\n{failed}"));
    tree.key(KeyCode::Right);
    assert_eq!(tree.app.framed.as_ref().unwrap().child_id, "sub-2");
    tree.key(KeyCode::Char('q'));
    assert!(tree.app.framed.is_none());
}

fn catalog() -> AgentCatalog {
    let entry = |name: &str, scope: &str, source: &str, note: &str| CatalogEntry {
        name: name.into(),
        scope: scope.into(),
        source: source.into(),
        description: format!("{name}: what it is for"),
        note: note.into(),
        detail: format!(
            "name:            {name}\nscope:           {scope} ({source})\nmodel:           inherit\n\nYou are {name}."
        ),
        // Shadowed rows and personas are not switched; built-ins have no file to change.
        enabled: (note.is_empty() && name != "Implementer").then_some(true),
        file: source.starts_with('/').then(|| source.into()),
    };
    AgentCatalog {
        agents: vec![
            entry("reviewer", "project", "/repo/.kigi/agents/reviewer.md", ""),
            entry("explore", "built-in", "built-in", ""),
            entry(
                "explore",
                "user",
                "/home/u/.kigi/agents/explore.md",
                "shadowed by built-in",
            ),
        ],
        personas: vec![entry("Implementer", "built-in", "built-in", "")],
        diagnostics: vec![],
    }
}

#[test]
fn the_agents_modal_lists_agents_and_personas_and_shows_a_definition() {
    let mut tree = Tree::new();
    tree.app.open_agents(catalog(), AgentsTab::Agents);
    let list = live(&tree.app, 80, 12);
    tree.key(KeyCode::Enter);
    let detail = live(&tree.app, 80, 9);
    tree.key(KeyCode::Esc);
    tree.key(KeyCode::Tab);
    let personas = live(&tree.app, 80, 6);
    insta::assert_snapshot!(format!("{list}\n{detail}\n{personas}"));
    tree.key(KeyCode::Esc);
    assert!(tree.app.agents.is_none());
}

#[test]
fn the_palette_lists_every_command_and_manage_agents_opens_the_modal() {
    let mut tree = Tree::new();
    tree.ctrl('p');
    let all = live(&tree.app, 70, 12);
    for ch in "agents".chars() {
        tree.key(KeyCode::Char(ch));
    }
    let filtered = live(&tree.app, 70, 7);
    insta::assert_snapshot!(format!("{all}\n{filtered}"));
    assert_eq!(
        tree.key(KeyCode::Enter),
        [Action::OpenAgents(AgentsTab::Agents)]
    );
    assert!(tree.app.palette.is_none());
}

#[test]
fn config_agents_and_personas_are_commands_that_open_the_modal() {
    let mut tree = Tree::new();
    for (line, tab) in [
        ("/config-agents", AgentsTab::Agents),
        ("/agents", AgentsTab::Agents),
        ("/personas", AgentsTab::Personas),
    ] {
        tree.app.composer.set_text(line);
        assert_eq!(
            tree.key(KeyCode::Enter),
            [Action::OpenAgents(tab)],
            "{line}"
        );
    }
}

#[test]
fn background_commands_show_in_the_status_line_and_after_the_subagents_in_the_tasks_pane() {
    let mut tree = two_children();
    let notice = |tree: &mut Tree, secs: u64, agent: &str, notice: HostNotice| {
        tree.child(secs, agent, HostEventBody::Notice(notice));
    };
    let started = |task: &str, command: &str| HostNotice::BackgroundCommandStarted {
        task_id: task.into(),
        command: command.into(),
    };
    let finished = |task: &str, status: BackgroundCommandStatus, exit_code: Option<i32>| {
        HostNotice::BackgroundCommandFinished {
            task_id: task.into(),
            status,
            exit_code,
        }
    };
    notice(&mut tree, 3, "main", started("task-1", "npm run dev"));
    notice(
        &mut tree,
        4,
        "sub-2",
        started("task-2", "cargo build --release"),
    );
    notice(
        &mut tree,
        9,
        "sub-2",
        finished("task-2", BackgroundCommandStatus::Exited, Some(101)),
    );
    notice(&mut tree, 5, "main", started("task-3", "tail -f app.log"));
    notice(
        &mut tree,
        8,
        "main",
        finished("task-3", BackgroundCommandStatus::Killed, None),
    );
    let status = live(&tree.app, 100, 3);
    tree.ctrl('b');
    let pane = live(&tree.app, 100, 12);
    // The commands group folds like the subagents group.
    tree.key(KeyCode::Down);
    tree.key(KeyCode::Down);
    tree.key(KeyCode::Enter);
    assert!(tree.app.tasks.as_ref().unwrap().commands_collapsed);
    insta::assert_snapshot!(format!("{status}\n{pane}"));
}

#[test]
fn a_child_moved_to_the_background_says_so_and_a_resumed_child_wears_a_badge() {
    let mut tree = two_children();
    tree.child(
        5,
        "sub-1",
        HostEventBody::Notice(HostNotice::SubagentMovedToBackground {}),
    );
    tree.child(
        6,
        "sub-3",
        HostEventBody::Notice(HostNotice::SubagentStarted {
            description: "finish the review".into(),
            agent_type: "reviewer".into(),
            persona: None,
            model: "scripted".into(),
            model_source: "parent".into(),
            background: false,
            worktree: None,
            resumed: true,
        }),
    );
    let blocks = live(&tree.app, 90, 8);
    tree.app.framed = Some(kigi_tui::framed_view::Framed::new("sub-3"));
    let frame = live(&tree.app, 80, 8);
    insta::assert_snapshot!(format!("{}\n{blocks}\n{frame}", history(&tree.app, 90)));
}

#[test]
fn from_a_childs_frame_a_message_goes_to_it_through_the_host_and_nothing_else() {
    let mut tree = two_children();
    tree.app.framed = Some(kigi_tui::framed_view::Framed::new("sub-1"));
    // Keys that would act on the parent do nothing to the child.
    assert!(tree.key(KeyCode::Char('k')).is_empty());
    assert!(tree.key(KeyCode::Char('m')).is_empty());
    for ch in "also run clippy".chars() {
        assert!(tree.key(KeyCode::Char(ch)).is_empty());
    }
    let writing = live(&tree.app, 70, 9);
    insta::assert_snapshot!(writing);
    assert_eq!(
        tree.key(KeyCode::Enter),
        [Action::Command(
            kigi_protocol::HostCommand::SendToSubagent {
                id: "sub-1".into(),
                text: "also run clippy".into(),
            }
        )]
    );
    // The frame stays open; Esc drops a message not sent, then q closes the frame.
    tree.key(KeyCode::Char('m'));
    tree.key(KeyCode::Char('x'));
    assert!(tree.key(KeyCode::Esc).is_empty());
    assert!(tree.app.framed.is_some());
    tree.key(KeyCode::Char('q'));
    assert!(tree.app.framed.is_none());
}

#[test]
fn the_agents_modal_switches_types_creates_edits_and_deletes_but_never_a_built_in() {
    let mut tree = Tree::new();
    tree.app.open_agents(catalog(), AgentsTab::Agents);
    // Space on the project agent asks the loop to switch it off; its row changes only once
    // the host took it (the loop then persists it).
    assert_eq!(
        tree.key(KeyCode::Char(' ')),
        [Action::ToggleSubagent {
            agent_type: "reviewer".into(),
            enabled: false,
        }]
    );
    let modal = tree.app.agents.as_ref().unwrap();
    assert_eq!(modal.catalog.agents[0].enabled, Some(true));
    assert!(tree.app.type_toggles.is_empty());
    tree.app.subagent_switched("reviewer", false);
    let off = live(&tree.app, 80, 10);
    // A built-in is switched like any type, but not edited or deleted.
    tree.key(KeyCode::Down);
    assert!(tree.key(KeyCode::Char('e')).is_empty());
    assert!(tree.key(KeyCode::Char('d')).is_empty());
    let read_only = live(&tree.app, 80, 10);
    // A file is deleted only after a yes.
    tree.key(KeyCode::Down);
    assert!(tree.key(KeyCode::Char('d')).is_empty());
    let confirm = live(&tree.app, 80, 10);
    assert_eq!(
        tree.key(KeyCode::Char('y')),
        [Action::DeleteDefinition(
            "/home/u/.kigi/agents/explore.md".into()
        )]
    );
    assert_eq!(
        tree.key(KeyCode::Char('e')),
        [Action::EditDefinition(
            "/home/u/.kigi/agents/explore.md".into()
        )]
    );
    // `n` asks for a name, then the loop writes the starter and opens the editor.
    tree.key(KeyCode::Char('n'));
    for ch in "checker".chars() {
        assert!(tree.key(KeyCode::Char(ch)).is_empty());
    }
    let naming = live(&tree.app, 80, 10);
    assert_eq!(
        tree.key(KeyCode::Enter),
        [Action::CreateAgent("checker".into())]
    );
    insta::assert_snapshot!(format!("{off}\n{read_only}\n{confirm}\n{naming}"));
    // The session's switch outlives the modal: opened again, reviewer is still off.
    tree.key(KeyCode::Esc);
    tree.app.open_agents(catalog(), AgentsTab::Agents);
    let modal = tree.app.agents.as_ref().unwrap();
    assert_eq!(modal.catalog.agents[0].enabled, Some(false));
}

/// Personas as the loader lists them (by name): bundled, project, `config.toml`, user.
fn personas_catalog() -> AgentCatalog {
    let persona =
        |name: &str, scope: &str, source: &str, file: Option<&str>, note: &str| CatalogEntry {
            name: name.into(),
            scope: scope.into(),
            source: source.into(),
            description: format!("{name}: how it behaves"),
            note: note.into(),
            detail: format!("name:        {name}\nsource:      {source}\n\nBe {name}."),
            enabled: Some(name != "strict"),
            file: file.map(Into::into),
        };
    AgentCatalog {
        agents: vec![],
        personas: vec![
            persona("concise", "bundled", "bundled with kigi", None, ""),
            persona(
                "reviewer",
                "project",
                "project (/repo/.kigi/personas/reviewer.toml)",
                Some("/repo/.kigi/personas/reviewer.toml"),
                "shadows built-in",
            ),
            persona(
                "strict",
                "config",
                "config (/home/u/.kigi/config.toml)",
                None,
                "",
            ),
            persona(
                "terse",
                "user",
                "user (/home/u/.kigi/personas/terse.toml)",
                Some("/home/u/.kigi/personas/terse.toml"),
                "",
            ),
        ],
        diagnostics: vec![],
    }
}

#[test]
fn the_personas_tab_switches_creates_edits_and_deletes_but_never_a_bundled_persona() {
    let mut tree = Tree::new();
    tree.app
        .open_agents(personas_catalog(), AgentsTab::Personas);
    let rows = live(&tree.app, 90, 13);
    // Space asks the loop to switch the bundled persona off (bundled is read-only, not
    // unswitchable); the row changes once the switch was written.
    assert_eq!(
        tree.key(KeyCode::Char(' ')),
        [Action::TogglePersona {
            persona: "concise".into(),
            enabled: false,
        }]
    );
    assert_eq!(
        tree.app.agents.as_ref().unwrap().catalog.personas[0].enabled,
        Some(true)
    );
    tree.app.persona_switched("concise", false);
    // A bundled persona's text is not edited or deleted, and the notice says why.
    assert!(tree.key(KeyCode::Char('e')).is_empty());
    let bundled = live(&tree.app, 90, 13);
    assert!(tree.key(KeyCode::Char('d')).is_empty());
    assert_eq!(tree.app.agents.as_ref().unwrap().confirm_delete, None);
    // One set in config.toml is changed there.
    tree.key(KeyCode::Down);
    tree.key(KeyCode::Down);
    assert!(tree.key(KeyCode::Char('d')).is_empty());
    assert_eq!(
        tree.app.agents.as_ref().unwrap().notice.as_deref(),
        Some("strict is set in config.toml ([subagents.personas.strict]): change it there")
    );
    // A user's persona file is edited, and deleted only after a yes.
    tree.key(KeyCode::Down);
    assert_eq!(
        tree.key(KeyCode::Char('e')),
        [Action::EditDefinition(
            "/home/u/.kigi/personas/terse.toml".into()
        )]
    );
    assert!(tree.key(KeyCode::Char('d')).is_empty());
    let confirm = live(&tree.app, 90, 13);
    assert!(tree.key(KeyCode::Char('n')).is_empty(), "n keeps it");
    assert!(tree.key(KeyCode::Char('d')).is_empty());
    assert_eq!(
        tree.key(KeyCode::Char('y')),
        [Action::DeleteDefinition(
            "/home/u/.kigi/personas/terse.toml".into()
        )]
    );
    // `n` asks for a name; the loop writes the starter persona and opens the editor.
    tree.key(KeyCode::Char('n'));
    for ch in "brief".chars() {
        assert!(tree.key(KeyCode::Char(ch)).is_empty());
    }
    let naming = live(&tree.app, 90, 13);
    assert_eq!(
        tree.key(KeyCode::Enter),
        [Action::CreatePersona("brief".into())]
    );
    insta::assert_snapshot!(format!("{rows}\n{bundled}\n{confirm}\n{naming}"));
    // The switch outlives the modal: opened again over the same configuration, it is off.
    tree.key(KeyCode::Esc);
    tree.app
        .open_agents(personas_catalog(), AgentsTab::Personas);
    let modal = tree.app.agents.as_ref().unwrap();
    assert_eq!(modal.catalog.personas[0].enabled, Some(false));
    assert_eq!(modal.catalog.personas[2].enabled, Some(false));
}
