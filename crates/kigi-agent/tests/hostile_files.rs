//! Files a repository controls, made hostile: FIFOs and device symlinks where agent files,
//! skills, personas and `AGENTS.md` are expected, oversized files, frontmatter nested 100,000
//! deep, runaway template loops, hidden folders, and completion requirements that can never be
//! met. Each gives a diagnostic naming the file, and none hangs: every call runs on a thread
//! with a ceiling, so a regression fails instead of blocking the suite.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use kigi_agent::{
    AgentBuildError, AgentBuilder, AgentDefinition, Config, Diagnostic, Discovery, FILE_CAP_BYTES,
    FileReport, FileStatus, KigiPaths, PersonaSet, TrustStore,
};

/// Runs `work` on another thread; blocking past the ceiling fails the test.
fn within_ceiling<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("kigi blocked on a hostile file instead of refusing it")
}

struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    agents: PathBuf,
    paths: KigiPaths,
}

fn repo() -> Repo {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let agents = root.join(".kigi/agents");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(&agents).unwrap();
    let paths = KigiPaths::new(tmp.path().join("kigi-home"), Some(tmp.path().join("home")));
    Repo {
        _tmp: tmp,
        root,
        agents,
        paths,
    }
}

fn discovery(repo: &Repo) -> Discovery {
    Discovery::new(
        repo.paths.clone(),
        &Config::default(),
        TrustStore::empty(repo.paths.trust_file()),
    )
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

fn good_agent(dir: &Path, name: &str) {
    std::fs::write(
        dir.join(format!("{name}.md")),
        format!("---\nname: {name}\ndescription: a good one\n---\nbody\n"),
    )
    .unwrap();
}

/// Validates every agent directory of `repo` from its root, on a thread with a ceiling.
fn validate(repo: &Repo) -> Vec<FileReport> {
    let discovery = discovery(repo);
    let root = repo.root.clone();
    within_ceiling(move || discovery.validate_paths(&[], &root))
}

fn report_for<'a>(reports: &'a [FileReport], file: &Path) -> &'a FileReport {
    reports
        .iter()
        .find(|r| r.path == file)
        .unwrap_or_else(|| panic!("no report for {}: {reports:#?}", file.display()))
}

/// The only diagnostic of a file that failed, which must name it.
fn error_of(reports: &[FileReport], file: &Path) -> Diagnostic {
    let report = report_for(reports, file);
    assert_eq!(report.status, FileStatus::Error, "{report:#?}");
    let diagnostic = report.diagnostics[0].clone();
    assert_eq!(diagnostic.file.as_deref(), Some(file), "{diagnostic}");
    assert!(
        diagnostic.to_string().contains(&file.display().to_string()),
        "{diagnostic}"
    );
    diagnostic
}

#[cfg(unix)]
#[test]
fn agent_files_that_are_a_fifo_or_dev_zero_get_a_diagnostic_and_the_rest_load() {
    let repo = repo();
    let fifo = repo.agents.join("pipe.md");
    mkfifo(&fifo);
    let zero = repo.agents.join("zero.md");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    good_agent(&repo.agents, "fine");

    let reports = validate(&repo);
    let fifo_error = error_of(&reports, &fifo);
    assert!(fifo_error.message.contains("a FIFO"), "{fifo_error}");
    let zero_error = error_of(&reports, &zero);
    assert!(
        zero_error.message.contains("a character device"),
        "{zero_error}"
    );
    assert_eq!(
        report_for(&reports, &repo.agents.join("fine.md")).status,
        FileStatus::Ok
    );

    let discovery = discovery(&repo);
    let root = repo.root.clone();
    let found = within_ceiling(move || discovery.discover(&root));
    assert!(found.get("fine").is_some());
    let named: Vec<_> = found
        .diagnostics
        .iter()
        .filter_map(|d| d.file.clone())
        .collect();
    assert!(named.contains(&fifo) && named.contains(&zero), "{named:?}");
}

#[test]
fn an_agent_file_over_the_size_cap_gets_a_diagnostic_not_a_truncation() {
    let repo = repo();
    let big = repo.agents.join("big.md");
    let padding = "x".repeat(usize::try_from(FILE_CAP_BYTES).unwrap());
    std::fs::write(
        &big,
        format!("---\nname: big\ndescription: too big\n---\n{padding}"),
    )
    .unwrap();
    let reports = validate(&repo);
    let error = error_of(&reports, &big);
    assert!(
        error
            .message
            .contains(&format!("{FILE_CAP_BYTES}-byte limit")),
        "{error}"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_skill_gets_a_diagnostic_naming_it() {
    let repo = repo();
    let skill_dir = repo.root.join(".kigi/skills/stuck");
    std::fs::create_dir_all(&skill_dir).unwrap();
    let fifo = skill_dir.join("SKILL.md");
    mkfifo(&fifo);
    let paths = repo.paths.clone();
    let root = repo.root.clone();
    let agent = within_ceiling(move || AgentBuilder::new(root).with_paths(paths).build()).unwrap();
    let diagnostic = agent
        .diagnostics
        .iter()
        .find(|d| d.file.as_deref() == Some(fifo.as_path()))
        .unwrap_or_else(|| panic!("{:#?}", agent.diagnostics));
    assert!(diagnostic.message.contains("a FIFO"), "{diagnostic}");
}

#[cfg(unix)]
#[test]
fn an_agents_md_that_is_a_fifo_fails_the_build_naming_it() {
    let repo = repo();
    let fifo = repo.root.join("AGENTS.md");
    mkfifo(&fifo);
    let paths = repo.paths.clone();
    let root = repo.root.clone();
    let err =
        within_ceiling(move || AgentBuilder::new(root).with_paths(paths).build()).unwrap_err();
    assert!(matches!(err, AgentBuildError::Unreadable { .. }), "{err}");
    assert_eq!(err.file(), Some(fifo.as_path()));
    assert!(err.to_string().contains("a FIFO"), "{err}");
}

#[cfg(unix)]
#[test]
fn an_agents_md_pointing_at_dev_zero_fails_the_build_naming_it() {
    let repo = repo();
    let zero = repo.root.join("AGENTS.md");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let paths = repo.paths.clone();
    let root = repo.root.clone();
    let err =
        within_ceiling(move || AgentBuilder::new(root).with_paths(paths).build()).unwrap_err();
    assert_eq!(err.file(), Some(zero.as_path()), "{err}");
}

#[test]
fn a_huge_agents_md_is_read_only_up_to_its_budget() {
    let repo = repo();
    let file = repo.root.join("AGENTS.md");
    std::fs::write(&file, "y".repeat(4 * 1024 * 1024)).unwrap();
    let agent = AgentBuilder::new(&repo.root)
        .with_paths(repo.paths.clone())
        .with_agents_md_budget(1024)
        .build()
        .unwrap();
    assert!(
        agent
            .system_prompt
            .contains(&format!("{} bytes left out", 4 * 1024 * 1024 - 1024)),
        "{}",
        agent.system_prompt
    );
}

#[cfg(unix)]
#[test]
fn persona_files_that_are_a_fifo_get_a_diagnostic_naming_them() {
    let repo = repo();
    let dir = repo.root.join(".kigi/personas");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("stuck.toml");
    mkfifo(&fifo);
    let paths = repo.paths.clone();
    let root = repo.root.clone();
    let set =
        within_ceiling(move || PersonaSet::discover(&Config::default().subagents, &paths, &root));
    assert!(set.get("stuck").is_none());
    assert!(
        set.diagnostics
            .iter()
            .any(|d| d.file.as_deref() == Some(fifo.as_path()) && d.message.contains("a FIFO")),
        "{:#?}",
        set.diagnostics
    );
}

#[test]
fn frontmatter_nested_100000_deep_is_refused_before_parsing() {
    let repo = repo();
    let deep = repo.agents.join("deep.md");
    std::fs::write(
        &deep,
        format!(
            "---\nname: deep\ndescription: nested\nx: {}\n---\nbody\n",
            "[".repeat(100_000)
        ),
    )
    .unwrap();
    let reports = validate(&repo);
    let error = error_of(&reports, &deep);
    assert_eq!(error.line, Some(4), "{error}");
    assert!(error.message.contains("deeper than 64 levels"), "{error}");
}

#[test]
fn a_runaway_template_loop_in_a_full_body_fails_naming_the_file() {
    let repo = repo();
    let file = repo.agents.join("looper.md");
    std::fs::write(
        &file,
        "---\nname: looper\ndescription: loops\npromptMode: full\n---\n\
         ${% for a in range(100000) %}${% for b in range(100000) %}\
         ${% for c in range(100000) %}x${% endfor %}${% endfor %}${% endfor %}\n",
    )
    .unwrap();
    let reports = validate(&repo);
    let error = error_of(&reports, &file);
    assert!(error.message.contains("template:"), "{error}");
    assert!(error.message.contains("stopped after"), "{error}");
}

#[test]
fn hidden_folders_under_an_agents_directory_are_not_scanned() {
    let repo = repo();
    good_agent(&repo.agents, "visible");
    for hidden in [".routes", ".git", ".drafts/deep"] {
        let dir = repo.agents.join(hidden);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("broken.md"), "no frontmatter at all\n").unwrap();
        good_agent(&dir, "hidden-agent");
    }
    let found = discovery(&repo).discover(&repo.root);
    assert!(found.get("visible").is_some());
    assert!(found.get("hidden-agent").is_none());
    assert_eq!(found.diagnostics, Vec::<Diagnostic>::new());
    let reports = validate(&repo);
    let files: Vec<&Path> = reports.iter().map(|r| r.path.as_path()).collect();
    assert_eq!(files, vec![repo.agents.join("visible.md").as_path()]);
}

#[test]
fn completion_requirement_naming_a_missing_tool_fails_validate_and_build() {
    let repo = repo();
    let file = repo.agents.join("worker.md");
    std::fs::write(
        &file,
        "---\nname: worker\ndescription: must finish\ntools: [read_file, grep]\n\
         completionRequirement:\n  tool: todo_write\n  reminder: Record your todos.\n---\nWork.\n",
    )
    .unwrap();
    let reports = validate(&repo);
    let error = error_of(&reports, &file);
    assert_eq!(error.field.as_deref(), Some("completionRequirement.tool"));
    assert!(
        error
            .message
            .contains("`todo_write` is not one of this agent's tools"),
        "{error}"
    );
    assert!(error.message.contains("read_file, grep"), "{error}");

    let def = AgentDefinition::from_file(&file).unwrap();
    let err = AgentBuilder::new(&repo.root)
        .with_paths(repo.paths.clone())
        .from_definition(def)
        .build()
        .unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "{}: field `completionRequirement.tool`",
            file.display()
        )),
        "{err}"
    );
}

#[test]
fn completion_requirement_on_a_tool_the_agent_has_builds() {
    let repo = repo();
    let text = "---\nname: worker\ndescription: must finish\n\
                tools: [read_file, todo_write, mcp__tracker__*]\n\
                completionRequirement:\n  tool: TOOL\n  reminder: Finish.\n---\nWork.\n";
    for tool in ["todo_write", "mcp__tracker__close"] {
        let def = AgentDefinition::parse(&text.replace("TOOL", tool), None).unwrap();
        let built = AgentBuilder::new(&repo.root)
            .with_paths(repo.paths.clone())
            .from_definition(def)
            .build();
        assert!(built.is_ok(), "{tool}: {:?}", built.err());
    }
    let def = AgentDefinition::parse(&text.replace("TOOL", "mcp__other__x"), None).unwrap();
    let built = AgentBuilder::new(&repo.root)
        .with_paths(repo.paths.clone())
        .from_definition(def)
        .build();
    assert!(built.is_err(), "an MCP tool outside the allowlist");
}
