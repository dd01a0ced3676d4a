//! The real `kigi` binary on real directories: agents list/show/validate/new, trust, version.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Sandbox {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    kigi_home: PathBuf,
    repo: PathBuf,
}

impl Sandbox {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let kigi_home = tmp.path().join("kigi-home");
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Self {
            _tmp: tmp,
            home,
            kigi_home,
            repo,
        }
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.repo.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn kigi(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_kigi"))
            .args(args)
            .current_dir(&self.repo)
            .env("HOME", &self.home)
            .env("KIGI_HOME", &self.kigi_home)
            .env_remove("KIGI_MODEL")
            .env_remove("KIGI_BASE_URL")
            .env_remove("KIGI_API_KEY")
            .output()
            .unwrap()
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const REVIEWER: &str = "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nhooks:\n  Stop:\n    - command: echo done\n---\nYou review code carefully.\n";

#[test]
fn version_prints_the_crate_version() {
    let out = Sandbox::new().kigi(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out).trim(),
        format!("kigi {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn agents_list_shows_scopes_sources_and_shadowed_entries() {
    let s = Sandbox::new();
    let project = s.write(".kigi/agents/reviewer.md", REVIEWER);
    std::fs::create_dir_all(s.kigi_home.join("agents")).unwrap();
    std::fs::write(s.kigi_home.join("agents/reviewer.md"), REVIEWER).unwrap();
    let out = s.kigi(&["agents", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let first = &json["agents"][0];
    assert_eq!(first["name"], "reviewer");
    assert_eq!(first["scope"], "project");
    assert_eq!(first["source"], project.display().to_string());
    assert_eq!(first["trusted"], false);
    let names: Vec<_> = json["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        vec![
            "reviewer",
            "kigi",
            "general-purpose",
            "explore",
            "plan",
            "browser-use"
        ]
    );
    assert_eq!(json["shadowed"][0]["scope"], "user");
    assert_eq!(
        json["shadowed"][0]["shadowed_by"],
        project.display().to_string()
    );

    let text = s.kigi(&["agents", "list"]);
    let table = stdout(&text);
    assert!(
        table.contains("reviewer") && table.contains("project") && table.contains("shadowed"),
        "{table}"
    );
}

#[test]
fn agents_show_prints_the_resolved_definition_and_prompt() {
    let s = Sandbox::new();
    s.write(".kigi/agents/reviewer.md", REVIEWER);
    let out = s.kigi(&["agents", "show", "reviewer", "--prompt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("tools:           read_file, grep"), "{text}");
    assert!(text.contains("You review code carefully."), "{text}");
    assert!(text.contains("inline hooks dropped"), "{text}");
}

#[test]
fn agents_show_unknown_name_lists_the_available_ones() {
    let out = Sandbox::new().kigi(&["agents", "show", "nobody"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("no agent named `nobody`"), "{err}");
    assert!(err.contains("general-purpose"), "{err}");
}

#[test]
fn agents_show_refuses_a_name_that_is_a_path() {
    let s = Sandbox::new();
    s.write(".kigi/x.md", REVIEWER);
    let out = s.kigi(&["agents", "show", "../x"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("one plain path component"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn agents_validate_prints_a_line_per_file_and_a_total_and_fails_on_errors() {
    let s = Sandbox::new();
    s.write(
        "agents/good.md",
        "---\nname: good\ndescription: fine\n---\n",
    );
    s.write(
        "agents/odd.md",
        "---\nname: odd\ndescription: extra key\nflavour: mint\n---\n",
    );
    s.write(
        "agents/bad.md",
        "---\nname: bad\ndescription: x\nmaxTurns: many\n---\n",
    );
    let out = s.kigi(&["agents", "validate", "agents"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let verdicts: Vec<_> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(
        verdicts,
        vec![
            "error   agents/bad.md",
            "ok      agents/good.md",
            "warning agents/odd.md",
            "3 files: 1 ok, 1 with warnings, 1 with errors"
        ]
    );
    assert!(
        text.contains("`maxTurns`: expected a whole number, found `many`"),
        "{text}"
    );
    assert!(text.contains("`flavour`: unknown key, ignored"), "{text}");

    let clean = s.kigi(&["agents", "validate", "agents/good.md"]);
    assert_eq!(clean.status.code(), Some(0));
}

#[test]
fn agents_new_writes_a_starter_once_and_never_overwrites() {
    let s = Sandbox::new();
    let out = s.kigi(&["agents", "new", "helper"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let path = s.repo.join(".kigi/agents/helper.md");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("name: helper"));
    std::fs::write(&path, "edited").unwrap();
    let again = s.kigi(&["agents", "new", "helper"]);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("helper.md"), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "edited");

    let user = s.kigi(&["agents", "new", "mine", "--user"]);
    assert!(user.status.success());
    assert!(s.kigi_home.join("agents/mine.md").is_file());
    // With no paths, validate reads every agent directory: the edited file is now broken.
    let listed = stdout(&s.kigi(&["agents", "validate"]));
    assert!(
        listed.contains("ok      ") && listed.contains("mine.md"),
        "{listed}"
    );
    assert!(
        listed.contains("error   ") && listed.contains("helper.md"),
        "{listed}"
    );
    assert!(
        listed.ends_with("2 files: 1 ok, 0 with warnings, 1 with errors\n"),
        "{listed}"
    );
}

#[test]
fn trust_makes_project_hooks_survive_and_revoke_drops_them_again() {
    let s = Sandbox::new();
    s.write(".kigi/agents/reviewer.md", REVIEWER);
    let trusted = |s: &Sandbox| {
        let out = s.kigi(&["agents", "list", "--json"]);
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        json["agents"][0]["trusted"].as_bool().unwrap()
    };
    assert!(!trusted(&s));
    let out = s.kigi(&["trust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("trusted: "));
    assert!(trusted(&s));
    let listed = stdout(&s.kigi(&["trust", "--list"]));
    assert_eq!(
        listed.trim(),
        std::fs::canonicalize(&s.repo)
            .unwrap()
            .display()
            .to_string()
    );
    let show = stdout(&s.kigi(&["agents", "show", "reviewer"]));
    assert!(!show.contains("dropped"), "{show}");
    assert!(s.kigi(&["trust", "--revoke"]).status.success());
    assert!(!trusted(&s));
}

#[test]
fn a_broken_config_is_named_in_the_error() {
    let s = Sandbox::new();
    std::fs::create_dir_all(&s.kigi_home).unwrap();
    std::fs::write(s.kigi_home.join("config.toml"), "[agents\n").unwrap();
    let out = s.kigi(&["agents", "list"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains(&format!(
        "{}",
        Path::new(&s.kigi_home).join("config.toml").display()
    )));
}

#[test]
fn agents_show_says_when_a_model_name_will_not_be_honoured() {
    let s = Sandbox::new();
    s.write(
        ".claude/agents/helper.md",
        "---\nname: helper\ndescription: Helps\nmodel: sonnet\n---\n",
    );
    let text = stdout(&s.kigi(&["agents", "show", "helper"]));
    assert!(
        text.contains(
            "model:           sonnet (not a configured model alias: runs on the parent's model)"
        ),
        "{text}"
    );
    std::fs::create_dir_all(&s.kigi_home).unwrap();
    std::fs::write(
        s.kigi_home.join("config.toml"),
        "[models.sonnet]\nprovider = \"anthropic\"\n",
    )
    .unwrap();
    let text = stdout(&s.kigi(&["agents", "show", "helper"]));
    assert!(text.contains("model:           sonnet\n"), "{text}");
}

#[test]
fn personas_and_roles_are_listed_with_their_sources() {
    let sandbox = Sandbox::new();
    sandbox.write(
        ".kigi/personas/concise.toml",
        "description = \"ours\"\ninstructions = \"Terse.\"\n",
    );
    sandbox.write(".kigi/roles/auditor.toml", "description = \"Audits code\"\ndefault_capability_mode = \"read-only\"\npersona = \"reviewer\"\nprompt_file = \"prompts/auditor.md\"\n");
    sandbox.write("prompts/auditor.md", "You audit.\n");
    sandbox.write(".kigi/roles/Bad Name.toml", "description = \"x\"\n");
    let list = sandbox.kigi(&["personas", "list"]);
    let text = stdout(&list);
    assert!(
        text.lines().any(|l| l.starts_with("concise")
            && l.contains("project (")
            && l.contains("(shadows built-in)")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("reviewer") && l.contains("built-in")),
        "{text}"
    );
    let show = sandbox.kigi(&["personas", "show", "concise"]);
    assert!(stdout(&show).ends_with("\nTerse.\n"), "{}", stdout(&show));
    // Switched off, a persona is still shown whole, and said to be off.
    std::fs::create_dir_all(&sandbox.kigi_home).unwrap();
    std::fs::write(
        sandbox.kigi_home.join("config.toml"),
        "[subagents.persona_toggle]\nconcise = false\n",
    )
    .unwrap();
    let off = sandbox.kigi(&["personas", "show", "concise"]);
    assert!(off.status.success(), "{}", stderr(&off));
    assert!(
        stdout(&off).contains("status:      switched off") && stdout(&off).ends_with("\nTerse.\n"),
        "{}",
        stdout(&off)
    );
    let listed = sandbox.kigi(&["personas", "list", "--json"]);
    let value: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let enabled: Vec<(String, bool)> = value["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_owned(),
                e["enabled"].as_bool().unwrap(),
            )
        })
        .filter(|(name, _)| name == "concise" || name == "reviewer")
        .collect();
    assert_eq!(
        enabled,
        [("concise".to_owned(), false), ("reviewer".to_owned(), true)]
    );
    std::fs::remove_file(sandbox.kigi_home.join("config.toml")).unwrap();
    let missing = sandbox.kigi(&["personas", "show", "ghost"]);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("persona `ghost` not found"),
        "{}",
        stderr(&missing)
    );
    let roles = sandbox.kigi(&["roles", "list"]);
    assert!(stdout(&roles).starts_with("auditor"), "{}", stdout(&roles));
    assert!(
        stderr(&roles).contains("Bad Name.toml"),
        "{}",
        stderr(&roles)
    );
    let role = sandbox.kigi(&["roles", "show", "auditor"]);
    let text = stdout(&role);
    assert!(
        text.contains("capability mode: read-only")
            && text.contains("persona:         reviewer")
            && text.ends_with("You audit.\n"),
        "{text}"
    );
}

#[test]
fn agent_descriptions_from_repository_files_are_shown_not_obeyed_on_a_terminal() {
    let s = Sandbox::new();
    s.write(
        ".kigi/agents/evil.md",
        "---\nname: evil\ndescription: \"Looks fine \\x1b]0;pwned\\x07 really\"\n---\nBody.\n",
    );
    let list = s.kigi(&["agents", "list"]);
    assert!(list.status.success(), "{}", stderr(&list));
    let text = stdout(&list);
    assert!(text.contains("evil"), "{text}");
    assert!(!list.stdout.contains(&0x1b), "{text:?}");
    assert!(!list.stdout.contains(&0x07), "{text:?}");
    assert!(text.contains("Looks fine ^[]0;pwned^G really"), "{text:?}");

    let show = s.kigi(&["agents", "show", "evil"]);
    assert!(show.status.success(), "{}", stderr(&show));
    assert!(!show.stdout.contains(&0x1b), "{:?}", stdout(&show));
    assert!(
        stdout(&show).contains("Looks fine ^[]0;pwned^G really"),
        "{:?}",
        stdout(&show)
    );

    let json = s.kigi(&["agents", "list", "--json"]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let evil = value["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "evil")
        .unwrap();
    assert_eq!(evil["description"], "Looks fine \x1b]0;pwned\x07 really");
}

#[test]
fn persona_and_role_descriptions_are_shown_not_obeyed_on_a_terminal() {
    let s = Sandbox::new();
    s.write(
        ".kigi/personas/sly.toml",
        "description = \"calm \\u001b]0;pwned\\u0007\"\ninstructions = \"Be \\u001b[2J sly.\"\n",
    );
    s.write(
        ".kigi/roles/spy.toml",
        "description = \"quiet \\u001b]0;pwned\\u0007\"\n",
    );
    for args in [
        ["personas", "list", ""].as_slice(),
        &["personas", "show", "sly"],
        &["roles", "list"],
        &["roles", "show", "spy"],
    ] {
        let args: Vec<&str> = args.iter().copied().filter(|a| !a.is_empty()).collect();
        let out = s.kigi(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(!out.stdout.contains(&0x1b), "{args:?}: {text:?}");
        assert!(text.contains("^[]0;pwned^G"), "{args:?}: {text:?}");
    }
    let show = s.kigi(&["personas", "show", "sly"]);
    assert!(
        stdout(&show).ends_with("\nBe ^[[2J sly.\n"),
        "{:?}",
        stdout(&show)
    );
}
