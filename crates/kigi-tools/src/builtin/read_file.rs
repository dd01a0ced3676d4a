//! `read_file`: a text file with line numbers, optionally a range of lines.

use std::io::Read;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::schema::parameters_of;
use crate::tool::{Tool, ToolFuture, ToolOutput, parse_arguments};

/// Files larger than this are refused unless a line range is asked for.
const MAX_BYTES: u64 = 10 * 1024 * 1024;
/// Never read more than this of any file, a line range included.
const HARD_CAP_BYTES: u64 = 64 * 1024 * 1024;
/// Lines returned when no `limit` is given.
const DEFAULT_LINES: usize = 2_000;
/// Bytes inspected for a NUL to call a file binary.
const SNIFF_BYTES: usize = 8_192;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    /// First line to read, 1-based.
    #[serde(default)]
    offset: Option<usize>,
    /// Number of lines (default 2000).
    #[serde(default)]
    limit: Option<usize>,
}

/// The tool.
#[derive(Debug)]
pub struct ReadFile;

impl Tool for ReadFile {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("read_file")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("read_file", arguments)?;
            let path = context.resolve(&args.path);
            let shown = context.display(&path);
            if let Some(refusal) = context.secrets.refusal(&path, &shown) {
                return Ok(ToolOutput::error(refusal));
            }
            if let Some(editor) = &context.editor_files {
                return Ok(match editor.read_text(&path).await {
                    Ok(text) if text.as_bytes()[..text.len().min(SNIFF_BYTES)].contains(&0) => {
                        ToolOutput::error(format!("{shown} is a binary file; not shown"))
                    }
                    Ok(text) => render(&text, &shown, &args),
                    Err(e) => ToolOutput::error(format!("cannot read {shown}: {e}")),
                });
            }
            super::blocking("read_file", move || read(&path, &shown, &args)).await
        })
    }
}

fn read(path: &std::path::Path, shown: &str, args: &Args) -> ToolOutput {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) => return ToolOutput::error(format!("cannot read {shown}: {e}")),
    };
    if metadata.is_dir() {
        return ToolOutput::error(format!("{shown} is a directory; use list_dir"));
    }
    // A FIFO would block the read forever, a device would never end.
    if !metadata.is_file() {
        return ToolOutput::error(format!(
            "{shown} is not a regular file (a FIFO, socket or device); not read"
        ));
    }
    if metadata.len() > MAX_BYTES && args.offset.is_none() && args.limit.is_none() {
        return ToolOutput::error(format!(
            "{shown} is {} bytes; read it in parts with offset and limit",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path)
        .and_then(|file| file.take(HARD_CAP_BYTES).read_to_end(&mut bytes));
    if let Err(e) = read {
        return ToolOutput::error(format!("cannot read {shown}: {e}"));
    }
    if bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0) {
        return ToolOutput::error(format!(
            "{shown} is a binary file ({} bytes); not shown",
            bytes.len()
        ));
    }
    render(&String::from_utf8_lossy(&bytes), shown, args)
}

/// The lines asked for, numbered, with a note when more remain.
fn render(text: &str, shown: &str, args: &Args) -> ToolOutput {
    let total = text.lines().count();
    let first = args.offset.unwrap_or(1).max(1);
    let limit = args.limit.unwrap_or(DEFAULT_LINES).max(1);
    if total == 0 {
        return ToolOutput::ok(format!("({shown} is empty)"));
    }
    if first > total {
        return ToolOutput::error(format!(
            "{shown} has {total} lines; offset {first} is past the end"
        ));
    }
    let mut out = String::with_capacity(text.len().min(limit * 80));
    let mut last = first;
    for (n, line) in text.lines().enumerate().skip(first - 1).take(limit) {
        last = n + 1;
        out.push_str(&format!("{:>6}\t{line}\n", n + 1));
    }
    if first > 1 || last < total {
        out.push_str(&format!(
            "(lines {first}-{last} of {total}{})\n",
            if last < total {
                "; use offset to read on"
            } else {
                ""
            }
        ));
    }
    ToolOutput::ok(out)
}
