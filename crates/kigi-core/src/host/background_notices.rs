//! Background commands as host notices: a [`TaskWatcher`] on an agent's task registry that
//! reports each command's start and end under that agent's id, so the terminal's status line
//! and tasks pane (and any front end) see them without polling `get_task_output`.

use kigi_protocol::{BackgroundCommandStatus, HostNotice};
use kigi_tools::shell::Ending;
use kigi_tools::{TaskState, TaskWatcher};

use super::AgentEmitter;

/// Reports one agent's background commands.
pub(crate) struct BackgroundNotices(pub AgentEmitter);

impl TaskWatcher for BackgroundNotices {
    fn started(&self, id: &str, command: &str) {
        self.0.notice(HostNotice::BackgroundCommandStarted {
            task_id: id.to_owned(),
            command: command.to_owned(),
        });
    }

    fn ended(&self, id: &str, state: &TaskState) {
        let (status, exit_code) = finished_status(state);
        self.0.notice(HostNotice::BackgroundCommandFinished {
            task_id: id.to_owned(),
            status,
            exit_code,
        });
    }
}

/// The notice's `status` and `exit_code` for a task's state.
/// Only an ended task is reported; the other states read as killed (never sent: a task that
/// cannot start has no id, and one that runs has not ended).
fn finished_status(state: &TaskState) -> (BackgroundCommandStatus, Option<i32>) {
    match state {
        TaskState::Ended(Ending::Exited(code)) => (BackgroundCommandStatus::Exited, Some(*code)),
        TaskState::Ended(Ending::TimedOut(_)) => (BackgroundCommandStatus::TimedOut, None),
        TaskState::Ended(Ending::Cancelled | Ending::Signalled)
        | TaskState::Failed(_)
        | TaskState::Running => (BackgroundCommandStatus::Killed, None),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn every_ending_has_its_status() {
        use BackgroundCommandStatus::{Exited, Killed, TimedOut};
        assert_eq!(
            finished_status(&TaskState::Ended(Ending::Exited(3))),
            (Exited, Some(3))
        );
        assert_eq!(
            finished_status(&TaskState::Ended(Ending::Cancelled)),
            (Killed, None)
        );
        assert_eq!(
            finished_status(&TaskState::Ended(Ending::TimedOut(Duration::from_secs(1)))),
            (TimedOut, None)
        );
    }
}
