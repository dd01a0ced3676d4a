//! kigi's five permission modes, offered to editors as ACP session modes.
//!
//! The rule: a mode's id is the spelling users write (`acceptEdits`), so an id an editor
//! stored is the same string `--permission-mode` takes.

use agent_client_protocol::v1::schema::{SessionMode, SessionModeState};
use kigi_agent::PermissionMode;

/// Every mode, with its name and one line on what it allows.
const MODES: &[(PermissionMode, &str, &str)] = &[
    (
        PermissionMode::Default,
        "Default",
        "Reads run; edits and commands ask.",
    ),
    (
        PermissionMode::AcceptEdits,
        "Accept edits",
        "Reads and edits inside the workspace run; commands ask.",
    ),
    (
        PermissionMode::Plan,
        "Plan",
        "Read-only: nothing is written and no command runs.",
    ),
    (
        PermissionMode::DontAsk,
        "Don't ask",
        "Never asks: what would ask is refused.",
    ),
    (
        PermissionMode::BypassPermissions,
        "Bypass permissions",
        "Everything runs without asking.",
    ),
];

/// The modes with `current` selected.
pub fn mode_state(current: PermissionMode) -> SessionModeState {
    SessionModeState::new(
        current.spelling(),
        MODES
            .iter()
            .map(|(mode, name, description)| {
                SessionMode::new(mode.spelling(), *name).description(*description)
            })
            .collect(),
    )
}

/// The permission mode an ACP mode id names.
pub fn parse_mode_id(id: &str) -> Option<PermissionMode> {
    PermissionMode::parse(id)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn offers_every_permission_mode_by_its_spelling() {
        let state = mode_state(PermissionMode::Plan);
        assert_eq!(&*state.current_mode_id.0, "plan");
        let ids: Vec<&str> = state.available_modes.iter().map(|m| &*m.id.0).collect();
        assert_eq!(
            ids,
            [
                "default",
                "acceptEdits",
                "plan",
                "dontAsk",
                "bypassPermissions"
            ]
        );
        for id in ids {
            assert_eq!(parse_mode_id(id).map(PermissionMode::spelling), Some(id));
        }
        assert_eq!(parse_mode_id("yolo"), None);
    }
}
