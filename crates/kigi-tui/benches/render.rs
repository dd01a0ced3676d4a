//! Prints the time to render one frame of the terminal with 10,000 lines of conversation and
//! 20 running children (the live area alone, and a whole inline frame written to a sink), the
//! one-off cost of printing those 10,000 lines (a resize redraws them), and the CPU an idle
//! loop uses over 10 s (utime + stime from /proc/self/stat), waiting the way the event loop
//! waits: on a key channel and the host's event stream, with no timer armed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::time::{Duration, Instant};

use kigi_agent::PermissionMode;
use kigi_protocol::{HostEvent, HostEventBody, HostNotice, SessionEvent};
use kigi_tui::app::App;
use kigi_tui::inline_terminal::InlineTerminal;
use kigi_tui::input_history::InputHistory;
use kigi_tui::theme::{Theme, ThemeName};
use kigi_tui::view::render_live;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

fn main() {
    let mut app = App::new(
        Theme::new(ThemeName::Night, false),
        InputHistory::default(),
        PermissionMode::Default,
        "/bench".into(),
    );
    let main = |event| HostEvent::main(HostEventBody::Session(event));
    let mut estimate = 0;
    let mut turn = 0;
    while estimate < 10_000 {
        turn += 1;
        app.on_host_event(&main(SessionEvent::UserMessage {
            text: format!("question {turn}"),
        }));
        let text: String = (0..18)
            .map(|i| format!("- point {i} of answer {turn}, with `code` and **bold** words\n"))
            .collect();
        app.on_host_event(&main(SessionEvent::AssistantMessage {
            text,
            thinking: String::new(),
            thinking_signature: None,
            tool_calls: vec![],
        }));
        estimate += 20;
    }
    for n in 1..=20 {
        app.on_host_event(&HostEvent {
            agent_id: format!("sub-{n}"),
            parent_id: Some("main".into()),
            body: HostEventBody::Notice(HostNotice::SubagentStarted {
                description: format!("child {n}"),
                agent_type: "explore".into(),
                persona: None,
                model: "scripted".into(),
                model_source: "parent".into(),
                background: true,
                worktree: None,
                resumed: false,
            }),
        });
    }
    app.busy = true;
    app.on_host_event(&main(SessionEvent::TextDelta {
        text:
            "## Streaming\n\nAn answer arriving, with a table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
                .into(),
    }));
    let cells = app.transcript.cells.len();
    // The conversation as printed: each cell's rows at this width, a blank row between cells.
    let lines: usize = app
        .transcript
        .cells
        .iter()
        .map(|cell| cell.lines(WIDTH as usize, &app.theme).len() + 1)
        .sum();

    // The one-off print of the whole conversation (the first frame, or after a resize).
    let mut terminal = InlineTerminal::new(std::io::sink(), 0);
    let start = Instant::now();
    terminal.draw(&app, (WIDTH, HEIGHT)).unwrap();
    let first = start.elapsed();

    // Steady state: each frame redraws the live area only.
    let rounds = 2_000;
    let start = Instant::now();
    for i in 0..rounds {
        app.frame = i;
        terminal.draw(&app, (WIDTH, HEIGHT)).unwrap();
    }
    let frame = start.elapsed() / rounds as u32;

    let mut buffer = Buffer::empty(Rect::new(0, 0, WIDTH, HEIGHT));
    let start = Instant::now();
    for i in 0..rounds {
        app.frame = i;
        buffer.reset();
        render_live(&app, buffer.area, &mut buffer);
    }
    let live = start.elapsed() / rounds as u32;

    println!("conversation: {lines} lines in {cells} cells, 20 running children, {WIDTH}x{HEIGHT}");
    println!(
        "frame (live area + terminal writes to a sink): {:.3} ms",
        ms(frame)
    );
    println!("live area render alone: {:.3} ms", ms(live));
    println!(
        "first frame printing all {lines} lines: {:.1} ms",
        ms(first)
    );

    let swarm = swarm_frame(rounds);
    println!(
        "128-member swarm, tasks pane open and unfolded: {:.3} ms a frame ({:.0} frames/s possible)",
        ms(swarm),
        1.0 / swarm.as_secs_f64()
    );

    let (load, first_block, streaming) = code_block_frames(rounds);
    println!(
        "syntax set load (once, at the first highlighted block): {:.1} ms",
        ms(load)
    );
    println!(
        "200-line rust block: first render {:.2} ms, then {:.3} ms a frame while it streams in",
        ms(first_block),
        ms(streaming)
    );

    let idle = idle_cpu(Duration::from_secs(10));
    println!(
        "idle loop over 10 s: {:.1} ms CPU ({:.3}%)",
        ms(idle),
        idle.as_secs_f64() / 10.0 * 100.0
    );
}

/// The live area of a parent running a 128-member swarm, with the tasks pane open on it and
/// the swarm unfolded to its members.
fn swarm_frame(rounds: usize) -> Duration {
    let mut app = App::new(
        Theme::new(ThemeName::Night, false),
        InputHistory::default(),
        PermissionMode::Default,
        "/bench".into(),
    );
    let items: Vec<String> = (1..=128).map(|i| format!("file{i}.rs")).collect();
    app.on_host_event(&HostEvent::main(HostEventBody::Session(
        SessionEvent::ToolCall {
            call_id: "w1".into(),
            name: "agent_swarm".into(),
            raw_input: serde_json::json!({"description": "review", "items": items}).to_string(),
            meta: None,
        },
    )));
    for n in 1..=128 {
        let child = |body| HostEvent {
            agent_id: format!("sub-{n}"),
            parent_id: Some("main".into()),
            body,
        };
        app.on_host_event(&child(HostEventBody::Notice(HostNotice::SubagentStarted {
            description: format!("review #{n}"),
            agent_type: "explore".into(),
            persona: None,
            model: "scripted".into(),
            model_source: "parent".into(),
            background: false,
            worktree: None,
            resumed: false,
        })));
        app.on_host_event(&child(HostEventBody::Notice(
            HostNotice::SubagentActivity {
                label: "Running: cargo test".into(),
            },
        )));
    }
    app.busy = true;
    app.tasks = Some(kigi_tui::tasks_pane::TasksPane {
        selected: 60,
        expanded: vec!["w1".into()],
        ..Default::default()
    });
    let mut buffer = Buffer::empty(Rect::new(0, 0, WIDTH, HEIGHT));
    let start = Instant::now();
    for i in 0..rounds {
        app.frame = i;
        buffer.reset();
        render_live(&app, buffer.area, &mut buffer);
    }
    start.elapsed() / rounds as u32
}

/// The one-off load of the syntaxes; the first render of an answer holding a 200-line Rust
/// block; and one frame of that answer while its block grows a line a frame (what a streaming
/// code block costs once its earlier lines are memoised).
fn code_block_frames(rounds: usize) -> (Duration, Duration, Duration) {
    let theme = Theme::new(ThemeName::Night, false);
    let start = Instant::now();
    let _ = kigi_tui::code_highlight::classify_fresh("rust", "fn x() {}\n");
    let load = start.elapsed();
    let line = |i: usize| format!("    let value_{i} = compute(&items, \"label\", {i}); // note\n");
    let mut answer = String::from("Here:\n\n```rust\n");
    for i in 0..200 {
        answer.push_str(&line(i));
    }
    let start = Instant::now();
    let _ = kigi_tui::markdown::render_markdown(&answer, WIDTH as usize, &theme);
    let first = start.elapsed();
    let start = Instant::now();
    for i in 0..rounds {
        answer.push_str(&line(200 + i));
        let _ = kigi_tui::markdown::render_markdown(&answer, WIDTH as usize, &theme);
    }
    (load, first, start.elapsed() / rounds as u32)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// CPU time the process spends while an event-loop-shaped wait sits idle for `span`.
fn idle_cpu(span: Duration) -> Duration {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (_keys_tx, mut keys) = tokio::sync::mpsc::unbounded_channel::<()>();
        let (_sink, mut events) = kigi_core::host::event_channel();
        let before = cpu_time();
        let deadline = tokio::time::sleep(span);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                _ = keys.recv() => {}
                _ = events.next() => {}
                () = &mut deadline => break,
            }
        }
        cpu_time() - before
    })
}

/// utime + stime of this process, from /proc/self/stat (clock ticks of 10 ms).
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // Fields 14 and 15 of stat; after the name, state is index 0, so utime is 11, stime 12.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}
