//! Benchmark: `kigi agents validate` (and the discovery `list` uses) over 10,000 agent files in
//! one project directory. Prints figures; asserts nothing about time. Run with
//! `cargo bench -p kigi-agent --bench validate`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use kigi_agent::{Config, Discovery, FileStatus, KigiPaths, TrustStore};

/// `KIGI_BENCH_FILES` overrides the count (for a quick look in a debug build).
fn files() -> usize {
    std::env::var("KIGI_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

fn main() {
    let files = files();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let dir = repo.join(".kigi/agents");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(repo.join("AGENTS.md"), "Run the tests before you finish.\n").unwrap();
    for i in 0..files {
        let text = format!(
            "---\nname: agent-{i}\ndescription: Agent number {i}, for benchmarks\ntools: Read, Grep, Bash\nmaxTurns: 10\n---\nYou are agent {i} on ${{{{ os_name }}}}. Do the task.\n"
        );
        std::fs::write(dir.join(format!("agent-{i}.md")), text).unwrap();
    }
    let paths = KigiPaths::new(tmp.path().join("kigi-home"), Some(tmp.path().join("home")));
    let discovery = Discovery::new(
        paths.clone(),
        &Config::default(),
        TrustStore::empty(paths.trust_file()),
    );

    let start = Instant::now();
    let report = discovery.discover(&repo);
    let list = start.elapsed();
    assert!(report.agents.len() > files);

    let start = Instant::now();
    let reports = discovery.validate_paths(&[], &repo);
    let validate = start.elapsed();
    assert_eq!(reports.len(), files);
    let ok = reports
        .iter()
        .filter(|r| r.status == FileStatus::Ok)
        .count();
    assert_eq!(ok, files, "{:?}", reports[0]);

    println!(
        "{files} agent files in one directory: discovery (`agents list`) {:.3} s, \
         `agents validate` {:.3} s (target < 2 s)",
        list.as_secs_f64(),
        validate.as_secs_f64(),
    );

    // The old shape: each file validated on its own re-reads the folder's AGENTS.md (listing
    // the 10,000-entry directory for it) and skills. Only a slice, since it is quadratic.
    let slice = files.min(2_000);
    let mut sample: Vec<_> = reports.iter().map(|r| r.path.clone()).collect();
    sample.truncate(slice);
    let start = Instant::now();
    for path in &sample {
        assert_eq!(discovery.validate_file(path).status, FileStatus::Ok);
    }
    println!(
        "  for comparison, {slice} of them validated one by one (no per-folder reuse, as before \
         the fix): {:.3} s",
        start.elapsed().as_secs_f64()
    );
}
