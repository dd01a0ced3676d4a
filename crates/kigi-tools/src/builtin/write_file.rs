//! `write_file`: create or overwrite a file (parent folders are created).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::schema::parameters_of;
use crate::tool::{Tool, ToolFuture, ToolOutput, parse_arguments};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    content: String,
}

/// The tool.
#[derive(Debug)]
pub struct WriteFile;

impl Tool for WriteFile {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("write_file")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("write_file", arguments)?;
            let path = context.resolve(&args.path);
            if let Err(reason) = context.check_writable(&path) {
                return Ok(ToolOutput::error(reason));
            }
            let shown = context.display(&path);
            if let Some(editor) = &context.editor_files {
                let existed = path.exists();
                let bytes = args.content.len();
                return Ok(match editor.write_text(&path, args.content).await {
                    Ok(()) => written(existed, &shown, bytes),
                    Err(e) => ToolOutput::error(format!("cannot write {shown}: {e}")),
                });
            }
            super::blocking("write_file", move || {
                let existed = path.exists();
                if let Some(parent) = path.parent()
                    && let Err(e) = std::fs::create_dir_all(parent)
                {
                    return ToolOutput::error(format!("cannot create the folder of {shown}: {e}"));
                }
                match super::search_replace::write_atomically(&path, args.content.as_bytes()) {
                    Ok(()) => written(existed, &shown, args.content.len()),
                    Err(e) => ToolOutput::error(format!("cannot write {shown}: {e}")),
                }
            })
            .await
        })
    }
}

/// What the model is told after a write.
fn written(existed: bool, shown: &str, bytes: usize) -> ToolOutput {
    ToolOutput::ok(format!(
        "{} {shown} ({bytes} bytes)",
        if existed { "overwrote" } else { "created" },
    ))
}
