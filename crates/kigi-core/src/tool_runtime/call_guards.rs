//! The guards a call meets after the rules and the mode: kigi's instruction files and paths
//! outside the workspace need a person for a write, and where the kernel cannot sandbox
//! commands, every command does.

use kigi_agent::PermissionMode;
use kigi_protocol::ToolKind;
use serde_json::Value;

use super::ToolRuntime;
use crate::protected_paths::protected_reason;

impl ToolRuntime {
    /// Why a file write needs a person (the refusal when nobody can be asked), judged on the
    /// resolved path: kigi's own instruction files (whatever the rules say), and anything
    /// outside the workspace that no `Edit` allow rule covers.
    pub(super) fn write_guard(
        &self,
        name: &str,
        kind: ToolKind,
        arguments: &Value,
    ) -> Option<String> {
        if !kind.writes_files() {
            return None;
        }
        let path = arguments.get("path").and_then(Value::as_str)?;
        let resolved = self.context.resolve(path);
        let shown = self.context.display(&resolved);
        if let Some(what) = protected_reason(&resolved, self.kigi_home.as_deref()) {
            return Some(format!(
                "`{name}` was not run: {shown} is {what}, which kigi reads for its instructions; writing it needs a person's approval, never an automatic one (run kigi interactively, or edit it yourself)"
            ));
        }
        // A child confined to its worktree is refused outright by the tool, never asked.
        if let Some(root) = &self.context.write_root
            && !resolved.starts_with(self.context.resolve(&root.to_string_lossy()))
        {
            return None;
        }
        let workspace = self.context.resolve("");
        if !resolved.starts_with(&workspace) && !self.guard.rules.allows_edit_of(&resolved) {
            return Some(format!(
                "`{name}` was not run: {shown} is outside the workspace ({}); writing there needs a person's approval",
                workspace.display()
            ));
        }
        None
    }

    /// Where the kernel cannot sandbox, a command an allow rule permits still asks in the
    /// modes that ask about commands: nothing runs unconfined without a person.
    pub(super) fn unsandboxed_ask(&self, name: &str, kind: ToolKind) -> Option<String> {
        let reason = self.guard.sandbox_unavailable.as_deref()?;
        (kind.executes()
            && matches!(
                self.mode(),
                PermissionMode::Default | PermissionMode::AcceptEdits | PermissionMode::DontAsk
            ))
        .then(|| {
            format!(
                "`{name}` was not run: kigi cannot sandbox commands on this system ({reason}), so every command needs a person's approval, and nobody can approve in this session (or set [sandbox] mode = \"danger-full-access\" to run commands unconfined)"
            )
        })
    }

    /// Why a command or a worktree apply needs a person whatever the rules say: a command
    /// that redirects into one of kigi's instruction files, and `apply_worktree`, which writes
    /// a child's changes (made under rules anchored at its worktree) into the workspace.
    pub(super) fn command_guard(
        &self,
        name: &str,
        canonical: &str,
        kind: ToolKind,
        arguments: &Value,
    ) -> Option<String> {
        if canonical == "apply_worktree" && self.mode() != PermissionMode::BypassPermissions {
            return Some(format!(
                "`{name}` was not run: applying a subagent's changes to the workspace needs a person's approval"
            ));
        }
        if !kind.executes() {
            return None;
        }
        let command = arguments.get("command").and_then(Value::as_str)?;
        let parts = kigi_agent::permissions::ShellParts::of(command);
        parts.writes.iter().find_map(|target| {
            let resolved = self.context.resolve(target);
            protected_reason(&resolved, self.kigi_home.as_deref()).map(|what| {
                format!(
                    "`{name}` was not run: it writes {}, {what}, which kigi reads for its instructions; that needs a person's approval, never an automatic one",
                    self.context.display(&resolved)
                )
            })
        })
    }
}
