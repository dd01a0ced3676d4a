//! The built-in tools, one file each.

pub mod complete_task;
pub mod glob;
pub mod grep;
pub mod list_dir;
pub mod read_file;
pub mod run_terminal_cmd;
pub mod search_replace;
pub mod task_actions;
pub mod todo_write;
pub mod web_fetch;
pub mod web_search;
pub mod write_file;

/// Runs blocking filesystem work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    tool: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, crate::tool::ToolError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|_| crate::tool::ToolError::Cancelled {
            tool: tool.to_owned(),
        })
}
