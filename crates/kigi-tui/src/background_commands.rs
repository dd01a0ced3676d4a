//! Background commands (`run_terminal_cmd` with `background: true`) as the terminal knows
//! them: started and finished, from the host's two notices; counted in the status line and
//! listed in the tasks pane after the subagents.
//!
//! The rule: built from host events only; a command is kept when it ends, so the pane can
//! still say how it ended.

use std::time::{Duration, Instant};

use kigi_protocol::BackgroundCommandStatus;

/// How a background command ended (`background_command_finished`'s `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandEnd {
    /// It exited by itself, with this code when one is known.
    Exited(Option<i32>),
    Killed,
    TimedOut,
}

impl CommandEnd {
    /// How the host reported it.
    pub fn from_status(status: BackgroundCommandStatus, exit_code: Option<i32>) -> Self {
        match status {
            BackgroundCommandStatus::Exited => Self::Exited(exit_code),
            BackgroundCommandStatus::Killed => Self::Killed,
            BackgroundCommandStatus::TimedOut => Self::TimedOut,
        }
    }

    /// `exited 0`, `killed`, `timed out`.
    pub fn describe(self) -> String {
        match self {
            Self::Exited(Some(code)) => format!("exited {code}"),
            Self::Exited(None) => "exited".to_owned(),
            Self::Killed => "killed".to_owned(),
            Self::TimedOut => "timed out".to_owned(),
        }
    }

    /// Whether it ended well (exit code 0).
    pub fn succeeded(self) -> bool {
        matches!(self, Self::Exited(Some(0)))
    }
}

/// One background command of the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackgroundCommand {
    pub task_id: String,
    /// The agent that started it (`main`, `sub-2`).
    pub agent_id: String,
    pub command: String,
    pub started: Instant,
    /// `None` while it runs; how it ended and after how long.
    pub finish: Option<(CommandEnd, Duration)>,
}

impl BackgroundCommand {
    pub fn running(&self) -> bool {
        self.finish.is_none()
    }

    /// How long it ran (so far).
    pub fn elapsed(&self, now: Instant) -> Duration {
        match self.finish {
            Some((_, elapsed)) => elapsed,
            None => now.saturating_duration_since(self.started),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_read_as_the_host_reports_them() {
        use BackgroundCommandStatus::{Exited, Killed, TimedOut};
        assert_eq!(
            CommandEnd::from_status(Exited, Some(2)),
            CommandEnd::Exited(Some(2))
        );
        assert_eq!(CommandEnd::from_status(Killed, None), CommandEnd::Killed);
        assert_eq!(
            CommandEnd::from_status(TimedOut, None),
            CommandEnd::TimedOut
        );
        assert_eq!(CommandEnd::Exited(Some(0)).describe(), "exited 0");
        assert!(CommandEnd::Exited(Some(0)).succeeded());
        assert!(!CommandEnd::Exited(Some(1)).succeeded());
        assert_eq!(CommandEnd::TimedOut.describe(), "timed out");
    }
}
