//! `list_dir`: a folder's entries, folders first, with a trailing `/`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::schema::parameters_of;
use crate::tool::{Tool, ToolFuture, ToolOutput, parse_arguments};

const MAX_ENTRIES: usize = 1_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// Default: the working directory.
    #[serde(default)]
    path: Option<String>,
}

/// The tool.
#[derive(Debug)]
pub struct ListDir;

impl Tool for ListDir {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("list_dir")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("list_dir", arguments)?;
            let path = context.resolve(args.path.as_deref().unwrap_or("."));
            let shown = context.display(&path);
            super::blocking("list_dir", move || {
                let entries = match std::fs::read_dir(&path) {
                    Ok(entries) => entries,
                    Err(e) => return ToolOutput::error(format!("cannot list {shown}: {e}")),
                };
                let mut dirs = Vec::new();
                let mut files = Vec::new();
                for entry in entries.flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if name == ".git" {
                        continue;
                    }
                    if entry.file_type().is_ok_and(|t| t.is_dir()) {
                        dirs.push(format!("{name}/"));
                    } else {
                        files.push(name);
                    }
                }
                dirs.sort();
                files.sort();
                let total = dirs.len() + files.len();
                let mut out: Vec<String> =
                    dirs.into_iter().chain(files).take(MAX_ENTRIES).collect();
                if total > MAX_ENTRIES {
                    out.push(format!("(… {} more entries)", total - MAX_ENTRIES));
                }
                if out.is_empty() {
                    return ToolOutput::ok(format!(
                        "({} is empty)",
                        if shown.is_empty() { "." } else { &shown }
                    ));
                }
                ToolOutput::ok(out.join("\n"))
            })
            .await
        })
    }
}
