//! Every view as a snapshot of a ratatui `TestBackend` buffer: the live area (prompt, status,
//! running calls, children, an approval, the `/resume` picker, the command popup) and the
//! finished cells, at 100 and at 40 columns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use kigi_agent::PermissionMode;
use kigi_protocol::{
    CanonicalToolMeta, HostEvent, HostEventBody, HostNotice, SessionEvent, ToolCallMeta, ToolKind,
    ToolNamespace, ToolStatus,
};
use kigi_tui::app::App;
use kigi_tui::input_history::InputHistory;
use kigi_tui::session_picker::SessionChoice;
use kigi_tui::theme::{Theme, ThemeName};
use kigi_tui::view::render_live;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

fn app() -> App {
    let mut app = App::new(
        Theme::new(ThemeName::Night, true),
        InputHistory::default(),
        PermissionMode::Default,
        "/work/demo".into(),
    );
    app.on_host_event(&main(SessionEvent::SessionStart {
        session_id: "s-1".into(),
        agent: "kigi".into(),
        model: "scripted".into(),
        cwd: "/work/demo".into(),
        kigi_version: "0".into(),
    }));
    app
}

fn main(event: SessionEvent) -> HostEvent {
    HostEvent::main(HostEventBody::Session(event))
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
        .enumerate()
        .flat_map(|(i, cell)| {
            // A blank line between cells, as the terminal prints them.
            let mut lines = Vec::new();
            if i > 0 && !cell.joins_previous() {
                lines.push(Line::default());
            }
            lines.extend(cell.lines(width as usize, &app.theme));
            lines
        })
        .collect();
    let height = lines.len() as u16;
    let mut terminal = Terminal::new(TestBackend::new(width, height.max(1))).unwrap();
    terminal
        .draw(|frame| frame.render_widget(Paragraph::new(lines), frame.area()))
        .unwrap();
    format!("{}", terminal.backend())
}

#[test]
fn idle_prompt_with_status_line() {
    insta::assert_snapshot!(live(&app(), 60, 4));
}

#[test]
fn working_with_a_running_call_children_and_a_queued_message() {
    let mut app = app();
    app.busy = true;
    app.on_host_event(&main(SessionEvent::UserMessage {
        text: "fix the tests".into(),
    }));
    app.on_host_event(&main(call(
        "c1",
        "run_terminal_cmd",
        ToolKind::Execute,
        serde_json::json!({"command": "cargo test"}),
    )));
    for n in 1..=2 {
        app.on_host_event(&HostEvent {
            agent_id: format!("sub-{n}"),
            parent_id: Some("main".into()),
            body: HostEventBody::Notice(HostNotice::SubagentStarted {
                description: "look around".into(),
                agent_type: "explore".into(),
                persona: None,
                model: "scripted".into(),
                model_source: "parent".into(),
                background: n == 2,
                worktree: None,
                resumed: false,
            }),
        });
    }
    app.queued.push("also run clippy".into());
    insta::assert_snapshot!(live(&app, 70, 10));
}

#[test]
fn streaming_answer_keeps_its_newest_lines_when_the_area_is_short() {
    let mut app = app();
    app.busy = true;
    let text: String = (1..=30).map(|i| format!("- point {i}\n")).collect();
    app.on_host_event(&main(SessionEvent::TextDelta { text }));
    insta::assert_snapshot!(live(&app, 40, 8));
}

#[test]
fn approval_of_a_childs_edit_shows_the_diff_and_the_choices() {
    let mut app = app();
    app.on_host_event(&HostEvent {
        agent_id: "sub-3".into(),
        parent_id: Some("main".into()),
        body: HostEventBody::Notice(HostNotice::ApprovalRequested {
            request_id: "approval-1".into(),
            call_id: "c9".into(),
            name: "search_replace".into(),
            tool: None,
            summary: "--- src/lib.rs\n+++ src/lib.rs\n@@ -1 +1 @@\n-fn old() {}\n+fn new() {}\n"
                .into(),
        }),
    });
    app.on_host_event(&main(SessionEvent::UserMessage { text: "x".into() }));
    app.on_host_event(&HostEvent::main(HostEventBody::Notice(
        HostNotice::ApprovalRequested {
            request_id: "approval-2".into(),
            call_id: "c10".into(),
            name: "run_terminal_cmd".into(),
            tool: None,
            summary: "rm -rf target".into(),
        },
    )));
    insta::assert_snapshot!(live(&app, 60, 12));
}

#[test]
fn resume_picker_lists_sessions() {
    let mut app = app();
    app.open_picker(vec![
        SessionChoice {
            id: "20261201-aaaa".into(),
            last_used: "2026-12-01T10:00:00Z".into(),
            first_prompt: "tour the repo".into(),
            turns: 3,
        },
        SessionChoice {
            id: "20261130-bbbb".into(),
            last_used: "2026-11-30T09:00:00Z".into(),
            first_prompt: "fix the parser".into(),
            turns: 1,
        },
    ]);
    insta::assert_snapshot!(live(&app, 70, 6));
}

#[test]
fn slash_popup_completes_commands() {
    let mut app = app();
    for ch in "/re".chars() {
        app.on_key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::Char(ch),
        ));
    }
    insta::assert_snapshot!(live(&app, 60, 5));
}

#[test]
fn finished_cells_at_forty_columns() {
    let mut app = app();
    app.on_host_event(&main(SessionEvent::UserMessage {
        text: "edit the greeting in src/main.rs please".into(),
    }));
    app.on_host_event(&main(SessionEvent::ThinkingDelta {
        text: "Look at main.rs.\nThen edit.\nThen test.".into(),
    }));
    app.on_host_event(&main(SessionEvent::AssistantMessage {
        text: String::new(),
        thinking: String::new(),
        thinking_signature: None,
        tool_calls: vec![],
    }));
    app.on_host_event(&main(call(
        "c1",
        "read_file",
        ToolKind::Read,
        serde_json::json!({"path": "src/main.rs"}),
    )));
    app.on_host_event(&main(SessionEvent::ToolResult {
        call_id: "c1".into(),
        name: "read_file".into(),
        status: ToolStatus::Completed,
        output: "fn main() {\n    println!(\"hi\");\n}\n".into(),
    }));
    app.on_host_event(&main(call(
        "c2",
        "search_replace",
        ToolKind::Edit,
        serde_json::json!({"path": "src/main.rs", "old_string": "hi", "new_string": "hello"}),
    )));
    app.on_host_event(&main(SessionEvent::ToolResult {
        call_id: "c2".into(),
        name: "search_replace".into(),
        status: ToolStatus::Completed,
        output: "edited".into(),
    }));
    app.on_host_event(&main(call(
        "c3",
        "run_terminal_cmd",
        ToolKind::Execute,
        serde_json::json!({"command": "cargo test"}),
    )));
    let output: String = (1..=9).map(|i| format!("test t{i} ... ok\n")).collect();
    app.on_host_event(&main(SessionEvent::ToolResult {
        call_id: "c3".into(),
        name: "run_terminal_cmd".into(),
        status: ToolStatus::Completed,
        output,
    }));
    app.on_host_event(&main(SessionEvent::AssistantMessage {
        text: "Done: the greeting now says **hello**.".into(),
        thinking: String::new(),
        thinking_signature: None,
        tool_calls: vec![],
    }));
    insta::assert_snapshot!(history(&app, 40));
}

#[test]
fn history_search_and_context_share_in_the_status_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut history = InputHistory::load(&dir.path().join("h.jsonl"));
    history.push("cargo test --workspace").unwrap();
    history.push("explain the parser").unwrap();
    let mut app = App::new(
        Theme::new(ThemeName::Day, true),
        history,
        PermissionMode::AcceptEdits,
        "/w".into(),
    );
    app.context_window = Some(128_000);
    app.on_host_event(&main(SessionEvent::Usage {
        input_tokens: 32_000,
        output_tokens: 1_000,
        cached_input_tokens: 0,
        context_window: None,
    }));
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    app.on_key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL));
    for ch in "cargo".chars() {
        app.on_key(KeyEvent::from(KeyCode::Char(ch)));
    }
    insta::assert_snapshot!(live(&app, 60, 5));
}

#[test]
fn at_mention_popup_lists_matching_files() {
    let mut app = app();
    app.files = Some(vec![
        "README.md".into(),
        "src/main.rs".into(),
        "src/parser.rs".into(),
    ]);
    for ch in "look at @src/".chars() {
        app.on_key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::Char(ch),
        ));
    }
    insta::assert_snapshot!(live(&app, 50, 6));
}

/// `lines` as text with each coloured or styled run marked: `[LightMagenta]fn[/]`,
/// `[DIM | ITALIC]// note[/]`; runs without a style are bare.
fn styled(lines: &[Line<'static>]) -> String {
    lines
        .iter()
        .map(|line| {
            line.spans
                .iter()
                .map(|span| {
                    let mut marks = Vec::new();
                    if let Some(fg) = span.style.fg {
                        marks.push(format!("{fg:?}"));
                    }
                    if !span.style.add_modifier.is_empty() {
                        marks.push(format!("{:?}", span.style.add_modifier));
                    }
                    if marks.is_empty() {
                        span.content.to_string()
                    } else {
                        format!("[{}]{}[/]", marks.join(" "), span.content)
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn code_blocks_are_coloured_by_language_in_both_themes_and_plain_under_no_color() {
    let answer = "Run it:\n\n```rust\n// greet\nfn main() {\n    let n = 42;\n    println!(\"hi {n}\");\n}\n```\n\n```diff\n-old\n+new\n```\n\n```nonsense\nkept plain\n```\n";
    let mut out = Vec::new();
    for (name, no_color) in [
        (ThemeName::Night, false),
        (ThemeName::Day, false),
        (ThemeName::Night, true),
    ] {
        let theme = Theme::new(name, no_color);
        let lines = kigi_tui::markdown::render_markdown(answer, 60, &theme);
        out.push(format!(
            "{} no_color={no_color}\n{}",
            name.as_str(),
            styled(&lines)
        ));
    }
    insta::assert_snapshot!(out.join("\n\n"));
}

#[test]
fn attached_files_show_in_the_users_block() {
    let mut app = app();
    app.on_host_event(&main(SessionEvent::UserMessage {
        text: "compare @src/parser.rs with @README.md".into(),
    }));
    app.on_host_event(&main(SessionEvent::UserAttachments {
        files: vec![
            kigi_protocol::AttachedText {
                source: "src/parser.rs".into(),
                text: "fn parse() {}\n".into(),
            },
            kigi_protocol::AttachedText {
                source: "README.md".into(),
                text: "# demo\n\nA demo.\n".into(),
            },
        ],
        images: vec![kigi_protocol::ImagePart {
            media_type: "image/png".into(),
            data: "iVBORw0KGgo=".into(),
        }],
    }));
    app.on_host_event(&main(SessionEvent::AssistantMessage {
        text: "They agree.".into(),
        thinking: String::new(),
        thinking_signature: None,
        tool_calls: vec![],
    }));
    insta::assert_snapshot!(history(&app, 40));
}
