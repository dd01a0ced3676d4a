//! How a tool call looks in an editor: its ACP kind (from kigi's canonical kind), a human
//! title, and the places it touches.
//!
//! The rule: the view reads the call, never runs anything; paths are shown absolute (ACP
//! wants absolute paths), resolved against the session's folder.

use std::path::Path;

use agent_client_protocol::v1::schema::{ToolCallLocation, ToolKind as AcpKind};
use kigi_protocol::{CanonicalToolMeta, ToolKind};
use serde_json::Value;

/// The ACP kind closest to kigi's `kind` (ACP's set is small; unknowns are `other`).
pub fn acp_kind(kind: ToolKind) -> AcpKind {
    match kind {
        ToolKind::Read | ToolKind::MemoryGet => AcpKind::Read,
        ToolKind::Edit | ToolKind::Write => AcpKind::Edit,
        ToolKind::Delete => AcpKind::Delete,
        ToolKind::Move => AcpKind::Move,
        ToolKind::Search
        | ToolKind::ListDir
        | ToolKind::List
        | ToolKind::Lsp
        | ToolKind::MemorySearch
        | ToolKind::SearchTool => AcpKind::Search,
        ToolKind::Execute
        | ToolKind::BackgroundTaskAction
        | ToolKind::WaitTasksAction
        | ToolKind::KillTaskAction
        | ToolKind::Monitor => AcpKind::Execute,
        ToolKind::WebSearch | ToolKind::WebFetch => AcpKind::Fetch,
        ToolKind::Plan | ToolKind::Task | ToolKind::AgentSwarm => AcpKind::Think,
        ToolKind::EnterPlan | ToolKind::ExitPlan => AcpKind::SwitchMode,
        _ => AcpKind::Other,
    }
}

/// A short title: the envelope's label and the one argument a person looks for
/// (`Read src/lib.rs`, `Bash cargo test`, `Task: list the folder`).
pub fn tool_title(name: &str, meta: Option<&CanonicalToolMeta>, input: &Value) -> String {
    let label = meta.map_or(name, |m| m.label.as_str());
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_owned);
    let subject = text("path")
        .or_else(|| text("file_path"))
        .or_else(|| text("command"))
        .or_else(|| text("pattern").map(|p| format!("`{p}`")))
        .or_else(|| text("description"))
        .or_else(|| text("url"))
        .or_else(|| text("query"));
    match subject {
        Some(subject) => format!("{label} {}", one_line(&subject, 80)),
        None => label.to_owned(),
    }
}

/// The files a call touches, with the first line when the call names one.
pub fn locations(input: &Value, cwd: &Path) -> Vec<ToolCallLocation> {
    let Some(path) = ["path", "file_path"]
        .iter()
        .find_map(|key| input.get(*key).and_then(Value::as_str))
    else {
        return Vec::new();
    };
    let line = ["offset", "line"]
        .iter()
        .find_map(|key| input.get(*key).and_then(Value::as_u64))
        .and_then(|line| u32::try_from(line).ok());
    vec![ToolCallLocation::new(cwd.join(path)).line(line)]
}

/// `text` on one line, cut at `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or_default();
    let mut shown: String = first.chars().take(max).collect();
    if shown.len() < first.len() || text.lines().nth(1).is_some() {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use kigi_protocol::ToolNamespace;
    use serde_json::json;

    fn meta(name: &str, label: &str, kind: ToolKind) -> CanonicalToolMeta {
        CanonicalToolMeta {
            version: 1,
            name: name.into(),
            kind,
            namespace: ToolNamespace::Kigi,
            label: label.into(),
            read_only: true,
            input: None,
            server: None,
        }
    }

    #[test]
    fn kinds_map_to_the_closest_acp_kind() {
        assert_eq!(acp_kind(ToolKind::Write), AcpKind::Edit);
        assert_eq!(acp_kind(ToolKind::ListDir), AcpKind::Search);
        assert_eq!(acp_kind(ToolKind::Execute), AcpKind::Execute);
        assert_eq!(acp_kind(ToolKind::Plan), AcpKind::Think);
        assert_eq!(acp_kind(ToolKind::WebFetch), AcpKind::Fetch);
        assert_eq!(acp_kind(ToolKind::Complete), AcpKind::Other);
    }

    #[test]
    fn titles_name_the_label_and_the_subject() {
        let read = meta("read_file", "Read", ToolKind::Read);
        assert_eq!(
            tool_title("read_file", Some(&read), &json!({"path": "src/lib.rs"})),
            "Read src/lib.rs"
        );
        let bash = meta("run_terminal_cmd", "Bash", ToolKind::Execute);
        assert_eq!(
            tool_title(
                "run_terminal_cmd",
                Some(&bash),
                &json!({"command": "cargo test\necho done"})
            ),
            "Bash cargo test…"
        );
        assert_eq!(tool_title("mystery", None, &json!({})), "mystery");
    }

    #[test]
    fn locations_are_absolute_with_the_line() {
        let found = locations(
            &json!({"path": "src/lib.rs", "offset": 12}),
            Path::new("/repo"),
        );
        assert_eq!(
            serde_json::to_value(&found).unwrap(),
            json!([{"path": "/repo/src/lib.rs", "line": 12}])
        );
        assert!(locations(&json!({"command": "ls"}), Path::new("/repo")).is_empty());
    }
}
