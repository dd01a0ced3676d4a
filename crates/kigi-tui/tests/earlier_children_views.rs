//! A resumed session's children from its earlier runs, read from their transcripts on disk:
//! transcripts written by the session store's own writer into a temporary store, read back
//! by the terminal's loader, replayed with the parent's conversation, then shown as blocks,
//! listed in the tasks pane and opened in the framed view (as `TestBackend` snapshots).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kigi_agent::PermissionMode;
use kigi_core::{MAIN_AGENT, SessionStore};
use kigi_protocol::{ErrorCode, SessionEvent, ToolStatus, TurnEndReason};
use kigi_tui::app::App;
use kigi_tui::child_transcript_files::read_stored_children;
use kigi_tui::input_history::InputHistory;
use kigi_tui::theme::{Theme, ThemeName};
use kigi_tui::transcript::HistoryCell;
use kigi_tui::view::render_live;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use serde_json::json;

fn call(id: &str, name: &str, input: serde_json::Value) -> SessionEvent {
    SessionEvent::ToolCall {
        call_id: id.into(),
        name: name.into(),
        raw_input: input.to_string(),
        meta: None,
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

fn answer(text: &str, thinking: &str) -> SessionEvent {
    SessionEvent::AssistantMessage {
        text: text.into(),
        thinking: thinking.into(),
        thinking_signature: None,
        tool_calls: vec![],
    }
}

fn user(text: &str) -> SessionEvent {
    SessionEvent::UserMessage { text: text.into() }
}

fn end(reason: TurnEndReason) -> SessionEvent {
    SessionEvent::TurnEnd { reason, steps: 2 }
}

/// Writes one transcript (`agent`: `main` or a child's id) with the store's own writer.
fn write(store: &SessionStore, id: &str, agent: &str, events: &[SessionEvent]) {
    let mut writer = if agent == MAIN_AGENT {
        store.create(id).unwrap()
    } else {
        store.create_child(id, agent).unwrap()
    };
    let name = if agent == MAIN_AGENT {
        "kigi"
    } else {
        "explore"
    };
    let start = writer.start_event(name, "scripted", Path::new("/work/demo"));
    writer.append(&start).unwrap();
    for event in events {
        writer.append(event).unwrap();
    }
}

/// A session whose parent started a foreground child (which read a file) and a two-member
/// swarm (one member rate-limited), then ended; returns the store's folder and its id.
fn session_on_disk() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let id = kigi_core::new_session_id();
    write(
        &store,
        &id,
        MAIN_AGENT,
        &[
            user("#parent go"),
            call(
                "c1",
                "spawn_subagent",
                json!({"prompt": "#child read a.txt", "description": "read the file", "subagent_type": "explore", "persona": "concise"}),
            ),
            result(
                "c1",
                "spawn_subagent",
                ToolStatus::Completed,
                "subagent sub-1 [explore] \"read the file\" completed in 2.0s: 2 turn(s), 1 tool call(s)\n--- its final message ---\na.txt says hi",
            ),
            call(
                "c2",
                "agent_swarm",
                json!({"description": "pair", "prompt_template": "check {{item}}", "items": ["a", "b"]}),
            ),
            result(
                "c2",
                "agent_swarm",
                ToolStatus::Completed,
                "swarm \"pair\": 2 members in 1.0s, 0 tokens: 1 completed, 0 failed, 1 rate_limited, 0 backgrounded, 0 cancelled, 0 still_running\n\n#1 a sub-2: completed\nok\n\n#2 b sub-3: rate_limited\nmodel.rate_limited: 429 (after 3 attempts)",
            ),
            answer("Done.", ""),
            end(TurnEndReason::Completed),
        ],
    );
    write(
        &store,
        &id,
        "sub-1",
        &[
            user("#child read a.txt"),
            answer("", "The file is small; read it whole."),
            call("k1", "read_file", json!({"path": "a.txt"})),
            result("k1", "read_file", ToolStatus::Completed, "     1\thi\n"),
            SessionEvent::Usage {
                input_tokens: 1_200,
                output_tokens: 30,
                cached_input_tokens: 0,
                context_window: None,
            },
            answer("a.txt says hi", ""),
            end(TurnEndReason::Completed),
        ],
    );
    write(
        &store,
        &id,
        "sub-2",
        &[
            user("check a"),
            answer("ok", ""),
            end(TurnEndReason::Completed),
        ],
    );
    write(
        &store,
        &id,
        "sub-3",
        &[
            user("check b"),
            SessionEvent::Error {
                code: ErrorCode::ModelRateLimited,
                message: "429 Too Many Requests".into(),
            },
            end(TurnEndReason::Error),
        ],
    );
    (dir, id)
}

/// The terminal resuming session `id`, as the event loop opens it: the parent's stored
/// conversation replayed with the children read from disk. Timestamps are pinned a second
/// apart so run times do not depend on the clock.
fn resumed(dir: &Path, id: &str) -> App {
    let store = SessionStore::new(dir);
    let parent: Vec<SessionEvent> = store
        .load(id)
        .unwrap()
        .events
        .into_iter()
        .filter(|e| e.agent_id == MAIN_AGENT)
        .map(|e| e.event)
        .collect();
    let (mut stored, _) = read_stored_children(&store, id);
    for child in &mut stored {
        for (n, record) in child.records.iter_mut().enumerate() {
            record.timestamp = format!("2026-12-01T10:00:{n:02}.000Z");
        }
    }
    let mut app = App::new(
        Theme::new(ThemeName::Night, true),
        InputHistory::default(),
        PermissionMode::Default,
        "/work/demo".into(),
    );
    let now = Instant::now();
    app.now = now + Duration::from_secs(60);
    let count = app.transcript.replay_resumed(&parent, stored, now);
    assert_eq!(count, 3);
    app
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

/// The printed blocks but the tool calls' (their rendering is `views`' to test).
fn history(app: &App, width: u16) -> String {
    let lines: Vec<Line<'static>> = app
        .transcript
        .cells
        .iter()
        .filter(|c| !matches!(c, HistoryCell::Tool(_)))
        .flat_map(|cell| cell.lines(width as usize, &app.theme))
        .collect();
    let mut terminal = Terminal::new(TestBackend::new(width, lines.len().max(1) as u16)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(Paragraph::new(lines), frame.area()))
        .unwrap();
    format!("{}", terminal.backend())
}

#[test]
fn children_of_an_earlier_run_are_blocks_listed_and_open_from_their_transcripts() {
    let (dir, id) = session_on_disk();
    let mut app = resumed(dir.path(), &id);
    // Nothing of theirs runs: the session is idle.
    assert_eq!(app.transcript.running_children(), 0);
    assert!(!app.transcript.animating());
    let blocks = history(&app, 90);
    app.on_key(KeyEvent::new(KeyCode::Char('b'), KeyModifiers::CONTROL));
    app.on_key(KeyEvent::from(KeyCode::Enter));
    let pane = live(&app, 90, 10);
    // The swarm row is unfolded; the child below its members is the foreground one.
    app.on_key(KeyEvent::from(KeyCode::Down));
    app.on_key(KeyEvent::from(KeyCode::Down));
    app.on_key(KeyEvent::from(KeyCode::Down));
    app.on_key(KeyEvent::from(KeyCode::Enter));
    assert_eq!(app.framed.as_ref().unwrap().child_id, "sub-1");
    let frame = live(&app, 90, 18);
    // ← steps to the previous child (round to the last): the rate-limited swarm member.
    app.on_key(KeyEvent::from(KeyCode::Left));
    assert_eq!(app.framed.as_ref().unwrap().child_id, "sub-3");
    let limited = live(&app, 90, 10);
    insta::assert_snapshot!(format!("{blocks}\n{pane}\n{frame}\n{limited}"));
    app.on_key(KeyEvent::from(KeyCode::Char('q')));
    assert!(app.framed.is_none());
}

#[test]
fn a_resumed_session_without_children_replays_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let id = kigi_core::new_session_id();
    write(
        &store,
        &id,
        MAIN_AGENT,
        &[
            user("hello"),
            answer("hi", ""),
            end(TurnEndReason::Completed),
        ],
    );
    assert!(read_stored_children(&store, &id).0.is_empty());
    let parent: Vec<SessionEvent> = store
        .load(&id)
        .unwrap()
        .events
        .into_iter()
        .map(|e| e.event)
        .collect();
    let mut app = App::new(
        Theme::new(ThemeName::Night, true),
        InputHistory::default(),
        PermissionMode::Default,
        "/work/demo".into(),
    );
    assert_eq!(
        app.transcript
            .replay_resumed(&parent, Vec::new(), Instant::now()),
        0
    );
    assert_eq!(
        app.transcript.cells,
        [
            HistoryCell::User("hello".into()),
            HistoryCell::Answer("hi".into())
        ]
    );
    assert!(app.transcript.children.is_empty());
}
