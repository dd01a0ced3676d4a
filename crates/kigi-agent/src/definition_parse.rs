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

    let name = read_name(&mut fields, source, options.name_policy)?;
    let description = fields
        .string("description")?
        .filter(|d| !d.trim().is_empty())
        .ok_or_else(|| AgentBuildError::MissingField {
            file: source.map(Path::to_path_buf),
            field: "description".into(),
        })?;

    let mut def = AgentDefinition::new(name, description);
    def.source = source.map(Path::to_path_buf);
    def.body = doc.body;
    read_settings(&mut def, &mut fields, options)?;
    def.warnings = fields.finish();
    Ok(def)
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
            fields.error(
                key,
                format!("`{text}` is not one of {}", expected.join(", ")),
            )
        })
}

fn read_settings(
    def: &mut AgentDefinition,
    fields: &mut Fields<'_>,
    options: ParseOptions,
) -> Result<(), AgentBuildError> {
    let catalog = options.catalog;
    if let Some(mode) = choice(
        fields,
        "promptMode",
        &[("extend", PromptMode::Extend), ("full", PromptMode::Full)],
    )? {
        def.prompt_mode = mode;
    }

    let allow = read_written(fields, "tools")?;
    let deny = read_written(fields, "disallowedTools")?;
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

    if let Some(mode) = choice(fields, "permissionMode", PermissionMode::SPELLINGS)? {
        def.permission_mode = mode;
    }
    if let Some(skills) = read_written(fields, "skills")? {
        def.skills = skills.enabled.unwrap_or_default();
    }
    if let Some(on) = fields.bool("agentsMd")? {
        def.agents_md = on;
    }
    if let Some(format) = choice(
        fields,
        "outputFormat",
        &[
            ("default", OutputFormat::Default),
            ("concise", OutputFormat::Concise),
        ],
    )? {
        def.output_format = format;
    }
    if let Some(mut bash) = fields.object("bash")? {
        if let Some(t) = bash.f64("timeoutSecs")? {
            def.bash.timeout_secs = t;
        }
        if let Some(limit) = bash.u64("outputByteLimit")? {
            def.bash.output_byte_limit = limit;
        }
        def.bash.cmd_prefix = bash.string("cmdPrefix")?;
        fields.absorb(bash);
    }
    def.tool_name_overrides = fields.string_map("toolNameOverrides")?;
    for (tool, params) in fields.entries("paramNameOverrides")? {
        let single = Mapping::from_iter([(Value::from(tool.as_str()), params)]);
        let mut nested = Fields::new(fields.file(), "paramNameOverrides.", single);
        let params = nested.string_map(&tool)?;
        def.param_name_overrides.insert(tool, params);
    }
    read_completion_requirement(def, fields)?;
    for (tool, config) in fields.entries("toolConfig")? {
        let Value::Mapping(map) = config else {
            return Err(fields.error(&format!("toolConfig.{tool}"), "expected a mapping"));
        };
        let prefix = format!("toolConfig.{tool}.");
        let mut config = Fields::new(fields.file(), &prefix, map);
        let retry = read_retry(&mut config, "retry")?;
        fields.absorb(config);
        def.tool_config.insert(tool, ToolConfig { retry });
    }
    read_agent_settings(def, fields)
}

fn read_retry(fields: &mut Fields<'_>, key: &str) -> Result<Option<RetryPolicy>, AgentBuildError> {
    let Some(mut retry) = fields.object(key)? else {
        return Ok(None);
    };
    let defaults = RetryPolicy::default();
    let policy = RetryPolicy {
        max_retries: retry.u32("maxRetries")?.unwrap_or(defaults.max_retries),
        base_delay_ms: retry.u64("baseDelayMs")?.unwrap_or(defaults.base_delay_ms),
        max_delay_ms: retry.u64("maxDelayMs")?.unwrap_or(defaults.max_delay_ms),
    };
    fields.absorb(retry);
    Ok(Some(policy))
}

fn read_completion_requirement(
    def: &mut AgentDefinition,
    fields: &mut Fields<'_>,
) -> Result<(), AgentBuildError> {
    let Some(mut req) = fields.object("completionRequirement")? else {
        return Ok(());
    };
    let missing = |field: &str| AgentBuildError::MissingField {
        file: def.source.clone(),
        field: format!("completionRequirement.{field}"),
    };
    let tool = req.string("tool")?.ok_or_else(|| missing("tool"))?;
    let reminder = req.string("reminder")?.ok_or_else(|| missing("reminder"))?;
    let recovery = read_retry(&mut req, "recovery")?;
    fields.absorb(req);
    def.completion_requirement = Some(CompletionRequirement {
        tool,
        reminder,
        recovery,
    });
    Ok(())
}

/// The keys later issues need and Claude Code agent files carry.
fn read_agent_settings(
    def: &mut AgentDefinition,
    fields: &mut Fields<'_>,
) -> Result<(), AgentBuildError> {
    if let Some(model) = fields.string("model")? {
        let model = model.trim();
        def.model = if model.is_empty() || model == "inherit" {
            ModelChoice::Inherit
        } else {
            ModelChoice::Named(model.to_owned())
        };
    }
    def.effort = fields.string("effort")?;
    if let Some(mode) = fields.string("capabilityMode")? {
        def.capability_mode = Some(mode.parse().map_err(
            |e: kigi_tools::UnknownCapabilityMode| fields.error("capabilityMode", e.to_string()),
        )?);
    }
    def.isolation = choice(
        fields,
        "isolation",
        &[("none", Isolation::None), ("worktree", Isolation::Worktree)],
    )?;
    def.background = fields.bool("background")?.unwrap_or(false);
    def.max_turns = fields.u32("maxTurns")?;
    def.mcp_servers = fields.json("mcpServers")?;
    def.hooks = fields.json("hooks")?;
    def.color = fields.string("color")?;
    def.when_to_use = fields.string("whenToUse")?;
    Ok(())
}
