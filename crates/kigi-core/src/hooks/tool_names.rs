//! The names a hook matcher and a hook script know a tool by: the model-facing name, kigi's
//! canonical name and Claude Code's name (`Bash`, `Edit`, `Write`, `Read`, …), so a settings
//! file written for Claude Code matches the same tools in kigi.

use serde_json::Value;

/// Claude Code's name for a kigi tool, when it has one.
pub fn claude_name(canonical: &str) -> Option<&'static str> {
    Some(match canonical {
        "run_terminal_cmd" => "Bash",
        "write_file" => "Write",
        "search_replace" => "Edit",
        "read_file" => "Read",
        "glob" => "Glob",
        "grep" => "Grep",
        "list_dir" => "LS",
        "todo_write" => "TodoWrite",
        "spawn_subagent" => "Task",
        "get_task_output" => "BashOutput",
        "kill_task" => "KillShell",
        _ => return None,
    })
}

/// The names a matcher is tried against.
pub fn tool_names<'a>(model_name: &'a str, canonical: &'a str) -> Vec<&'a str> {
    let mut names = vec![model_name, canonical];
    names.extend(claude_name(canonical));
    names
}

/// A call's input as hook scripts read it: kigi's arguments, with `file_path` beside `path`
/// (Claude Code's name for it).
pub fn hook_tool_input(arguments: &Value) -> Value {
    let mut input = arguments.clone();
    if let Some(object) = input.as_object_mut()
        && let Some(path) = object.get("path").cloned()
    {
        object.entry("file_path").or_insert(path);
    }
    input
}

/// A hook's replacement input, back in kigi's names: `file_path` becomes `path` when the
/// hook set only that.
pub fn from_hook_input(mut input: Value) -> Value {
    if let Some(object) = input.as_object_mut()
        && let Some(path) = object.remove("file_path")
    {
        object.entry("path").or_insert(path);
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claude_codes_names_and_fields_are_offered_beside_kigis() {
        assert_eq!(
            tool_names("run_terminal_cmd", "run_terminal_cmd"),
            ["run_terminal_cmd", "run_terminal_cmd", "Bash"]
        );
        assert_eq!(
            hook_tool_input(&json!({"path": "a.rs"})),
            json!({"path": "a.rs", "file_path": "a.rs"})
        );
        assert_eq!(
            from_hook_input(json!({"path": "a.rs", "file_path": "b.rs"})),
            json!({"path": "a.rs"})
        );
        assert_eq!(
            from_hook_input(json!({"file_path": "b.rs"})),
            json!({"path": "b.rs"})
        );
    }
}
