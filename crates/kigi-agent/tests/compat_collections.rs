//! Agent files as people write them for Claude Code, Gemini CLI and OpenCode: each shape the
//! survey found loads (with warnings where kigi guessed), and only hopeless files are skipped.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use kigi_agent::{
    AgentDefinition, Config, Discovery, KigiPaths, ModelChoice, NamePolicy, ParseOptions, Severity,
    ToolSelection, TrustStore,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/compat")
        .join(name)
}

fn load(name: &str) -> AgentDefinition {
    let options = ParseOptions {
        name_policy: NamePolicy::Derive,
        ..ParseOptions::default()
    };
    AgentDefinition::from_file_with(fixture(name), options)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn warning_fields(def: &AgentDefinition) -> Vec<String> {
    def.warnings
        .iter()
        .map(|w| w.field.clone().unwrap_or_else(|| "<yaml>".into()))
        .collect()
}

fn only(names: &[&str]) -> ToolSelection {
    ToolSelection::Only(names.iter().map(|n| n.to_string()).collect())
}

#[test]
fn unquoted_colon_in_description_is_recovered_with_a_warning_naming_file_and_line() {
    let def = load("unquoted-colon.md");
    assert_eq!(
        def.description,
        "Use this agent when the user asks about data protection. Triggers on: 'GDPR', 'privacy', 'consent'"
    );
    assert_eq!(def.tools, only(&["read_file", "grep"]));
    assert_eq!(def.model, ModelChoice::Named("sonnet".into()));
    let yaml = &def.warnings[0];
    assert_eq!(
        yaml.file.as_deref(),
        Some(fixture("unquoted-colon.md").as_path())
    );
    assert_eq!(yaml.line, Some(3));
    assert!(yaml.message.contains("recovered line by line"));
}

#[test]
fn example_dialogue_stays_in_the_description() {
    let def = load("example-dialogue.md");
    assert!(
        def.description.contains("user: \"I finished the parser\""),
        "{}",
        def.description
    );
    assert!(
        def.description
            .contains("assistant: \"I'll use the test-writer agent to cover it\"")
    );
    assert!(def.description.ends_with("</example>"));
    assert_eq!(
        def.tools,
        only(&["read_file", "write_file", "run_terminal_cmd"])
    );
    assert_eq!(def.color.as_deref(), Some("green"));
}

#[test]
fn literal_newline_escapes_display_as_line_breaks() {
    let def = load("escaped-newlines.md");
    assert_eq!(def.description, "First line.\\nSecond line.\\nThird line.");
    assert_eq!(
        def.display_description(),
        "First line.\nSecond line.\nThird line."
    );
}

#[test]
fn block_scalars_comments_and_quoted_colons_are_standard_yaml() {
    let def = load("block-scalars.md");
    assert_eq!(def.description, "Folded description over two lines.\n");
    assert_eq!(
        def.when_to_use.as_deref(),
        Some("Literal block\nkeeps lines.\n")
    );
    assert_eq!(def.color.as_deref(), Some("blue"));
    assert_eq!(def.effort.as_deref(), Some("high: really"));
    assert!(def.warnings.is_empty(), "{:?}", def.warnings);
}

#[test]
fn later_fences_and_template_syntax_stay_in_the_body_byte_for_byte() {
    let def = load("body-rules.md");
    let expected = "Intro.\n\n---\n\nAfter a rule. Shell: ${VAR:-default} and ${#array[@]}. Template: {{ user.name }} {% raw %}.\n---\n";
    assert_eq!(def.body, expected);
    let tmp = tempfile::tempdir().unwrap();
    let agent = kigi_agent::AgentBuilder::new(tmp.path())
        .with_paths(KigiPaths::new(tmp.path().join("none"), None))
        .from_definition(def)
        .build()
        .unwrap();
    assert!(agent.system_prompt.contains(expected.trim_matches('\n')));
}

#[test]
fn missing_final_newlines_are_fine() {
    assert_eq!(
        load("no-final-newline.md").body,
        "Last line without newline"
    );
    assert_eq!(load("bare-fence.md").body, "");
}

#[test]
fn tools_load_in_all_four_shapes() {
    assert_eq!(
        load("tools-string.md").tools,
        only(&["read_file", "grep", "glob"])
    );
    assert_eq!(
        load("tools-list.md").tools,
        only(&["read_file", "run_terminal_cmd", "grep"])
    );
    assert_eq!(load("tools-single.md").tools, only(&["run_terminal_cmd"]));
    let mapping = load("tools-mapping.md");
    assert_eq!(
        mapping.tools,
        ToolSelection::All,
        "OpenCode switches only turn tools off"
    );
    assert_eq!(
        mapping.disallowed_tools,
        vec!["run_terminal_cmd", "write_file"]
    );
    assert_eq!(
        mapping.name, "tools-mapping",
        "no name: the file name stands in"
    );
}

#[test]
fn foreign_tool_names_are_mapped_dropped_or_kept_never_widened() {
    let def = load("foreign-tools.md");
    assert_eq!(
        def.tools,
        only(&[
            "read_file",
            "web_fetch",
            "web_search",
            "mcp__github__create_issue",
            "mcp__db__*"
        ])
    );
    let messages: Vec<_> = def.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(
        messages,
        vec![
            "`NotebookEdit` has no kigi equivalent; left out",
            "`Bash(git status)`: kigi cannot restrict a tool by its arguments; left out",
        ]
    );
}

#[test]
fn keys_kigi_does_not_use_warn_and_same_concepts_are_honoured() {
    let def = load("foreign-keys.md");
    assert_eq!(def.max_turns, Some(9));
    let mut fields = warning_fields(&def);
    fields.sort();
    assert_eq!(
        fields,
        vec![
            "author",
            "category",
            "id",
            "maxTurns",
            "permissions",
            "tags",
            "temperature",
            "version"
        ]
    );
}

#[test]
fn names_from_other_harnesses_are_derived_in_compat_directories_only() {
    assert_eq!(load("OpenCoder Agent.md").name, "opencoder");
    assert_eq!(load("dotted-name.md").name, "dotnet-framework-4-8-expert");
    let strict = AgentDefinition::from_file(fixture("dotted-name.md"));
    assert!(matches!(
        strict,
        Err(kigi_agent::AgentBuildError::InvalidName { .. })
    ));
}

#[test]
fn unknown_model_names_are_kept_for_display_and_run_as_inherit() {
    let def = load("unquoted-colon.md");
    assert_eq!(def.model.to_string(), "sonnet");
    assert_eq!(def.model.effective(&[]), ModelChoice::Inherit);
    assert_eq!(
        def.model.effective(&["sonnet".to_owned()]),
        ModelChoice::Named("sonnet".into()),
        "a configured alias of the same name wins"
    );
    assert_eq!(
        ModelChoice::Named("gemini-2.5-pro".into()).effective(&["fast".to_owned()]),
        ModelChoice::Inherit
    );
}

fn compat_discovery(project: &Path, config: &str) -> kigi_agent::DiscoveryReport {
    let home = project.join("home");
    let paths = KigiPaths::new(project.join("kigi-home"), Some(home));
    let config = Config::parse(config, Path::new("config.toml")).unwrap();
    let trust = TrustStore::empty(paths.trust_file());
    Discovery::new(paths, &config, trust).discover(project)
}

#[test]
fn discovery_loads_every_fixture_but_the_hopeless_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".claude/agents");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(fixture("")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    let report = compat_discovery(tmp.path(), "");
    let errors: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            d.file
                .as_ref()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(errors, vec!["no-frontmatter.md", "unrecoverable.md"]);
    let loaded = report
        .agents
        .iter()
        .filter(|a| a.definition.source.is_some())
        .count();
    assert_eq!(loaded, 15);
    let model_warning = report
        .diagnostics
        .iter()
        .find(|d| d.field.as_deref() == Some("model"))
        .unwrap();
    assert!(model_warning.message.contains("parent's model"));

    let with_alias = compat_discovery(tmp.path(), "[models.sonnet]\nprovider = 'anthropic'\n");
    assert!(
        !with_alias
            .diagnostics
            .iter()
            .any(|d| d.field.as_deref() == Some("model"))
    );
}

/// Ten shapes people write, cycled over 1,000 files; the tenth has no frontmatter at all.
fn mixed_shape(i: usize) -> String {
    match i % 10 {
        0 => format!("---\nname: agent-{i}\ndescription: Plain\n---\nBody {i}\n"),
        1 => format!(
            "---\nname: agent-{i}\ndescription: Use when: asked. Triggers on: 'x'\ntools: Read, Grep\n---\n"
        ),
        2 => format!(
            "---\nname: agent-{i}\ndescription: Use this.\\n<example>\nuser: \"hi\"\nassistant: \"hello\"\n</example>\nmodel: opus\n---\n"
        ),
        3 => format!("---\nname: Agent {i}\ndescription: >\n  Folded\n  text\n---\n"),
        4 => format!(
            "---\nname: agent-{i}\ndescription: \"Quoted: yes\"\ntools:\n  read: true\n  bash: false\n---\n"
        ),
        5 => format!("\u{feff}---\r\nname: agent-{i}\r\ndescription: CRLF\r\n---\r\nbody\r\n"),
        6 => format!("---\nname: agent-{i}\ndescription: Rules\n---\nA\n---\nB ${{X}} {{{{ y }}}}"),
        7 => format!(
            "---\nname: agent.{i}\ndescription: Dotted # comment\ntemperature: 0.3\nmax_turns: 4\n---\n"
        ),
        8 => "---\ndescription: No name, OpenCode style\nmode: subagent\n---\n".to_owned(),
        _ => format!("# Notes {i}\n"),
    }
}

#[test]
fn every_recoverable_file_of_a_thousand_mixed_shapes_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".claude/agents");
    for i in 0..1000 {
        let sub = dir.join(format!("group-{}", i % 7));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("file-{i}.md")), mixed_shape(i)).unwrap();
    }
    let report = compat_discovery(tmp.path(), "");
    let loaded = report
        .agents
        .iter()
        .filter(|a| a.definition.source.is_some())
        .count();
    let skipped = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    assert_eq!(
        loaded,
        900,
        "{:?}",
        report
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error && !d.message.contains("no frontmatter"))
    );
    assert_eq!(skipped, 100);
    assert!(report.shadowed.is_empty());
}
