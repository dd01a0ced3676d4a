//! `todo_write`: the session's task list, replaced whole on each call.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::schema::parameters_of;
use crate::tool::{Tool, ToolFuture, ToolOutput, parse_arguments};

/// One item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    pub content: String,
    pub status: TodoStatus,
}

/// Where an item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// The whole list, in order.
    todos: Vec<TodoItem>,
}

/// The tool.
#[derive(Debug)]
pub struct TodoWrite;

impl Tool for TodoWrite {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("todo_write")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("todo_write", arguments)?;
            let rendered: Vec<String> = args
                .todos
                .iter()
                .map(|item| {
                    let mark = match item.status {
                        TodoStatus::Pending => "[ ]",
                        TodoStatus::InProgress => "[~]",
                        TodoStatus::Completed => "[x]",
                    };
                    format!("{mark} {}", item.content)
                })
                .collect();
            if let Ok(mut todos) = context.todos.lock() {
                *todos = args.todos;
            }
            Ok(ToolOutput::ok(if rendered.is_empty() {
                "todo list cleared".to_owned()
            } else {
                rendered.join("\n")
            }))
        })
    }
}
