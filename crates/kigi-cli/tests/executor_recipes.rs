//! The README's recipes for swarms beyond one machine are real configurations: each parses as
//! `config.toml` does, and fills, for one member, to the exact program and arguments a person
//! would type (the Slurm one also runs, on a real cluster, in tests/slurm.rs).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use kigi_core::executor::{TurnInput, command_line};

/// The first TOML block after `heading` in the README.
fn recipes_after(heading: &str) -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let section = &readme[readme.find(heading).expect("the heading is in the README")..];
    let start = section.find("```toml\n").unwrap() + "```toml\n".len();
    let end = start + section[start..].find("```").unwrap();
    section[start..end].to_owned()
}

#[test]
fn the_readmes_cluster_recipes_parse_and_fill_to_the_command_a_person_would_type() {
    let text = recipes_after("### Swarms beyond one machine");
    let config = kigi_agent::Config::parse(&text, Path::new("README.md")).unwrap();
    let turn = TurnInput {
        prompt: "fix the test in crate 'a' and say $why",
        cwd: Path::new("/work/repo"),
        model: None,
        member: "sub-7",
        session: "20261201-160000-abc123",
    };
    let line = |id: &str| {
        let executor = config
            .agent_executors
            .get(id)
            .unwrap_or_else(|| panic!("no [agent_executors.{id}] in the README"));
        let line = command_line(executor, &turn);
        let mut argv = vec![line.program];
        argv.extend(line.args);
        argv
    };
    assert_eq!(
        line("slurm"),
        [
            "srun",
            "--quiet",
            "--nodes=1",
            "--ntasks=1",
            "--job-name=kigi-20261201-160000-abc123-sub-7",
            "kigi",
            "-p",
            "--output-format",
            "stream-json",
            turn.prompt,
        ]
    );
    assert_eq!(
        line("k8s"),
        [
            "kubectl",
            "run",
            "kigi-20261201-160000-abc123-sub-7",
            "--rm",
            "-i",
            "--quiet",
            "--restart=Never",
            "--image=registry.example.com/kigi:latest",
            "--",
            "kigi",
            "-p",
            "--output-format",
            "stream-json",
            turn.prompt,
        ]
    );
    let ssh = line("build-box");
    assert_eq!(ssh[..4], ["ssh", "-o", "BatchMode=yes", "build-box"]);
    // ssh hands one line to the remote shell: the prompt must come out of it as one word.
    let remote = ssh[4..].join(" ");
    let words = std::process::Command::new("sh")
        .args([
            "-c",
            &format!("set -- {remote}; printf '%s\\n' \"$#\" \"$5\""),
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&words.stdout),
        format!("5\n{}\n", turn.prompt)
    );
}
