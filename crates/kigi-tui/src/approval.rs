//! Asks waiting for a person: the queue of `approval_requested` notices, the prompt that
//! shows the first one (what will run, which agent asks), and its three answers.
//!
//! The rule: an ask leaves the queue only when it is answered here or the host says it was
//! resolved; several asks wait their turn, oldest first.

use crossterm::event::{KeyCode, KeyEvent};
use kigi_protocol::{ApprovalAnswer, HostCommand};
use ratatui::text::{Line, Span};

use crate::app::{Action, App};
use crate::theme::Theme;
use crate::tool_view::diff_lines;
use crate::wrap::{truncate, wrap_line};

/// Lines of a command shown in the prompt before the fold.
const COMMAND_LINES: usize = 8;

/// One ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingApproval {
    pub request_id: String,
    /// `main` or the child's id.
    pub agent_id: String,
    /// The model-facing tool name.
    pub name: String,
    /// The command line, or the file and a unified diff.
    pub summary: String,
}

/// The three answers, in the order the prompt lists them.
pub const CHOICES: [&str; 3] = [
    "Allow once",
    "Allow for this session",
    "Deny, and tell the model why",
];

/// The answer for choice `index` (the deny reason, when given).
pub fn answer_for(index: usize, reason: Option<String>) -> ApprovalAnswer {
    match index {
        0 => ApprovalAnswer::AllowOnce,
        1 => ApprovalAnswer::AllowForSession,
        _ => ApprovalAnswer::Deny { reason },
    }
}

/// The prompt's lines: who asks, what will run, the choices (or the reason being typed).
pub fn approval_lines(
    ask: &PendingApproval,
    waiting: usize,
    choice: usize,
    reason: Option<&str>,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let who = if ask.agent_id == kigi_protocol::MAIN_AGENT_ID {
        "kigi".to_owned()
    } else {
        format!("subagent {}", ask.agent_id)
    };
    let more = if waiting > 1 {
        format!("  (1 of {waiting} waiting)")
    } else {
        String::new()
    };
    let mut out = wrap_line(
        &Line::from(vec![
            Span::styled("⚠ ", theme.warning),
            Span::styled(format!("{who} asks to run {}", ask.name), theme.accent),
            Span::styled(more, theme.dim),
        ]),
        width,
        2,
    );
    let is_diff = ask.summary.contains("\n+++ ") || ask.summary.starts_with("--- ");
    if is_diff {
        out.extend(diff_lines(&ask.summary, width.saturating_sub(4), theme));
    } else {
        let lines: Vec<&str> = ask.summary.lines().collect();
        for line in lines.iter().take(COMMAND_LINES) {
            out.push(Line::styled(
                format!("    {}", truncate(line, width.saturating_sub(4))),
                theme.code,
            ));
        }
        if lines.len() > COMMAND_LINES {
            out.push(Line::styled(
                format!("    … {} more lines", lines.len() - COMMAND_LINES),
                theme.dim,
            ));
        }
    }
    match reason {
        Some(reason) => {
            out.push(Line::styled(
                "  Why not? (Enter denies, Esc goes back)",
                theme.dim,
            ));
            out.push(Line::from(vec![
                Span::styled("  › ", theme.accent),
                Span::styled(reason.to_owned(), theme.text),
            ]));
        }
        None => {
            for (i, label) in CHOICES.iter().enumerate() {
                let style = if i == choice {
                    theme.selected
                } else {
                    theme.text
                };
                let pointer = if i == choice { "›" } else { " " };
                out.push(Line::from(vec![
                    Span::styled(format!("  {pointer} "), theme.accent),
                    Span::styled(format!("{}. {label}", i + 1), style),
                ]));
            }
        }
    }
    out
}

impl App {
    pub(crate) fn approval_key(&mut self, key: KeyEvent) -> Vec<Action> {
        if let Some(reason) = &mut self.deny_reason {
            match key.code {
                KeyCode::Enter => {
                    let reason = Some(reason.trim().to_owned()).filter(|r| !r.is_empty());
                    return self.answer(2, reason);
                }
                KeyCode::Esc => self.deny_reason = None,
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(ch) => reason.push(ch),
                _ => {}
            }
            return Vec::new();
        }
        match key.code {
            KeyCode::Char('1' | 'y') => self.answer(0, None),
            KeyCode::Char('2' | 'a') => self.answer(1, None),
            KeyCode::Char('3' | 'n') => {
                self.deny_reason = Some(String::new());
                Vec::new()
            }
            KeyCode::Up => {
                self.approval_choice = (self.approval_choice + 2) % 3;
                Vec::new()
            }
            KeyCode::Down | KeyCode::Tab => {
                self.approval_choice = (self.approval_choice + 1) % 3;
                Vec::new()
            }
            KeyCode::Enter if self.approval_choice == 2 => {
                self.deny_reason = Some(String::new());
                Vec::new()
            }
            KeyCode::Enter => self.answer(self.approval_choice, None),
            KeyCode::Esc => self.answer(2, None),
            _ => Vec::new(),
        }
    }

    fn answer(&mut self, choice: usize, reason: Option<String>) -> Vec<Action> {
        let Some(ask) = self.approvals.pop_front() else {
            return Vec::new();
        };
        self.reset_prompt();
        vec![Action::Command(HostCommand::Approval {
            request_id: ask.request_id,
            answer: answer_for(choice, reason),
        })]
    }
}
