//! Rendered system prompts in both modes, as snapshots, plus the properties the snapshots
//! rely on (raw bodies in extend mode, vanishing blocks in full mode, section order).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use kigi_agent::{AgentBuilder, AgentDefinition, KigiPaths, PromptEnvironment};

struct Repo {
    tmp: tempfile::TempDir,
}

impl Repo {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(
            root.join("AGENTS.md"),
            "Run `make test` before finishing.\n",
        )
        .unwrap();
        std::fs::write(root.join("app/AGENTS.md"), "The app uses tabs.\n").unwrap();
        let skill = root.join(".kigi/skills/release");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            "---\nname: release\ndescription: Cut a release\n---\nTag, then push.\n",
        )
        .unwrap();
        std::fs::create_dir_all(tmp.path().join("kigi-home")).unwrap();
        std::fs::write(
            tmp.path().join("kigi-home/AGENTS.md"),
            "Answer in English.\n",
        )
        .unwrap();
        Self { tmp }
    }

    fn cwd(&self) -> std::path::PathBuf {
        self.tmp.path().join("repo/app")
    }

    fn build(&self, def: AgentDefinition) -> String {
        let environment = PromptEnvironment {
            os_name: "linux".into(),
            shell_path: "/bin/bash".into(),
            working_directory: "/work/project".into(),
            current_date: "2026-11-30".into(),
        };
        let agent = AgentBuilder::new(self.cwd())
            .with_paths(KigiPaths::new(self.tmp.path().join("kigi-home"), None))
            .with_environment(environment)
            .from_definition(def)
            .build()
            .unwrap();
        agent
            .system_prompt
            .replace(&self.tmp.path().display().to_string(), "[TMP]")
    }
}

fn parse(text: &str) -> AgentDefinition {
    AgentDefinition::parse(text, Some(Path::new("agent.md"))).unwrap()
}

const EXTEND: &str = "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Bash\nskills: [release]\n---\nYou review code.\nShell: ${HOME:-/root} and {{ not_a_variable }} and ${{ tools.read_file }} stay as written.\n";

const FULL: &str = "---\nname: custom\ndescription: Full control\npromptMode: full\ntools: [read_file, search_replace]\ntoolNameOverrides:\n  read_file: Read\n---\nYou are a custom agent.\nUse ${{ tools.read_file }} to read files.\nUse ${{ tools.search_replace }} to edit files.\n${%- if tools.run_terminal_cmd %}\nUse ${{ tools.run_terminal_cmd }} for shell commands.\n${%- endif %}\nLiteral {{ braces }} survive.\n<user_info>\nOS: ${{ os_name }}\nDate: ${{ current_date }}\n</user_info>\n";

#[test]
fn extend_mode_prompt_snapshot() {
    insta::assert_snapshot!("extend_mode", Repo::new().build(parse(EXTEND)));
}

#[test]
fn full_mode_prompt_snapshot() {
    insta::assert_snapshot!("full_mode", Repo::new().build(parse(FULL)));
}

#[test]
fn default_main_agent_prompt_snapshot() {
    let kigi = kigi_agent::built_in_definitions()
        .into_iter()
        .find(|d| d.name == "kigi")
        .unwrap();
    insta::assert_snapshot!("default_main_agent", Repo::new().build(kigi));
}

#[test]
fn extend_mode_appends_body_after_base_template_byte_for_byte() {
    let prompt = Repo::new().build(parse(EXTEND));
    let body = "You review code.\nShell: ${HOME:-/root} and {{ not_a_variable }} and ${{ tools.read_file }} stay as written.";
    let base_end = prompt.find("</user_info>").unwrap();
    let body_at = prompt.find(body).expect("body appended raw");
    assert!(body_at > base_end, "body comes after the base template");
    let agents_md_at = prompt.find("<agents_md>").unwrap();
    let skills_at = prompt.find("<skills>").unwrap();
    assert!(body_at < agents_md_at && agents_md_at < skills_at);
    assert!(prompt.contains("<skill name=\"release\">\nTag, then push.\n</skill>"));
}

#[test]
fn full_mode_renders_the_body_and_drops_disabled_tool_blocks() {
    let prompt = Repo::new().build(parse(FULL));
    assert!(prompt.starts_with("You are a custom agent.\nUse Read to read files.\nUse search_replace to edit files.\nLiteral {{ braces }} survive.\n"));
    assert!(!prompt.contains("shell commands"));
    assert!(
        !prompt.contains("You are kigi"),
        "no base template in full mode"
    );
}

#[test]
fn agents_md_is_read_user_first_then_root_down_to_cwd() {
    let prompt = Repo::new().build(parse(EXTEND));
    let user = prompt.find("Answer in English.").unwrap();
    let root = prompt.find("Run `make test`").unwrap();
    let app = prompt.find("The app uses tabs.").unwrap();
    assert!(user < root && root < app);
}

#[test]
fn agents_md_false_leaves_the_section_out() {
    let text = EXTEND.replace("skills: [release]\n", "agentsMd: false\n");
    let prompt = Repo::new().build(parse(&text));
    assert!(!prompt.contains("<agents_md>"));
}

#[test]
fn default_main_agent_prompt_fits_its_budget() {
    // DESIGN.md: system prompt + tool schemas of the default main agent under 15,000 chars;
    // the prompt alone must leave most of that to the schemas.
    let kigi = kigi_agent::built_in_definitions()
        .into_iter()
        .find(|d| d.name == "kigi")
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let agent = AgentBuilder::new(tmp.path())
        .with_paths(KigiPaths::new(tmp.path().join("none"), None))
        .from_definition(kigi)
        .build()
        .unwrap();
    assert!(
        agent.system_prompt.len() < 4_000,
        "{}",
        agent.system_prompt.len()
    );
}

#[test]
fn full_mode_by_kind_renders_the_agents_tools_of_that_kind_and_empty_for_an_absent_kind() {
    let body = "---\nname: kinds\ndescription: Kinds\npromptMode: full\ntools: [read_file, grep, glob]\ntoolNameOverrides:\n  read_file: Read\n---\nread=[${{ tools.by_kind.read }}]\nsearch=[${{ tools.by_kind.search }}]\nexecute=[${{ tools.by_kind.execute }}]\n";
    let prompt = Repo::new().build(parse(body));
    assert!(
        prompt.starts_with("read=[Read]\nsearch=[grep, glob]\nexecute=[]\n"),
        "{prompt}"
    );
}
