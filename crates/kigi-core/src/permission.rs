//! Permission modes decide which calls run without asking. What a mode does not allow
//! outright is asked about when someone can answer (the host's approvals); with nobody to ask
//! (print mode, a background child) it is refused, with a reason that names the mode that
//! would allow it. Rules (`[permissions]`, `--allowedTools`) come first: a deny rule refuses,
//! an ask rule asks, an allow rule allows (except in plan mode, which stays read-only); only
//! a call no rule speaks about is decided by the mode. A web fetch is decided by its host
//! ([`crate::fetch_permission`]).

use kigi_agent::PermissionMode;
use kigi_agent::permissions::{CallSubject, RuleVerdict};
use kigi_protocol::ToolKind;

use crate::fetch_permission::decide_fetch;

/// The decision for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Allow,
    Refuse(String),
    /// A person may allow it; `refusal` is the reason given when nobody can be asked.
    Ask {
        refusal: String,
    },
}

/// The decision for a call (`subject`, as rules see it) the rules gave `verdict` about.
pub fn decide_call(
    mode: PermissionMode,
    name: &str,
    subject: &CallSubject<'_>,
    read_only: bool,
    verdict: RuleVerdict<'_>,
) -> Approval {
    let kind = subject.kind;
    match verdict {
        RuleVerdict::Deny(rule) => Approval::Refuse(format!(
            "`{name}` was not run: the {rule} denies it. Do not retry it; if you need it, ask the user."
        )),
        _ if kind == ToolKind::WebFetch => decide_fetch(mode, name, subject, verdict),
        RuleVerdict::Ask(rule)
            if matches!(mode, PermissionMode::DontAsk | PermissionMode::Plan) =>
        {
            Approval::Refuse(format!(
                "`{name}` was not run: the {rule} asks for approval, and permission mode {} never asks.",
                mode.spelling()
            ))
        }
        RuleVerdict::Ask(rule) => ask(format!(
            "`{name}` was not run: the {rule} needs a person's approval, and nobody can approve in this session."
        )),
        RuleVerdict::Allow(_) if mode != PermissionMode::Plan => Approval::Allow,
        _ => decide(mode, name, kind, read_only),
    }
}

/// What `mode` allows for a tool of `kind` (`read_only` as its spec says).
pub fn decide(mode: PermissionMode, name: &str, kind: ToolKind, read_only: bool) -> Approval {
    // Actions on the session's own tasks and subagents change nothing outside it.
    let harmless = read_only
        || matches!(
            kind,
            ToolKind::KillTaskAction | ToolKind::Task | ToolKind::AgentSwarm
        );
    let edits = kind.writes_files();
    // Plan mode may delegate: the coordinator lets only read-only children start, in plan
    // mode themselves.
    let spawns = matches!(kind, ToolKind::Task | ToolKind::AgentSwarm);
    match mode {
        PermissionMode::BypassPermissions => Approval::Allow,
        PermissionMode::Plan if spawns => Approval::Allow,
        _ if harmless && (read_only || mode != PermissionMode::Plan) => Approval::Allow,
        PermissionMode::Plan => Approval::Refuse(format!(
            "`{name}` was not run: plan mode runs read-only tools only. Present the plan instead."
        )),
        PermissionMode::DontAsk => Approval::Refuse(never_asks(name)),
        PermissionMode::AcceptEdits if edits => Approval::Allow,
        PermissionMode::AcceptEdits => ask(format!(
            "`{name}` was not run: it needs approval, and nobody can approve in this session (an allow rule in --allowedTools or [permissions] allow would permit it; permission mode acceptEdits allows file edits only; bypassPermissions allows everything)."
        )),
        PermissionMode::Default => ask(format!(
            "`{name}` was not run: it needs approval, and nobody can approve in this session (an allow rule in --allowedTools or [permissions] allow would permit it; permission mode acceptEdits allows file edits; bypassPermissions allows everything)."
        )),
    }
}

/// The refusal of a call that would ask, in dontAsk mode.
pub fn never_asks(name: &str) -> String {
    format!(
        "`{name}` was not run: permission mode dontAsk never asks and refuses what no allow rule permits (add one to [permissions] allow or --allowedTools; acceptEdits allows file edits; bypassPermissions allows everything)."
    )
}

fn ask(refusal: String) -> Approval {
    Approval::Ask { refusal }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(mode: PermissionMode, kind: ToolKind, read_only: bool) -> bool {
        decide(mode, "t", kind, read_only) == Approval::Allow
    }

    #[test]
    fn what_a_person_could_allow_is_asked_and_plan_mode_refuses() {
        let ask = decide(PermissionMode::Default, "run", ToolKind::Execute, false);
        assert!(
            matches!(&ask, Approval::Ask { refusal } if refusal.contains("acceptEdits")),
            "{ask:?}"
        );
        assert!(matches!(
            decide(PermissionMode::AcceptEdits, "run", ToolKind::Execute, false),
            Approval::Ask { .. }
        ));
        assert!(matches!(
            decide(PermissionMode::Plan, "edit", ToolKind::Edit, false),
            Approval::Refuse(_)
        ));
    }

    #[test]
    fn each_mode_allows_what_it_says() {
        use ToolKind::{Edit, Execute, KillTaskAction, Read, Write};
        // (mode, read, edit, execute)
        let table = [
            (PermissionMode::Default, true, false, false),
            (PermissionMode::AcceptEdits, true, true, false),
            (PermissionMode::DontAsk, true, false, false),
            (PermissionMode::BypassPermissions, true, true, true),
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
        assert!(allowed(PermissionMode::Plan, ToolKind::Task, false));
    }
}
