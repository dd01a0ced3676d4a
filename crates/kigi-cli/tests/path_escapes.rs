//! Ways out of the workspace, tried by the model through the real `kigi` binary in
//! acceptEdits (edits inside the workspace run unasked): a symlink a shell command planted, a
//! hard link to a file outside, and `..` through a folder that does not exist yet. Each write
//! is judged on where it really leads, and nothing outside changes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_testkit::Step;
use serde_json::json;
use support::{Env, stderr, tool_results};

#[test]
fn a_symlink_planted_by_a_command_does_not_carry_a_write_outside() {
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let plant = format!("ln -s {} door", outside.path().display());
    let env = Env::new(vec![
        Step::calls(vec![("run_terminal_cmd", json!({"command": plant}))]),
        Step::calls(vec![(
            "write_file",
            json!({"path": "door/x.txt", "content": "escaped"}),
        )]),
        Step::text("done"),
    ]);
    let out = env.kigi(&[
        "-p",
        "go",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Bash(ln:*)",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        env.repo.join("door").is_symlink(),
        "{:?}",
        tool_results(&env)
    );
    assert!(!outside.path().join("x.txt").exists());
    let results = tool_results(&env);
    assert!(results[1].contains("outside the workspace"), "{results:?}");
}

#[test]
fn writing_through_a_hard_link_replaces_the_link_and_leaves_the_outside_file_alone() {
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "original").unwrap();
    let env = Env::new(vec![
        Step::calls(vec![
            (
                "write_file",
                json!({"path": "hard.txt", "content": "changed"}),
            ),
            (
                "search_replace",
                json!({"path": "hard2.txt", "old_string": "original", "new_string": "changed"}),
            ),
        ]),
        Step::text("done"),
    ]);
    // Planted beforehand, as an earlier command could have (the same filesystem is needed).
    if std::fs::hard_link(&victim, env.repo.join("hard.txt")).is_err()
        || std::fs::hard_link(&victim, env.repo.join("hard2.txt")).is_err()
    {
        panic!("the temp folders must share a filesystem for this test");
    }
    let out = env.kigi(&["-p", "go", "--permission-mode", "acceptEdits"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "original",
        "{:?}",
        tool_results(&env)
    );
    assert_eq!(
        std::fs::read_to_string(env.repo.join("hard.txt")).unwrap(),
        "changed"
    );
    assert_eq!(
        std::fs::read_to_string(env.repo.join("hard2.txt")).unwrap(),
        "changed"
    );
}

#[test]
fn dot_dot_through_a_folder_that_does_not_exist_is_judged_where_it_leads() {
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    // More `..` than any temp repository is deep: the extra ones stop at `/`.
    let sneaky = format!(
        "nx/{}{}/x.txt",
        "../".repeat(33),
        outside.path().display().to_string().trim_start_matches('/')
    );
    let env = Env::new(vec![
        Step::calls(vec![(
            "write_file",
            json!({"path": sneaky, "content": "escaped"}),
        )]),
        Step::text("done"),
    ]);
    let out = env.kigi(&["-p", "go", "--permission-mode", "acceptEdits"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!outside.path().join("x.txt").exists());
    assert!(
        tool_results(&env)[0].contains("outside the workspace"),
        "{:?}",
        tool_results(&env)
    );
}

#[test]
fn a_symlink_planted_earlier_in_the_same_response_does_not_carry_a_checked_write_outside() {
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let plant = format!("ln -s {} door", outside.path().display());
    // One response: the command plants the link after the write was checked, before it runs.
    let env = Env::new(vec![
        Step::calls(vec![
            ("run_terminal_cmd", json!({"command": plant})),
            (
                "write_file",
                json!({"path": "door/x.txt", "content": "escaped"}),
            ),
        ]),
        Step::text("done"),
    ]);
    let out = env.kigi(&["-p", "go", "--permission-mode", "bypassPermissions"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        env.repo.join("door").is_symlink(),
        "{:?}",
        tool_results(&env)
    );
    assert!(!outside.path().join("x.txt").exists());
    let results = tool_results(&env);
    assert!(results[1].contains("not written"), "{results:?}");
}
