//! Agent definition files: every field, both prompt modes, CRLF/BOM, each error variant.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kigi_agent::{
    AgentBuildError, AgentBuilder, AgentDefinition, BashSettings, CompletionRequirement, Isolation,
    KigiPaths, ModelChoice, OutputFormat, PermissionMode, PromptMode, RetryPolicy, ToolConfig,
    ToolSelection,
};
use kigi_tools::CapabilityMode;
use serde_json::json;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

#[test]
fn reads_every_field_of_the_frontmatter_table() {
    let def = AgentDefinition::from_file(fixture("fields/every-field.md")).unwrap();
    assert_eq!(def.name, "every-field");
    assert_eq!(def.description, "Exercises every frontmatter key");
    assert_eq!(def.prompt_mode, PromptMode::Full);
    assert_eq!(
        def.tools,
        ToolSelection::Only(vec![
            "read_file".into(),
            "grep".into(),
            "run_terminal_cmd".into(),
            "mcp__github__create_issue".into()
        ])
    );
    assert_eq!(def.disallowed_tools, vec!["run_terminal_cmd"]);
    assert_eq!(def.permission_mode, PermissionMode::AcceptEdits);
    assert_eq!(def.skills, vec!["release", "triage"]);
    assert!(!def.agents_md);
    assert_eq!(def.output_format, OutputFormat::Concise);
    assert_eq!(
        def.bash,
        BashSettings {
            timeout_secs: 30.5,
            output_byte_limit: 4096,
            cmd_prefix: Some("nice -n 10".into())
        }
    );
    assert_eq!(
        def.tool_name_overrides,
        BTreeMap::from([("read_file".to_owned(), "Read".to_owned())])
    );
    assert_eq!(
        def.param_name_overrides["read_file"],
        BTreeMap::from([("path".to_owned(), "file_path".to_owned())])
    );
    assert_eq!(
        def.completion_requirement,
        Some(CompletionRequirement {
            tool: "complete_task".into(),
            reminder: "You stopped without calling `complete_task`.\n".into(),
            recovery: Some(RetryPolicy {
                max_retries: 5,
                base_delay_ms: 5000,
                max_delay_ms: 60000
            }),
        })
    );
    assert_eq!(
        def.tool_config["wait_for_instruction"],
        ToolConfig {
            retry: Some(RetryPolicy {
                max_retries: 1440,
                base_delay_ms: 5000,
                max_delay_ms: 30000
            })
        }
    );
    assert_eq!(def.model, ModelChoice::Named("fast".into()));
    assert_eq!(def.effort.as_deref(), Some("high"));
    assert_eq!(def.capability_mode, Some(CapabilityMode::ReadOnly));
    assert_eq!(def.isolation, Some(Isolation::Worktree));
    assert!(def.background);
    assert_eq!(def.max_turns, Some(12));
    assert_eq!(
        def.mcp_servers,
        Some(json!({"github": {"command": "gh-mcp"}}))
    );
    assert_eq!(
        def.hooks,
        Some(json!({"PreToolUse": [{"command": "echo hi"}]}))
    );
    assert_eq!(def.color.as_deref(), Some("purple"));
    assert_eq!(def.when_to_use.as_deref(), Some("When every field matters"));
    assert_eq!(def.body, "Use ${{ tools.read_file }}.\n");
    assert!(def.warnings.is_empty(), "{:?}", def.warnings);
}

#[test]
fn omitted_fields_take_the_documented_defaults() {
    let def = AgentDefinition::from_file(fixture("fields/defaults.md")).unwrap();
    let mut expected = AgentDefinition::new("defaults", "Only the required keys");
    expected.body = "Body line.\n".into();
    expected.source = Some(fixture("fields/defaults.md"));
    assert_eq!(def, expected);
    assert_eq!(def.bash.timeout_secs, 120.0);
    assert_eq!(def.bash.output_byte_limit, 200_000);
    assert!(def.agents_md);
    assert_eq!(def.tools, ToolSelection::All);
}

#[test]
fn tolerates_crlf_line_endings_and_a_bom() {
    let def = AgentDefinition::from_file(fixture("fields/crlf-bom.md")).unwrap();
    assert_eq!(def.name, "windows");
    assert_eq!(
        def.tools,
        ToolSelection::Only(vec!["read_file".into(), "grep".into()])
    );
    assert_eq!(def.body, "Line one.\nLine two.\n");
}

#[test]
fn tools_empty_list_means_no_tools() {
    let def =
        AgentDefinition::parse("---\nname: a\ndescription: b\ntools: []\n---\n", None).unwrap();
    assert_eq!(def.tools, ToolSelection::Only(vec![]));
    let agent = AgentBuilder::new(std::env::temp_dir())
        .with_paths(KigiPaths::new(
            std::env::temp_dir().join("no-kigi-home"),
            None,
        ))
        .from_definition(def)
        .build()
        .unwrap();
    assert!(agent.tools.is_empty());
}

fn error_of(rel: &str) -> AgentBuildError {
    AgentDefinition::from_file(fixture(rel)).unwrap_err()
}

#[test]
fn bad_yaml_with_nothing_recoverable_is_a_parse_error_naming_file_and_line() {
    let err = error_of("errors/bad-yaml.md");
    assert!(
        matches!(err, AgentBuildError::ParseError { line: Some(_), .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.contains("errors/bad-yaml.md:"), "{text}");
    assert!(text.contains("not valid YAML"), "{text}");
}

#[test]
fn missing_fences_are_parse_errors() {
    for rel in ["errors/no-fences.md", "errors/unclosed.md"] {
        let err = error_of(rel);
        assert!(
            matches!(err, AgentBuildError::ParseError { .. }),
            "{rel}: {err:?}"
        );
        assert!(err.to_string().contains(rel), "{err}");
    }
}

#[test]
fn wrong_type_is_a_parse_error_naming_the_field() {
    let err = error_of("errors/wrong-type.md");
    let AgentBuildError::ParseError { field, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(field.as_deref(), Some("maxTurns"));
    assert!(
        err.to_string()
            .ends_with("field `maxTurns`: expected a whole number, found `lots`"),
        "{err}"
    );
}

#[test]
fn missing_description_is_a_missing_field_error() {
    let err = error_of("errors/missing-description.md");
    assert!(
        matches!(err, AgentBuildError::MissingField { ref field, .. } if field == "description")
    );
    assert!(err.to_string().contains("missing-description.md"));
}

#[test]
fn invalid_name_in_a_kigi_directory_is_refused() {
    let err = error_of("errors/invalid-name.md");
    assert!(
        matches!(err, AgentBuildError::InvalidName { ref name, .. } if name == "Code Reviewer")
    );
    assert!(err.to_string().contains("field `name`"));
}

#[test]
fn unreadable_file_is_an_io_error_naming_it() {
    let err = error_of("errors/does-not-exist.md");
    assert!(matches!(err, AgentBuildError::IoError { .. }));
    assert!(err.to_string().contains("does-not-exist.md"));
}

fn build(def: AgentDefinition) -> Result<kigi_agent::Agent, AgentBuildError> {
    let tmp = std::env::temp_dir();
    AgentBuilder::new(&tmp)
        .with_paths(KigiPaths::new(tmp.join("no-kigi-home"), None))
        .from_definition(def)
        .build()
}

#[test]
fn override_of_a_tool_kigi_lacks_fails_the_build() {
    let def = AgentDefinition::from_file(fixture("errors/unknown-override.md")).unwrap();
    let err = build(def).unwrap_err();
    assert!(
        matches!(err, AgentBuildError::UnknownToolOverride { ref tool, .. } if tool == "teleport")
    );
    assert!(err.to_string().contains("toolNameOverrides"), "{err}");
}

#[test]
fn broken_full_mode_template_is_a_minijinja_error_naming_the_file() {
    let def = AgentDefinition::from_file(fixture("errors/bad-template.md")).unwrap();
    let err = build(def).unwrap_err();
    assert!(
        matches!(err, AgentBuildError::MiniJinjaError { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("bad-template.md"), "{err}");
}

#[test]
fn unknown_keys_are_ignored_with_warnings() {
    let def = AgentDefinition::parse(
        "---\nname: a\ndescription: b\nfavouriteColour: teal\n---\n",
        Some(Path::new("x.md")),
    )
    .unwrap();
    assert_eq!(def.warnings.len(), 1);
    assert_eq!(def.warnings[0].field.as_deref(), Some("favouriteColour"));
}

#[test]
fn denylist_wins_over_allowlist_in_the_built_agent() {
    let def = AgentDefinition::parse(
        "---\nname: a\ndescription: b\ntools: Read, Grep, Bash\ndisallowedTools: [Bash]\n---\n",
        None,
    )
    .unwrap();
    let agent = build(def).unwrap();
    let names: Vec<_> = agent.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["read_file", "grep"]);
}

#[test]
fn claude_code_agent_file_loads_unchanged() {
    let text = "---\nname: code-reviewer\ndescription: Expert code review specialist. Use proactively after writing code.\ntools: Read, Grep, Glob, Bash\nmodel: inherit\npermissionMode: default\nmaxTurns: 20\ncolor: blue\n---\n\nYou are a senior code reviewer.\n";
    let def = AgentDefinition::parse(text, None).unwrap();
    assert!(def.warnings.is_empty(), "{:?}", def.warnings);
    assert_eq!(def.model, ModelChoice::Inherit);
    assert_eq!(
        def.tools,
        ToolSelection::Only(vec![
            "read_file".into(),
            "grep".into(),
            "glob".into(),
            "run_terminal_cmd".into()
        ])
    );
}
