//! Permission rules through the real `kigi` binary and the scripted model: precedence, compound
//! commands, dontAsk, edits outside the workspace, protected paths, a project's rules and its
//! trust, and `kigi permissions`. Every call is a real tool on real files; what the model was
//! told comes back in the next request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_testkit::Step;
use serde_json::{Value, json};
use support::{Env, commands, stderr, stdout, tool_results};

#[test]
fn deny_beats_allow_whatever_file_or_flag_each_came_from() {
    let env = commands(&["touch made.txt", "rm -f keep.txt"]);
    env.write("keep.txt", "keep");
    std::fs::write(
        env.home.join("config.toml"),
        "[permissions]\nallow = [\"Bash\"]\ndeny = [\"Bash(rm:*)\"]\n",
    )
    .unwrap();
    let out = env.kigi(&["-p", "go", "--allowedTools", "Bash(rm:*)"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.repo.join("made.txt").exists());
    assert!(env.repo.join("keep.txt").exists());
    let results = tool_results(&env);
    assert!(
        results[1].contains("deny rule `Bash(rm:*)`") && results[1].contains("config.toml"),
        "{results:?}"
    );
}

#[test]
fn a_compound_command_with_one_part_no_rule_allows_does_not_run() {
    let env = commands(&[
        "touch ok.txt && rm -f keep.txt",
        "touch ok.txt; echo $(rm -f keep.txt)",
        "touch ok.txt",
    ]);
    env.write("keep.txt", "keep");
    let out = env.kigi(&["-p", "go", "--allowedTools", "Bash(touch:*)"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.repo.join("keep.txt").exists());
    let results = tool_results(&env);
    assert!(results[0].contains("was not run"), "{results:?}");
    assert!(results[1].contains("was not run"), "{results:?}");
    assert!(!results[2].contains("was not run"), "{results:?}");
    assert!(env.repo.join("ok.txt").exists());
}

#[test]
fn dont_ask_runs_what_an_allow_rule_permits_and_refuses_the_rest() {
    let env = commands(&["touch allowed.txt", "touch other.txt"]);
    let out = env.kigi(&[
        "-p",
        "go",
        "--permission-mode",
        "dontAsk",
        "--allowedTools",
        "Bash(touch allowed.txt)",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.repo.join("allowed.txt").exists());
    assert!(!env.repo.join("other.txt").exists());
    let results = tool_results(&env);
    assert!(results[1].contains("dontAsk never asks"), "{results:?}");
}

#[test]
fn an_edit_outside_the_workspace_needs_a_rule_and_a_protected_file_a_person() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("notes.txt");
    let steps = || {
        vec![
            Step::calls(vec![
                (
                    "write_file",
                    json!({"path": target.to_str().unwrap(), "content": "x"}),
                ),
                (
                    "write_file",
                    json!({"path": ".kigi/agents/kigi.md", "content": "planted"}),
                ),
            ]),
            Step::text("done"),
        ]
    };
    let env = Env::new(steps());
    let out = env.kigi(&["-p", "go", "--permission-mode", "acceptEdits"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!target.exists());
    assert!(tool_results(&env)[0].contains("outside the workspace"));

    let env = Env::new(steps());
    let rule = format!("Edit(/{}/**)", outside.path().display());
    let out = env.kigi(&[
        "-p",
        "go",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        &rule,
        "--allowedTools",
        "Edit",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "x");
    // No rule makes kigi's instruction files writable without a person.
    assert!(!env.repo.join(".kigi/agents/kigi.md").exists());
    assert!(tool_results(&env)[1].contains("kigi reads for its instructions"));
}

#[test]
fn a_project_allows_only_once_trusted_but_denies_at_once() {
    let settings = "[permissions]\nallow = [\"Bash(touch:*)\"]\ndeny = [\"Bash(rm:*)\"]\n";
    let env = commands(&["touch made.txt", "rm -f keep.txt"]);
    env.write(".kigi/settings.toml", settings);
    env.write("keep.txt", "keep");
    let out = env.kigi(&["-p", "go", "--permission-mode", "bypassPermissions"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // bypassPermissions runs what no rule speaks about, but a project's deny rule still holds.
    assert!(env.repo.join("made.txt").exists());
    assert!(env.repo.join("keep.txt").exists());

    let env = commands(&["touch made.txt"]);
    env.write(".kigi/settings.toml", settings);
    let out = env.kigi(&["-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!env.repo.join("made.txt").exists());
    assert!(
        stderr(&out).contains("allow rule(s) ignored"),
        "{}",
        stderr(&out)
    );

    let env = commands(&["touch made.txt"]);
    env.write(".kigi/settings.toml", settings);
    let trusted = env.kigi(&["trust"]);
    assert!(trusted.status.success(), "{}", stderr(&trusted));
    let out = env.kigi(&["-p", "go"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        env.repo.join("made.txt").exists(),
        "{:?}",
        tool_results(&env)
    );
}

#[test]
fn a_tool_denied_outright_is_not_offered_and_permissions_lists_every_rule_with_its_source() {
    let env = Env::new(vec![Step::text("ok")]);
    std::fs::write(
        env.home.join("config.toml"),
        "[permissions]\nask = [\"Bash(git push:*)\"]\n",
    )
    .unwrap();
    let out = env.kigi(&["-p", "hi", "--disallowedTools", "Bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tools = env.server().requests()[0].body["tools"].to_string();
    assert!(!tools.contains("run_terminal_cmd"), "{tools}");
    assert!(tools.contains("read_file"), "{tools}");

    let out = env.kigi(&["permissions", "--json", "--disallowedTools", "Bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rules: Vec<(String, String)> = listed["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["effect"].as_str().unwrap().to_owned(),
                r["rule"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(rules.contains(&("deny".into(), "Bash".into())), "{rules:?}");
    assert!(
        rules.contains(&("ask".into(), "Bash(git push:*)".into())),
        "{rules:?}"
    );
    assert!(
        rules.contains(&("deny".into(), "Read(~/.ssh)".into())),
        "{rules:?}"
    );
    let sources = listed["rules"].to_string();
    assert!(
        sources.contains("config.toml") && sources.contains("--disallowedTools"),
        "{sources}"
    );
    // A rule that cannot mean what it says stops the run and names itself.
    let out = env.kigi(&["-p", "hi", "--allowedTools", "Bsh(x)"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown tool `Bsh`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_command_writing_an_instruction_file_needs_a_person_whatever_the_rules() {
    let env = commands(&[
        "echo planted > AGENTS.md",
        "echo fine > notes.txt",
        "mkdir -p .kigi && cd .kigi && echo planted > settings.toml",
    ]);
    let out = env.kigi(&[
        "-p",
        "go",
        "--allowedTools",
        "Bash(echo:*) Bash(mkdir:*) Bash(cd:*) Edit",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!env.repo.join("AGENTS.md").exists());
    // A `cd` first does not hide where the redirection lands.
    assert!(!env.repo.join(".kigi/settings.toml").exists());
    assert!(env.repo.join("notes.txt").exists());
    let results = tool_results(&env);
    assert!(
        results[0].contains("kigi reads for its instructions"),
        "{results:?}"
    );
}
