//! `search_replace`: replace an exact string in a file. It must occur exactly once unless
//! `replace_all` is set, so an edit never lands somewhere the model did not mean.

use std::path::Path;

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
    /// Exact text to find, with enough context to be unique.
    old_string: String,
    new_string: String,
    /// Replace every occurrence.
    #[serde(default)]
    replace_all: bool,
}

/// The tool.
#[derive(Debug)]
pub struct SearchReplace;

impl Tool for SearchReplace {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("search_replace")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("search_replace", arguments)?;
            let path = context.resolve(&args.path);
            if let Err(reason) = context.check_writable(&path) {
                return Ok(ToolOutput::error(reason));
            }
            let shown = context.display(&path);
            // Editing means reading first: a file kigi may not read is not edited either.
            if let Some(refusal) = context.secrets.refusal(&path, &shown) {
                return Ok(ToolOutput::error(refusal));
            }
            if let Some(editor) = &context.editor_files {
                let text = match editor.read_text(&path).await {
                    Ok(text) => text,
                    Err(e) => return Ok(ToolOutput::error(format!("cannot read {shown}: {e}"))),
                };
                let (updated, count) = match replaced(&text, &shown, &args) {
                    Ok(done) => done,
                    Err(refusal) => return Ok(refusal),
                };
                return Ok(match editor.write_text(&path, updated).await {
                    Ok(()) => replaced_report(count, &shown),
                    Err(e) => ToolOutput::error(format!("cannot write {shown}: {e}")),
                });
            }
            super::blocking("search_replace", move || edit(&path, &shown, &args)).await
        })
    }
}

fn edit(path: &Path, shown: &str, args: &Args) -> ToolOutput {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return ToolOutput::error(format!(
            "{shown} is not a regular file (a FIFO, socket or device); not edited"
        ));
    }
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return ToolOutput::error(format!("cannot read {shown}: {e}")),
    };
    let (updated, count) = match replaced(&text, shown, args) {
        Ok(done) => done,
        Err(refusal) => return refusal,
    };
    match write_atomically(path, updated.as_bytes()) {
        Ok(()) => replaced_report(count, shown),
        Err(e) => ToolOutput::error(format!("cannot write {shown}: {e}")),
    }
}

/// `text` with the edit made, and how many occurrences it replaced; or why it was not made.
fn replaced(text: &str, shown: &str, args: &Args) -> Result<(String, usize), ToolOutput> {
    if args.old_string.is_empty() {
        return Err(ToolOutput::error(
            "old_string is empty; use write_file to create a file",
        ));
    }
    if args.old_string == args.new_string {
        return Err(ToolOutput::error(
            "old_string and new_string are the same; nothing to change",
        ));
    }
    let count = text.matches(&args.old_string).count();
    match (count, args.replace_all) {
        (0, _) => Err(ToolOutput::error(format!(
            "old_string was not found in {shown}; read the file and copy the text exactly, whitespace included"
        ))),
        (1, _) | (_, true) => Ok((text.replace(&args.old_string, &args.new_string), count)),
        (n, false) => Err(ToolOutput::error(format!(
            "old_string occurs {n} times in {shown}; add surrounding lines to make it unique, or set replace_all"
        ))),
    }
}

fn replaced_report(count: usize, shown: &str) -> ToolOutput {
    ToolOutput::ok(format!(
        "replaced {count} occurrence{} in {shown}",
        if count == 1 { "" } else { "s" }
    ))
}

/// Writes through a temporary file in the same folder and renames it over `path`, so a crash
/// never leaves half a file.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.kigi-{}.tmp", std::process::id()));
    std::fs::write(&temp, bytes)?;
    if let Ok(metadata) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&temp, metadata.permissions());
    }
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}
