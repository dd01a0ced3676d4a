//! Reading frontmatter fields into an [`AgentDefinition`]. Pure: text in, definition out.

use std::path::Path;

use serde_yaml_ng::{Mapping, Value};

use crate::agent_name::{derive_name, strict_name_problem};
use crate::definition::{AgentDefinition, NamePolicy, ParseOptions};
use crate::diagnostic::Diagnostic;
use crate::error::AgentBuildError;
use crate::fields::Fields;
use crate::frontmatter::{self, FenceError};
use crate::frontmatter_depth;
use crate::frontmatter_recovery;
use crate::settings::{
    CompletionRequirement, Isolation, ModelChoice, OutputFormat, PermissionMode, PromptMode,
    RetryPolicy, ToolConfig, ToolSelection,
};
use crate::suggest::did_you_mean;
use crate::tool_list::{ListKind, read_written, resolve_names};

pub(crate) fn parse(
    text: &str,
    source: Option<&Path>,
    options: ParseOptions,
) -> Result<AgentDefinition, AgentBuildError> {
    let doc = frontmatter::split(text).map_err(|e| AgentBuildError::ParseError {
        file: source.map(Path::to_path_buf),
        line: (e == FenceError::MissingOpening).then_some(1),
        field: None,
        message: e.message().to_owned(),
    })?;
    let mut warnings = Vec::new();
    let mapping = read_mapping(&doc.yaml, doc.yaml_first_line, source, &mut warnings)?;
    let mut fields = Fields::new(source, "", mapping);
    fields.warnings = warnings;

    // Every field is read even after one fails, so the error lists all of them.
    let name = fields.keep(|f| read_name(f, source, options.name_policy).map(Some));
    let description = fields.keep(|f| {
        f.string("description")?
            .filter(|d| !d.trim().is_empty())
            .map(Some)
            .ok_or_else(|| AgentBuildError::MissingField {
                file: source.map(Path::to_path_buf),
                field: "description".into(),
            })
    });

    let mut def = AgentDefinition::new(name.unwrap_or_default(), description.unwrap_or_default());
    def.source = source.map(Path::to_path_buf);
    def.body = doc.body;
    read_settings(&mut def, &mut fields, options);
    let (warnings, errors) = fields.finish_with_errors();
    match AgentBuildError::from_problems(source, errors, warnings.clone()) {
        Some(error) => Err(error),
        None => {
            def.warnings = warnings;
            Ok(def)
        }
    }
}

/// The name a definition file meant to have, read leniently from its text (or its file
/// stem): how a file that failed to load is still found by that name.
pub(crate) fn declared_name(text: Option<&str>, source: &Path) -> Option<String> {
    let declared = text
        .and_then(|text| frontmatter::split(text).ok())
        .and_then(|doc| {
            frontmatter_recovery::recover(&doc.yaml)
                .get("name")
                .and_then(crate::fields::scalar_text)
        })
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty());
    let written = declared.or_else(|| {
        source
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
    })?;
    match strict_name_problem(&written) {
        None => Some(written),
        Some(_) => derive_name(&written),
    }
}

/// Parses the YAML, falling back to line-by-line recovery (with a warning) when strict YAML
/// fails. Errors only when recovery finds neither `name` nor `description`.
fn read_mapping(
    yaml: &str,
    first_line: usize,
    source: Option<&Path>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Mapping, AgentBuildError> {
    frontmatter_depth::check(yaml, frontmatter_depth::MAX_DEPTH).map_err(|deep| {
        AgentBuildError::ParseError {
            file: source.map(Path::to_path_buf),
            line: Some(first_line + deep.line - 1),
            field: None,
            message: deep.message(),
        }
    })?;
    match serde_yaml_ng::from_str::<Value>(yaml) {
        Ok(Value::Mapping(map)) => Ok(map),
        Ok(Value::Null) => Ok(Mapping::new()),
        Ok(other) => Err(AgentBuildError::ParseError {
            file: source.map(Path::to_path_buf),
            line: Some(first_line),
            field: None,
            message: format!(
                "frontmatter must be a mapping of keys to values, found {}",
                crate::fields::describe(&other)
            ),
        }),
        Err(err) => {
            let line = err
                .location()
                .map(|l| first_line + l.line().saturating_sub(1));
            let recovered = frontmatter_recovery::recover(yaml);
            let has = |key: &str| recovered.contains_key(key);
            if !has("name") && !has("description") {
                return Err(AgentBuildError::ParseError {
                    file: source.map(Path::to_path_buf),
                    line,
                    field: None,
                    message: format!("frontmatter is not valid YAML: {err}"),
                });
            }
            let mut warning = Diagnostic::warning(
                source,
                None,
                format!(
                    "frontmatter is not valid YAML ({err}); its keys were recovered line by line"
                ),
            );
            warning.line = line;
            warnings.push(warning);
            Ok(recovered)
        }
    }
}

fn read_name(
    fields: &mut Fields<'_>,
    source: Option<&Path>,
    policy: NamePolicy,
) -> Result<String, AgentBuildError> {
    let file = source.map(Path::to_path_buf);
    let written = fields.string("name")?.filter(|n| !n.trim().is_empty());
    let (written, from_file_name) = match (written, policy) {
        (Some(name), _) => (name, false),
        (None, NamePolicy::Derive) => match source.and_then(Path::file_stem) {
            Some(stem) => (stem.to_string_lossy().into_owned(), true),
            None => {
                return Err(AgentBuildError::MissingField {
                    file,
                    field: "name".into(),
                });
            }
        },
        (None, NamePolicy::Strict) => {
            return Err(AgentBuildError::MissingField {
                file,
                field: "name".into(),
            });
        }
    };
    let Some(problem) = strict_name_problem(&written) else {
        if from_file_name {
            fields.warnings.push(Diagnostic::warning(
                source,
                Some("name"),
                format!("no `name`; using the file name `{written}`"),
            ));
        }
        return Ok(written);
    };
    match (policy, derive_name(&written)) {
        (NamePolicy::Derive, Some(derived)) => {
            fields.warnings.push(Diagnostic::warning(
                source,
                Some("name"),
                format!("`{written}` is not a valid agent name ({problem}); read as `{derived}`"),
            ));
            Ok(derived)
        }
        _ => Err(AgentBuildError::InvalidName {
            file,
            name: written,
            reason: problem.to_owned(),
        }),
    }
}

/// Reads a text field that must be one of the spellings in `choices`.
fn choice<T>(
    fields: &mut Fields<'_>,
    key: &str,
    choices: &[(&str, T)],
) -> Result<Option<T>, AgentBuildError>
where
    T: Copy,
{
    let Some(text) = fields.string(key)? else {
        return Ok(None);
    };
    choices
        .iter()
        .find(|(spelling, _)| *spelling == text)
        .map(|(_, value)| Some(*value))
        .ok_or_else(|| {
            let expected: Vec<_> = choices.iter().map(|(s, _)| format!("`{s}`")).collect();
            let hint = did_you_mean(&text, choices.iter().map(|(s, _)| *s));
            fields.error(
                key,
                format!("`{text}` is not one of {}{hint}", expected.join(", ")),
            )
        })
}

fn read_settings(def: &mut AgentDefinition, fields: &mut Fields<'_>, options: ParseOptions) {
    let catalog = options.catalog;
    if let Some(mode) = fields.keep(|f| {
        choice(
            f,
            "promptMode",
            &[("extend", PromptMode::Extend), ("full", PromptMode::Full)],
        )
    }) {
        def.prompt_mode = mode;
    }

    let allow = fields.keep(|f| read_written(f, "tools"));
    let deny = fields.keep(|f| read_written(f, "disallowedTools"));
    let mut deny_names: Vec<String> = deny
        .map(|d| {
            d.enabled
                .unwrap_or_default()
                .into_iter()
                .chain(d.disabled)
                .collect()
        })
        .unwrap_or_default();
    if let Some(allow) = allow {
        deny_names.extend(allow.disabled);
        if let Some(enabled) = allow.enabled {
            let file = fields.file();
            let names = resolve_names(
                &enabled,
                ListKind::Allow,
                "tools",
                &catalog,
                file,
                &mut fields.warnings,
            );
            def.tools = ToolSelection::Only(names);
        }
    }
    let file = fields.file();
    def.disallowed_tools = resolve_names(
        &deny_names,
        ListKind::Deny,
        "disallowedTools",
        &catalog,
        file,
        &mut fields.warnings,
    );

    if let Some(mode) = fields.keep(|f| choice(f, "permissionMode", PermissionMode::SPELLINGS)) {
        def.permission_mode = mode;
    }
    if let Some(skills) = fields.keep(|f| read_written(f, "skills")) {
        def.skills = skills.enabled.unwrap_or_default();
    }
    if let Some(on) = fields.keep(|f| f.bool("agentsMd")) {
        def.agents_md = on;
    }
    if let Some(format) = fields.keep(|f| {
        choice(
            f,
            "outputFormat",
            &[
                ("default", OutputFormat::Default),
                ("concise", OutputFormat::Concise),
            ],
        )
    }) {
        def.output_format = format;
    }
    if let Some(mut bash) = fields.keep(|f| f.object("bash")) {
        if let Some(t) = bash.keep(|b| b.f64("timeoutSecs")) {
            def.bash.timeout_secs = t;
        }
        if let Some(limit) = bash.keep(|b| b.u64("outputByteLimit")) {
            def.bash.output_byte_limit = limit;
        }
        def.bash.cmd_prefix = bash.keep(|b| b.string("cmdPrefix"));
        fields.absorb(bash);
    }
    def.tool_name_overrides = fields
        .keep(|f| f.string_map("toolNameOverrides").map(Some))
        .unwrap_or_default();
    for (tool, params) in fields
        .keep(|f| f.entries("paramNameOverrides").map(Some))
        .unwrap_or_default()
    {
        let single = Mapping::from_iter([(Value::from(tool.as_str()), params)]);
        let mut nested = Fields::new(fields.file(), "paramNameOverrides.", single);
        let params = nested
            .keep(|n| n.string_map(&tool).map(Some))
            .unwrap_or_default();
        fields.absorb(nested);
        def.param_name_overrides.insert(tool, params);
    }
    if let Some(requirement) =
        fields.keep(|f| read_completion_requirement(def.source.as_deref(), f))
    {
        def.completion_requirement = Some(requirement);
    }
    for (tool, config) in fields
        .keep(|f| f.entries("toolConfig").map(Some))
        .unwrap_or_default()
    {
        let Value::Mapping(map) = config else {
            let error = fields.error(&format!("toolConfig.{tool}"), "expected a mapping");
            fields.record(error);
            continue;
        };
        let prefix = format!("toolConfig.{tool}.");
        let mut config = Fields::new(fields.file(), &prefix, map);
        let retry = config.keep(|c| read_retry(c, "retry"));
        fields.absorb(config);
        def.tool_config.insert(tool, ToolConfig { retry });
    }
    read_agent_settings(def, fields);
}

fn read_retry(fields: &mut Fields<'_>, key: &str) -> Result<Option<RetryPolicy>, AgentBuildError> {
    let Some(mut retry) = fields.object(key)? else {
        return Ok(None);
    };
    let defaults = RetryPolicy::default();
    let policy = RetryPolicy {
        max_retries: retry
            .keep(|r| r.u32("maxRetries"))
            .unwrap_or(defaults.max_retries),
        base_delay_ms: retry
            .keep(|r| r.u64("baseDelayMs"))
            .unwrap_or(defaults.base_delay_ms),
        max_delay_ms: retry
            .keep(|r| r.u64("maxDelayMs"))
            .unwrap_or(defaults.max_delay_ms),
    };
    fields.absorb(retry);
    Ok(Some(policy))
}

fn read_completion_requirement(
    source: Option<&Path>,
    fields: &mut Fields<'_>,
) -> Result<Option<CompletionRequirement>, AgentBuildError> {
    let Some(mut req) = fields.object("completionRequirement")? else {
        return Ok(None);
    };
    let missing = |field: &str| AgentBuildError::MissingField {
        file: source.map(Path::to_path_buf),
        field: format!("completionRequirement.{field}"),
    };
    let tool = req.keep(|r| r.string("tool")?.ok_or_else(|| missing("tool")).map(Some));
    let reminder = req.keep(|r| {
        r.string("reminder")?
            .ok_or_else(|| missing("reminder"))
            .map(Some)
    });
    let recovery = req.keep(|r| read_retry(r, "recovery"));
    fields.absorb(req);
    Ok(tool
        .zip(reminder)
        .map(|(tool, reminder)| CompletionRequirement {
            tool,
            reminder,
            recovery,
        }))
}

/// The keys later issues need and Claude Code agent files carry.
fn read_agent_settings(def: &mut AgentDefinition, fields: &mut Fields<'_>) {
    // Seed 002's spellings `model_alias` and `thinking_effort` name the same settings.
    let model_alias = fields.keep(|f| f.string("model_alias"));
    let model = fields.keep(|f| f.string("model"));
    if model_alias.is_some() && model.is_some() {
        let error = fields.error("model_alias", "`model` is set too: keep one of them");
        fields.record(error);
    }
    if let Some(model) = model_alias.or(model) {
        let model = model.trim();
        def.model = if model.is_empty() || model == "inherit" {
            ModelChoice::Inherit
        } else {
            ModelChoice::Named(model.to_owned())
        };
    }
    let thinking_effort = fields.keep(|f| f.string("thinking_effort"));
    let effort = fields.keep(|f| f.string("effort"));
    if thinking_effort.is_some() && effort.is_some() {
        let error = fields.error("thinking_effort", "`effort` is set too: keep one of them");
        fields.record(error);
    }
    def.effort = thinking_effort.or(effort);
    let (lists, restrict) = crate::model_policy_fields::read_model_lists(fields);
    def.model_lists = lists;
    def.model_profiles = crate::model_profile::read_model_profiles(fields);
    if restrict && def.model == ModelChoice::Inherit {
        let error = fields.error(
            "restrict_models_to_menu",
            "needs `model` naming the default alias: the menu is that alias and the model_profiles aliases",
        );
        fields.record(error);
    }
    def.restrict_models_to_menu = restrict;
    def.capability_mode = fields.keep(|f| {
        let Some(mode) = f.string("capabilityMode")? else {
            return Ok(None);
        };
        mode.parse()
            .map(Some)
            .map_err(|e: kigi_tools::UnknownCapabilityMode| {
                let modes = kigi_tools::CapabilityMode::ALL_MODES.map(|m| m.as_str());
                let hint = did_you_mean(&mode, modes);
                f.error("capabilityMode", format!("{e}{hint}"))
            })
    });
    def.isolation = fields.keep(|f| {
        choice(
            f,
            "isolation",
            &[("none", Isolation::None), ("worktree", Isolation::Worktree)],
        )
    });
    def.background = fields.keep(|f| f.bool("background")).unwrap_or(false);
    def.max_turns = fields.keep(|f| f.u32("maxTurns"));
    def.compaction = fields.keep(|f| {
        let Some(value) = f.json("compaction")? else {
            return Ok(None);
        };
        crate::settings::CompactionSetting::from_value(&value)
            .map(Some)
            .map_err(|message| f.error("compaction", message))
    });
    def.mcp_servers = fields.keep(|f| f.json("mcpServers"));
    def.hooks = fields.keep(|f| f.json("hooks"));
    def.color = fields.keep(|f| f.string("color"));
    def.when_to_use = fields.keep(|f| f.string("whenToUse"));
    def.executor = fields
        .keep(|f| f.string("executor"))
        .filter(|id| !id.trim().is_empty());
    def.private = fields.keep(|f| f.bool("private")).unwrap_or(false);
    def.legacy_override = fields.keep(|f| f.bool("override")).unwrap_or(false);
    def.delegation_notice = fields
        .keep(|f| {
            choice(
                f,
                "delegation_notice",
                &[
                    ("auto", crate::definition::DelegationNotice::Auto),
                    ("off", crate::definition::DelegationNotice::Off),
                ],
            )
        })
        .unwrap_or_default();
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::diagnostic::Severity;

    #[test]
    fn every_problem_of_a_file_is_reported_at_once_errors_first() {
        let text = "---\nname: broken\ndescription: d\npermissionMode: acceptEdit\n\
                    maxTurns: many\ntools: [Reed]\ncolour: red\nbash:\n  timeoutSecs: soon\n---\n";
        let err = parse(text, Some(Path::new("a.md")), ParseOptions::default()).unwrap_err();
        let found: Vec<(Severity, String, String)> = err
            .to_diagnostics()
            .into_iter()
            .map(|d| (d.severity, d.field.unwrap_or_default(), d.message))
            .collect();
        let expected = [
            (
                Severity::Error,
                "permissionMode",
                "`acceptEdit` is not one of `default`, `acceptEdits`, `dontAsk`, `plan`, `bypassPermissions`; did you mean `acceptEdits`?",
            ),
            (
                Severity::Error,
                "bash.timeoutSecs",
                "expected a non-negative number, found `soon`",
            ),
            (
                Severity::Error,
                "maxTurns",
                "expected a whole number, found `many`",
            ),
            (
                Severity::Warning,
                "tools",
                "`Reed` is not a kigi tool; left out; did you mean `Read`?",
            ),
            (
                Severity::Warning,
                "colour",
                "unknown key, ignored; did you mean `color`?",
            ),
        ];
        let expected: Vec<_> = expected
            .into_iter()
            .map(|(s, f, m)| (s, f.to_owned(), m.to_owned()))
            .collect();
        assert_eq!(found, expected);
        let said = err.to_string();
        assert!(
            said.starts_with("a.md: 3 errors: field `permissionMode`: ")
                && said.ends_with("(and 2 warnings; `kigi agents validate` lists them)"),
            "{said}"
        );
    }

    #[test]
    fn executor_names_the_engine_a_child_runs_on() {
        let text = "---\nname: a\ndescription: d\nexecutor: claude-code\n---\nbody";
        let def = parse(text, None, ParseOptions::default()).unwrap();
        assert_eq!(def.executor.as_deref(), Some("claude-code"));
        assert!(def.warnings.is_empty(), "{:?}", def.warnings);
        let native = parse(
            "---\nname: a\ndescription: d\n---\n",
            None,
            ParseOptions::default(),
        );
        assert_eq!(native.unwrap().executor, None);
        let list = parse(
            "---\nname: a\ndescription: d\nexecutor: [x]\n---\n",
            None,
            ParseOptions::default(),
        );
        assert!(list.unwrap_err().to_string().contains("executor"));
    }

    #[test]
    fn a_lone_error_is_returned_as_itself() {
        let text = "---\nname: a\ndescription: d\nmaxTurns: many\n---\n";
        let err = parse(text, None, ParseOptions::default()).unwrap_err();
        assert!(
            matches!(err, AgentBuildError::ParseError { ref field, .. } if field.as_deref() == Some("maxTurns")),
            "{err:?}"
        );
    }

    #[test]
    fn a_failed_file_is_known_by_the_name_it_declares_or_its_stem() {
        let path = Path::new("/x/Code Reviewer.md");
        assert_eq!(
            declared_name(Some("---\nname: reviewer\nmaxTurns: [\n---\n"), path).as_deref(),
            Some("reviewer")
        );
        assert_eq!(
            declared_name(Some("no fences"), path).as_deref(),
            Some("code-reviewer")
        );
        assert_eq!(
            declared_name(None, Path::new("/x/a.md")).as_deref(),
            Some("a")
        );
    }
}
