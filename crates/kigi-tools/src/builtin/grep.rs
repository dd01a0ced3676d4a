//! `grep`: a regex search over file contents with ripgrep's own crates, honouring
//! `.gitignore`, skipping binary files, and capping the results.

use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::schema::parameters_of;
use crate::tool::{Tool, ToolError, ToolFuture, ToolOutput, parse_arguments};

const DEFAULT_MAX_RESULTS: usize = 200;
/// Matched lines longer than this are cut.
const MAX_LINE_CHARS: usize = 300;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// Rust regex syntax.
    pattern: String,
    /// File or folder (default: the working directory).
    #[serde(default)]
    path: Option<String>,
    /// Only files matching this glob, e.g. `*.rs`.
    #[serde(default)]
    glob: Option<String>,
    #[serde(default)]
    case_insensitive: bool,
    /// Default 200.
    #[serde(default)]
    max_results: Option<usize>,
}

/// The tool.
#[derive(Debug)]
pub struct Grep;

impl Tool for Grep {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("grep")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("grep", arguments)?;
            let matcher = RegexMatcherBuilder::new()
                .case_insensitive(args.case_insensitive)
                .build(&args.pattern)
                .map_err(|e| ToolError::InvalidArguments {
                    tool: "grep".into(),
                    detail: format!("pattern: {e}"),
                })?;
            let filter = match args.glob.as_deref() {
                Some(glob) => Some(super::glob::file_matcher(glob).map_err(|detail| {
                    ToolError::InvalidArguments {
                        tool: "grep".into(),
                        detail,
                    }
                })?),
                None => None,
            };
            let root = context.resolve(args.path.as_deref().unwrap_or("."));
            if let Some(refusal) = context.secrets.refusal(&root, &context.display(&root)) {
                return Ok(ToolOutput::error(refusal));
            }
            let secrets = context.secrets.clone();
            let cwd = context.cwd.clone();
            let cancel = context.cancel.clone();
            let max = args.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
            super::blocking("grep", move || {
                if !root.exists() {
                    return ToolOutput::error(format!("no such path: {}", root.display()));
                }
                let mut searcher = SearcherBuilder::new()
                    .binary_detection(BinaryDetection::quit(0))
                    .line_number(true)
                    .build();
                let mut results = Vec::new();
                let mut more = false;
                for entry in super::glob::walk(&root).flatten() {
                    if cancel.is_cancelled() {
                        break;
                    }
                    if !entry.file_type().is_some_and(|t| t.is_file()) {
                        continue;
                    }
                    let path = entry.path();
                    if filter.as_ref().is_some_and(|f| !f.matches(&cwd, path))
                        || secrets.deny_read_reason(path).is_some()
                    {
                        continue;
                    }
                    let shown = display(&cwd, path);
                    let _ = searcher.search_path(
                        &matcher,
                        path,
                        UTF8(|line_number, line| {
                            if results.len() >= max {
                                more = true;
                                return Ok(false);
                            }
                            let line: String =
                                line.trim_end().chars().take(MAX_LINE_CHARS).collect();
                            results.push(format!("{shown}:{line_number}:{line}"));
                            Ok(true)
                        }),
                    );
                    if more {
                        break;
                    }
                }
                if results.is_empty() {
                    return ToolOutput::ok("no matches");
                }
                if more {
                    results.push(format!(
                        "(stopped at {max} matches; narrow the pattern or path)"
                    ));
                }
                ToolOutput::ok(results.join("\n"))
            })
            .await
        })
    }
}

fn display(cwd: &Path, path: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}
