//! `glob`: files whose paths match a pattern, honouring `.gitignore`. A pattern without `/`
//! matches file names at any depth (`*.rs`); one with `/` matches the path from the search
//! root (`src/**/*.rs`).

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{ToolSpec, built_in_spec};
use crate::context::ToolContext;
use crate::schema::parameters_of;
use crate::tool::{Tool, ToolError, ToolFuture, ToolOutput, parse_arguments};

const MAX_RESULTS: usize = 500;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// `*.rs` matches names at any depth; `src/**/*.rs` matches paths.
    pattern: String,
    /// Folder to search (default: the working directory).
    #[serde(default)]
    path: Option<String>,
}

/// A compiled pattern that knows whether it matches names or paths.
#[derive(Debug)]
pub(crate) struct FileMatcher {
    matcher: GlobMatcher,
    by_name: bool,
}

impl FileMatcher {
    /// Whether `path` (under `root`) matches.
    pub fn matches(&self, root: &Path, path: &Path) -> bool {
        if self.by_name {
            path.file_name()
                .is_some_and(|name| self.matcher.is_match(name))
        } else {
            self.matcher
                .is_match(path.strip_prefix(root).unwrap_or(path))
        }
    }
}

pub(crate) fn file_matcher(pattern: &str) -> Result<FileMatcher, String> {
    let matcher = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| format!("glob `{pattern}`: {e}"))?
        .compile_matcher();
    Ok(FileMatcher {
        matcher,
        by_name: !pattern.contains('/'),
    })
}

/// Walks `root` the way ripgrep does: `.gitignore` (even outside a git repository), hidden
/// files skipped.
pub(crate) fn walk(root: &Path) -> ignore::Walk {
    ignore::WalkBuilder::new(root)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build()
}

/// The tool.
#[derive(Debug)]
pub struct Glob;

impl Tool for Glob {
    fn spec(&self) -> &'static ToolSpec {
        built_in_spec("glob")
    }

    fn parameters(&self) -> Value {
        parameters_of::<Args>()
    }

    fn execute<'a>(&'a self, arguments: Value, context: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(async move {
            let args: Args = parse_arguments("glob", arguments)?;
            let matcher =
                file_matcher(&args.pattern).map_err(|detail| ToolError::InvalidArguments {
                    tool: "glob".into(),
                    detail,
                })?;
            let root = context.resolve(args.path.as_deref().unwrap_or("."));
            let cwd = context.cwd.clone();
            super::blocking("glob", move || {
                let mut found = Vec::new();
                let mut total = 0;
                for entry in walk(&root).flatten() {
                    if entry.file_type().is_some_and(|t| t.is_file())
                        && matcher.matches(&root, entry.path())
                    {
                        total += 1;
                        if found.len() < MAX_RESULTS {
                            found.push(
                                entry
                                    .path()
                                    .strip_prefix(&cwd)
                                    .unwrap_or(entry.path())
                                    .display()
                                    .to_string(),
                            );
                        }
                    }
                }
                if found.is_empty() {
                    return ToolOutput::ok("no files match");
                }
                if total > found.len() {
                    found.push(format!(
                        "(… {} more; narrow the pattern)",
                        total - found.len()
                    ));
                }
                ToolOutput::ok(found.join("\n"))
            })
            .await
        })
    }
}
