//! MiniJinja with kigi's delimiters: `${{ }}`, `${% %}` and `${# #}`, so literal `{{ }}`,
//! `{% %}` and `{# #}` in prose (templating examples, shell snippets) pass through untouched.
//!
//! The rule: every render runs on [`FUEL`], so a template from a repository (a `promptMode:
//! full` body) cannot spin: a loop too large for a prompt fails in milliseconds.

use std::collections::BTreeMap;
use std::path::Path;

use kigi_protocol::ToolKind;
use kigi_tools::ToolCatalog;
use minijinja::Environment;
use minijinja::syntax::SyntaxConfig;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::error::AgentBuildError;

/// Facts about the machine and session that prompts may mention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromptEnvironment {
    /// `linux`, `macos`, `windows`, …
    pub os_name: String,
    pub shell_path: String,
    pub working_directory: String,
    /// The local date, `YYYY-MM-DD`.
    pub current_date: String,
}

impl PromptEnvironment {
    /// Reads the real machine: OS, `$SHELL` (default `/bin/sh`) and today's local date.
    pub fn detect(cwd: &Path) -> Self {
        Self {
            os_name: std::env::consts::OS.to_owned(),
            shell_path: std::env::var("SHELL").unwrap_or_else(|_| "/bin/sh".to_owned()),
            working_directory: cwd.display().to_string(),
            current_date: chrono::Local::now().format("%Y-%m-%d").to_string(),
        }
    }
}

/// The variables a prompt template sees.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TemplateContext<'a> {
    /// Canonical tool name → model-facing name; empty for a disabled tool, so
    /// `${% if tools.x %}` blocks vanish. Templates also see `tools.by_kind.<kind>`
    /// (see [`serialize_tools`]).
    #[serde(serialize_with = "serialize_tools")]
    pub(crate) tools: &'a BTreeMap<String, String>,
    #[serde(flatten)]
    pub(crate) environment: &'a PromptEnvironment,
    /// `outputFormat: concise`.
    pub(crate) concise: bool,
}

/// Writes `tools` as the template sees it: every canonical name, plus `by_kind`, which maps a
/// [`ToolKind`] wire name (`read`, `search`, …) to the model-facing names of the agent's tools of
/// that kind, comma-separated in catalog order. Seed 004 has one name per kind; kigi has kinds
/// with several tools (`search`: grep and glob), and naming them all beats silently picking
/// one. A kind the agent has no tool of is absent, so it renders empty and `${% if %}` is false.
fn serialize_tools<S: Serializer>(
    tools: &&BTreeMap<String, String>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut by_kind: BTreeMap<ToolKind, String> = BTreeMap::new();
    for spec in ToolCatalog::built_in().specs() {
        let Some(name) = tools.get(&*spec.name).filter(|name| !name.is_empty()) else {
            continue;
        };
        let names = by_kind.entry(spec.kind).or_default();
        if !names.is_empty() {
            names.push_str(", ");
        }
        names.push_str(name);
    }
    let mut map = serializer.serialize_map(Some(tools.len() + 1))?;
    for (canonical, model_name) in tools.iter() {
        map.serialize_entry(canonical, model_name)?;
    }
    map.serialize_entry("by_kind", &by_kind)?;
    map.end()
}

/// MiniJinja steps one render may take. kigi's base template takes a few thousand; a prompt
/// needing a million is a runaway loop.
pub(crate) const FUEL: u64 = 1_000_000;

fn environment() -> Result<Environment<'static>, minijinja::Error> {
    let mut env = Environment::new();
    env.set_fuel(Some(FUEL));
    let syntax = SyntaxConfig::builder()
        .block_delimiters("${%", "%}")
        .variable_delimiters("${{", "}}")
        .comment_delimiters("${#", "#}")
        .build()?;
    env.set_syntax(syntax);
    Ok(env)
}

/// Renders `source`; errors name `file` and the template line.
pub(crate) fn render(
    source: &str,
    context: &TemplateContext<'_>,
    file: Option<&Path>,
) -> Result<String, AgentBuildError> {
    let to_error = |e: minijinja::Error| {
        let detail = if e.kind() == minijinja::ErrorKind::OutOfFuel {
            format!("rendering stopped after {FUEL} steps (a loop too large for a prompt?): {e}")
        } else {
            e.to_string()
        };
        AgentBuildError::MiniJinjaError {
            file: file.map(Path::to_path_buf),
            message: match e.line() {
                Some(line) => format!("line {line}: {detail}"),
                None => detail,
            },
        }
    };
    let env = environment().map_err(to_error)?;
    env.render_str(
        source,
        minijinja::Value::from(minijinja::value::Serde(context)),
    )
    .map_err(to_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context_render(source: &str, tools: &[(&str, &str)]) -> Result<String, AgentBuildError> {
        context_render_as(source, tools, None)
    }

    fn context_render_as(
        source: &str,
        tools: &[(&str, &str)],
        file: Option<&Path>,
    ) -> Result<String, AgentBuildError> {
        let tools: BTreeMap<String, String> = tools
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let environment = PromptEnvironment {
            os_name: "linux".into(),
            shell_path: "/bin/bash".into(),
            working_directory: "/w".into(),
            current_date: "2026-11-30".into(),
        };
        render(
            source,
            &TemplateContext {
                tools: &tools,
                environment: &environment,
                concise: false,
            },
            file,
        )
    }

    #[test]
    fn a_runaway_nested_loop_runs_out_of_fuel_naming_the_file() {
        let source = "${% for a in range(100000) %}${% for b in range(100000) %}\
                      ${% for c in range(100000) %}x${% endfor %}${% endfor %}${% endfor %}";
        let file = Path::new("/p/.kigi/agents/loop.md");
        let err = context_render_as(source, &[], Some(file)).unwrap_err();
        assert!(
            matches!(err, AgentBuildError::MiniJinjaError { .. }),
            "{err}"
        );
        let text = err.to_string();
        assert!(text.starts_with("/p/.kigi/agents/loop.md: "), "{text}");
        assert!(text.contains("stopped after 1000000 steps"), "{text}");
    }

    #[test]
    fn the_base_template_renders_well_within_the_fuel() {
        let out = context_render(crate::prompt::BASE_TEMPLATE, &[("read_file", "Read")]);
        assert!(out.is_ok(), "{out:?}");
    }

    #[test]
    fn kigi_delimiters_render_and_plain_braces_pass_through() {
        let out = context_render(
            "Use ${{ tools.read_file }} on ${{ os_name }}. Literal {{ x }} {% y %} {# z #} ${HOME}.",
            &[("read_file", "Read")],
        )
        .unwrap();
        assert_eq!(
            out,
            "Use Read on linux. Literal {{ x }} {% y %} {# z #} ${HOME}."
        );
    }

    #[test]
    fn disabled_tool_blocks_vanish() {
        let source = "A\n${%- if tools.run_terminal_cmd %}\nshell\n${%- endif %}\nB";
        assert_eq!(
            context_render(source, &[("run_terminal_cmd", "")]).unwrap(),
            "A\nB"
        );
        assert_eq!(context_render(source, &[]).unwrap(), "A\nB");
        assert_eq!(
            context_render(source, &[("run_terminal_cmd", "sh")]).unwrap(),
            "A\nshell\nB"
        );
    }

    #[test]
    fn by_kind_names_the_agents_tools_of_that_kind_and_absent_kinds_render_empty() {
        let source = "[${{ tools.by_kind.read }}][${{ tools.by_kind.search }}]\
                      [${{ tools.by_kind.execute }}][${{ tools.by_kind.web_fetch }}]\
                      ${% if tools.by_kind.execute %}shell${% endif %}";
        let out = context_render(
            source,
            &[
                ("read_file", "Read"),
                ("grep", "Grep"),
                ("glob", "Glob"),
                ("run_terminal_cmd", ""),
            ],
        )
        .unwrap();
        assert_eq!(out, "[Read][Grep, Glob][][]");
    }

    #[test]
    fn template_errors_are_minijinja_errors_with_a_line() {
        let err = context_render("ok\n${% if %}", &[]).unwrap_err();
        assert!(matches!(err, AgentBuildError::MiniJinjaError { .. }));
        assert!(err.to_string().contains("line 2"), "{err}");
    }
}
