//! Permission modes decide which calls run without asking. kigi's headless modes never wait
//! for an answer: what would need approval is refused, with a reason that names the mode that
//! would allow it.

use kigi_agent::PermissionMode;
use kigi_protocol::ToolKind;

/// The decision for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Allow,
    Refuse(String),
}

/// What `mode` allows for a tool of `kind` (`read_only` as its spec says), with nobody to ask.
pub fn decide(mode: PermissionMode, name: &str, kind: ToolKind, read_only: bool) -> Approval {
    // Actions on the session's own tasks and subagents change nothing outside it.
    let harmless = read_only
        || matches!(
            kind,
            ToolKind::KillTaskAction | ToolKind::Task | ToolKind::AgentSwarm
        );
    let edits = kind.writes_files();
    match mode {
        PermissionMode::DontAsk => Approval::Allow,
        _ if harmless && (read_only || mode != PermissionMode::Plan) => Approval::Allow,
        PermissionMode::Plan => Approval::Refuse(format!(
            "`{name}` was not run: plan mode runs read-only tools only. Present the plan instead."
        )),
        PermissionMode::AcceptEdits if edits => Approval::Allow,
        PermissionMode::AcceptEdits => Approval::Refuse(format!(
            "`{name}` was not run: it needs approval, and nobody can approve in this session (permission mode acceptEdits allows file edits only; dontAsk allows everything)."
        )),
        PermissionMode::Default => Approval::Refuse(format!(
            "`{name}` was not run: it needs approval, and nobody can approve in this session (permission mode acceptEdits allows file edits; dontAsk allows everything)."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(mode: PermissionMode, kind: ToolKind, read_only: bool) -> bool {
        decide(mode, "t", kind, read_only) == Approval::Allow
    }

    #[test]
    fn each_mode_allows_what_it_says() {
        use ToolKind::{Edit, Execute, KillTaskAction, Read, Write};
        // (mode, read, edit, execute)
        let table = [
            (PermissionMode::Default, true, false, false),
            (PermissionMode::AcceptEdits, true, true, false),
            (PermissionMode::DontAsk, true, true, true),
            (PermissionMode::Plan, true, false, false),
        ];
        for (mode, read, edit, execute) in table {
            assert_eq!(allowed(mode, Read, true), read, "{mode:?} read");
            assert_eq!(allowed(mode, Edit, false), edit, "{mode:?} edit");
            assert_eq!(allowed(mode, Write, false), edit, "{mode:?} write");
            assert_eq!(allowed(mode, Execute, false), execute, "{mode:?} execute");
        }
        assert!(allowed(PermissionMode::Default, KillTaskAction, false));
        assert!(!allowed(PermissionMode::Plan, KillTaskAction, false));
    }
}
