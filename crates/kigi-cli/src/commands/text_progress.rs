//! Text mode's progress on stderr: a tool call is shown with its result under it, a retry,
//! a reminder, a child starting and ending each get a line, and, only when stderr is a
//! terminal, a status line (a spinner, what the agent is doing, for how long) is redrawn in
//! place while it waits.
//!
//! The rule: the lines are pure functions of the events ([`TextProgress::lines_for`]) and
//! every cut falls on a character boundary with an ellipsis; only [`TextProgress::show`] and
//! [`TextProgress::tick`] write, and nothing but the lines is written when stderr is not a
//! terminal.

use std::time::{Duration, Instant};

use kigi_protocol::{
    HostEvent, HostEventBody, HostNotice, ReminderSource, SessionEvent, ToolStatus,
};

use crate::terminal_text::safe_for_terminal;

/// The widest a call line, a result line or the status line may be, in characters.
const LINE_CHARS: usize = 100;
/// Result lines shown under a call.
const RESULT_LINES: usize = 3;
/// The status line is kept short, so it does not wrap and cannot be redrawn in place.
const STATUS_CHARS: usize = 70;
/// How often the status line is redrawn.
pub const TICK: Duration = Duration::from_millis(120);

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// What the main agent is doing, for the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activity {
    Idle,
    WaitingForModel,
    Thinking,
    Writing,
    /// Running a tool call: its call line.
    Running(String),
}

/// Text mode's state: the calls waiting for their results, and the status.
#[derive(Debug)]
pub struct TextProgress {
    /// Whether stderr is a terminal (the status line is drawn only then).
    terminal: bool,
    /// Calls without a result yet: id and call line, in call order.
    pending: Vec<(String, String)>,
    activity: Activity,
    since: Instant,
    frame: usize,
    /// A status line is on screen and must be cleared before a line is written.
    drawn: bool,
}

impl TextProgress {
    pub fn new(terminal: bool) -> Self {
        Self {
            terminal,
            pending: Vec::new(),
            activity: Activity::Idle,
            since: Instant::now(),
            frame: 0,
            drawn: false,
        }
    }

    /// Whether the status line is drawn (and [`TextProgress::tick`] worth calling).
    pub fn is_live(&self) -> bool {
        self.terminal
    }

    /// Writes the lines `event` gets.
    pub fn show(&mut self, event: &HostEvent) {
        let lines = self.lines_for(event);
        self.write(&lines);
    }

    /// Redraws the status line (on a terminal only).
    pub fn tick(&mut self) {
        if !self.terminal || self.activity == Activity::Idle {
            return;
        }
        self.frame = self.frame.wrapping_add(1);
        let line = status_line(&self.activity, self.frame, self.since.elapsed());
        err!("\r\x1b[2K{}", safe_for_terminal(&line));
        self.drawn = true;
    }

    /// Ends the display: calls that never got a result are shown as such, the status line
    /// is cleared.
    pub fn finish(&mut self) {
        let lines: Vec<String> = std::mem::take(&mut self.pending)
            .into_iter()
            .map(|(_, call)| format!("{call}  (no result)"))
            .collect();
        self.activity = Activity::Idle;
        self.write(&lines);
        self.clear_status();
    }

    fn write(&mut self, lines: &[String]) {
        if lines.is_empty() {
            return;
        }
        self.clear_status();
        for line in lines {
            errln!("{}", safe_for_terminal(line));
        }
    }

    fn clear_status(&mut self) {
        if self.drawn {
            err!("\r\x1b[2K");
            self.drawn = false;
        }
    }

    fn set(&mut self, activity: Activity) {
        if self.activity != activity {
            self.activity = activity;
            self.since = Instant::now();
        }
    }

    /// The lines `event` gets, and the status it leaves: a call is held until its result
    /// arrives, then shown with the result under it.
    pub fn lines_for(&mut self, event: &HostEvent) -> Vec<String> {
        let session = match &event.body {
            HostEventBody::Notice(notice) => {
                return notice_line(&event.agent_id, notice).into_iter().collect();
            }
            HostEventBody::Session(session) if event.is_main() => session,
            HostEventBody::Session(_) => return Vec::new(),
        };
        match session {
            SessionEvent::UserMessage { .. } => self.set(Activity::WaitingForModel),
            SessionEvent::ThinkingDelta { .. } => self.set(Activity::Thinking),
            SessionEvent::TextDelta { .. } => self.set(Activity::Writing),
            SessionEvent::TurnEnd { .. } => self.set(Activity::Idle),
            SessionEvent::ToolCall {
                call_id,
                name,
                meta,
                raw_input,
            } => {
                let detail = meta
                    .as_ref()
                    .and_then(|m| m.tool.input.as_ref())
                    .and_then(|input| input.as_object())
                    .map(|input| {
                        input
                            .values()
                            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_else(|| raw_input.clone());
                let line = cut(format!("→ {name} {detail}").trim_end(), LINE_CHARS);
                self.pending.push((call_id.clone(), line.clone()));
                self.set(Activity::Running(line));
            }
            SessionEvent::ToolResult {
                call_id,
                name,
                status,
                output,
            } => {
                let call = match self.pending.iter().position(|(id, _)| id == call_id) {
                    Some(at) => self.pending.remove(at).1,
                    None => format!("→ {name}"),
                };
                match self.pending.first() {
                    Some((_, next)) => self.set(Activity::Running(next.clone())),
                    None => self.set(Activity::WaitingForModel),
                }
                let mut lines = vec![call];
                lines.extend(result_lines(*status, output));
                return lines;
            }
            SessionEvent::Retrying {
                attempt,
                delay_ms,
                reason,
            } => {
                self.set(Activity::WaitingForModel);
                return vec![cut(
                    &format!("  ↻ retry {attempt} in {delay_ms} ms: {reason}"),
                    LINE_CHARS,
                )];
            }
            SessionEvent::Reminder {
                source: ReminderSource::Completion,
                ..
            } => return vec!["  ↺ completion reminder sent".to_owned()],
            SessionEvent::Reminder { text, .. } => {
                let first = text
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty() && !l.starts_with("<system-reminder"))
                    .unwrap_or("");
                return vec![format!("  ↺ message for the agent: {}", cut(first, 100))];
            }
            _ => {}
        }
        Vec::new()
    }
}

/// The lines under a call: the first lines of a completed result, or the status and first
/// line of one that did not complete.
fn result_lines(status: ToolStatus, output: &str) -> Vec<String> {
    if status != ToolStatus::Completed {
        let first = output.lines().next().unwrap_or("");
        return vec![cut(
            &format!("  ✗ {}: {first}", status_word(status)),
            LINE_CHARS,
        )];
    }
    let total = output.lines().count();
    let mut lines: Vec<String> = output
        .lines()
        .take(RESULT_LINES)
        .map(|l| cut(&format!("    {l}"), LINE_CHARS))
        .collect();
    if total > RESULT_LINES {
        lines.push(format!("    … ({total} lines)"));
    }
    lines
}

/// The status line: a spinner frame, the activity, the seconds it has lasted.
pub fn status_line(activity: &Activity, frame: usize, elapsed: Duration) -> String {
    let what = match activity {
        Activity::Idle => return String::new(),
        Activity::WaitingForModel => "waiting for the model".to_owned(),
        Activity::Thinking => "thinking".to_owned(),
        Activity::Writing => "writing the answer".to_owned(),
        Activity::Running(call) => format!("running {}", call.trim_start_matches("→ ")),
    };
    let spinner = SPINNER[frame % SPINNER.len()];
    let seconds = elapsed.as_secs();
    cut(&format!("{spinner} {what} · {seconds}s"), STATUS_CHARS)
}

/// The stderr line for a host notice in text mode, if it gets one.
fn notice_line(agent: &str, notice: &HostNotice) -> Option<String> {
    match notice {
        HostNotice::SubagentStarted {
            description,
            agent_type,
            model,
            background,
            ..
        } => Some(format!(
            "  ⤷ {agent} {}: \"{description}\" ({agent_type} · {model})",
            if *background { "started" } else { "running" }
        )),
        HostNotice::SubagentFinished {
            status, elapsed_ms, ..
        } => Some(format!(
            "  ⤶ {agent} {status} in {:.1}s",
            *elapsed_ms as f64 / 1000.0
        )),
        _ => None,
    }
}

/// At most `max` characters of `text`, cut on a character boundary, with an ellipsis.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn status_word(status: ToolStatus) -> &'static str {
    match status {
        ToolStatus::Completed => "completed",
        ToolStatus::Failed => "failed",
        ToolStatus::Refused => "refused",
        ToolStatus::Cancelled => "cancelled",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn main_event(event: SessionEvent) -> HostEvent {
        HostEvent::main(HostEventBody::Session(event))
    }

    fn call(id: &str, name: &str, input: &str) -> HostEvent {
        main_event(SessionEvent::ToolCall {
            call_id: id.into(),
            name: name.into(),
            raw_input: input.into(),
            meta: None,
        })
    }

    fn result(id: &str, name: &str, output: &str) -> HostEvent {
        main_event(SessionEvent::ToolResult {
            call_id: id.into(),
            name: name.into(),
            status: ToolStatus::Completed,
            output: output.into(),
        })
    }

    #[test]
    fn each_result_is_shown_under_its_own_call() {
        let mut progress = TextProgress::new(false);
        assert!(progress.lines_for(&call("a", "glob", "*.md")).is_empty());
        assert!(progress.lines_for(&call("b", "grep", "TODO")).is_empty());
        assert_eq!(
            progress.lines_for(&result("b", "grep", "x.rs:1: TODO")),
            vec!["→ grep TODO", "    x.rs:1: TODO"]
        );
        assert_eq!(progress.activity, Activity::Running("→ glob *.md".into()));
        assert_eq!(
            progress.lines_for(&result("a", "glob", "a.md\nb.md\nc.md\nd.md")),
            vec![
                "→ glob *.md",
                "    a.md",
                "    b.md",
                "    c.md",
                "    … (4 lines)"
            ]
        );
        assert_eq!(progress.activity, Activity::WaitingForModel);
    }

    #[test]
    fn a_failed_call_shows_its_status_and_first_line() {
        let mut progress = TextProgress::new(false);
        progress.lines_for(&call("a", "bash", "rm -rf /"));
        let refused = main_event(SessionEvent::ToolResult {
            call_id: "a".into(),
            name: "bash".into(),
            status: ToolStatus::Refused,
            output: "plan mode is read-only\nmore".into(),
        });
        assert_eq!(
            progress.lines_for(&refused),
            vec!["→ bash rm -rf /", "  ✗ refused: plan mode is read-only"]
        );
    }

    #[test]
    fn long_lines_are_cut_on_characters_with_an_ellipsis() {
        let mut progress = TextProgress::new(false);
        let long = "é".repeat(300);
        progress.lines_for(&call("a", "read_file", &long));
        let lines = progress.lines_for(&result("a", "read_file", &long));
        assert_eq!(lines[0].chars().count(), LINE_CHARS + 1);
        assert!(lines[0].ends_with("é…"), "{}", lines[0]);
        assert!(lines[1].ends_with("é…"), "{}", lines[1]);
        assert_eq!(cut("ééééé", 3), "ééé…");
        assert_eq!(cut("abc", 3), "abc");
    }

    #[test]
    fn only_a_completion_reminder_is_called_one() {
        let mut progress = TextProgress::new(false);
        let completion = main_event(SessionEvent::Reminder {
            text: "<system-reminder>\nRecord your todos.\n</system-reminder>".into(),
            source: ReminderSource::Completion,
        });
        assert_eq!(
            progress.lines_for(&completion),
            vec!["  ↺ completion reminder sent"]
        );
        let note = main_event(SessionEvent::Reminder {
            text: "<system-reminder>\nsub-2 says: the tests pass\n</system-reminder>".into(),
            source: ReminderSource::Message,
        });
        assert_eq!(
            progress.lines_for(&note),
            vec!["  ↺ message for the agent: sub-2 says: the tests pass"]
        );
    }

    #[test]
    fn the_status_line_names_the_activity_and_its_seconds() {
        assert_eq!(
            status_line(&Activity::WaitingForModel, 0, Duration::from_millis(3_400)),
            "⠋ waiting for the model · 3s"
        );
        assert_eq!(
            status_line(&Activity::Running("→ grep TODO".into()), 11, Duration::ZERO),
            "⠙ running grep TODO · 0s"
        );
        assert_eq!(status_line(&Activity::Idle, 0, Duration::ZERO), "");
        let long = Activity::Running(format!("→ bash {}", "x".repeat(200)));
        assert_eq!(
            status_line(&long, 0, Duration::ZERO).chars().count(),
            STATUS_CHARS + 1
        );
    }

    #[test]
    fn nothing_is_drawn_when_stderr_is_not_a_terminal() {
        let mut progress = TextProgress::new(false);
        progress.lines_for(&main_event(SessionEvent::UserMessage { text: "hi".into() }));
        progress.tick();
        assert!(!progress.drawn);
        assert!(!progress.is_live());
    }
}
