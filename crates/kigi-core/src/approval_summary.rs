//! The one-line (or one-diff) summary an approval request shows: the command line for a
//! shell call, the file and a unified diff for an edit, the file and its new content for a
//! write. Pure: a function of the call's canonical arguments.

use serde_json::Value;

/// Lines of new content shown for a write before it is cut.
const WRITE_PREVIEW_LINES: usize = 40;

/// What a person reads before allowing `canonical` with `arguments`.
pub fn approval_summary(canonical: &str, arguments: &Value) -> String {
    let text = |key: &str| arguments.get(key).and_then(Value::as_str);
    match canonical {
        "run_terminal_cmd" => text("command").unwrap_or_default().to_owned(),
        "search_replace" => {
            let path = text("path").unwrap_or_default();
            unified_diff(
                path,
                text("old_string").unwrap_or_default(),
                text("new_string").unwrap_or_default(),
            )
        }
        "write_file" => {
            let path = text("path").unwrap_or_default();
            let content = text("content").unwrap_or_default();
            let total = content.lines().count();
            let mut out = format!("write {path} ({total} lines)\n--- /dev/null\n+++ {path}\n");
            for line in content.lines().take(WRITE_PREVIEW_LINES) {
                out.push('+');
                out.push_str(line);
                out.push('\n');
            }
            if total > WRITE_PREVIEW_LINES {
                out.push_str(&format!("… {} more lines\n", total - WRITE_PREVIEW_LINES));
            }
            out
        }
        _ => {
            let args = arguments.to_string();
            if args == "{}" {
                canonical.to_owned()
            } else {
                format!("{canonical} {args}")
            }
        }
    }
}

/// What "allow for this session" remembers for a call: the exact command line for a shell
/// call, the canonical tool name for anything else.
pub fn approval_scope(canonical: &str, arguments: &Value) -> String {
    match (canonical, arguments.get("command").and_then(Value::as_str)) {
        ("run_terminal_cmd", Some(command)) => format!("run_terminal_cmd: {}", command.trim()),
        _ => canonical.to_owned(),
    }
}

/// A unified diff of one replaced hunk: the old lines removed, the new lines added.
fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let mut out = format!(
        "--- {path}\n+++ {path}\n@@ -1,{} +1,{} @@\n",
        old_lines.len(),
        new_lines.len()
    );
    for line in old_lines {
        out.push('-');
        out.push_str(line);
        out.push('\n');
    }
    for line in new_lines {
        out.push('+');
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_shell_call_shows_its_command_and_an_edit_its_diff() {
        assert_eq!(
            approval_summary("run_terminal_cmd", &json!({"command": "cargo test"})),
            "cargo test"
        );
        assert_eq!(
            approval_summary(
                "search_replace",
                &json!({"path": "a.rs", "old_string": "x = 1\ny", "new_string": "x = 2\ny"})
            ),
            "--- a.rs\n+++ a.rs\n@@ -1,2 +1,2 @@\n-x = 1\n-y\n+x = 2\n+y\n"
        );
        assert_eq!(
            approval_scope("run_terminal_cmd", &json!({"command": " ls "})),
            "run_terminal_cmd: ls"
        );
        assert_eq!(
            approval_scope("write_file", &json!({"path": "a"})),
            "write_file"
        );
        let write = approval_summary("write_file", &json!({"path": "n.txt", "content": "hi\n"}));
        assert_eq!(
            write,
            "write n.txt (1 lines)\n--- /dev/null\n+++ n.txt\n+hi\n"
        );
    }
}
