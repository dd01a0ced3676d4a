//! The command sandbox through the real `kigi` binary: even in bypassPermissions (every call
//! runs unasked), a shell command writes only below the workspace and the temp dir and opens no
//! network connection, and a refused command tells the model it met the sandbox.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::io::ErrorKind;
use std::net::TcpListener;

use support::{commands, stderr, tool_results};

#[test]
fn a_command_cannot_write_outside_the_workspace_and_says_the_sandbox_stopped_it() {
    let env = commands(&["touch inside.txt", "touch ../outside.txt"]);
    let out = env.kigi(&["-p", "go", "--permission-mode", "bypassPermissions"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_results(&env);
    assert!(env.repo.join("inside.txt").exists(), "{results:?}");
    assert!(!env.repo.parent().unwrap().join("outside.txt").exists());
    assert!(results[1].contains("Permission denied"), "{results:?}");
    assert!(
        results[1].contains("kigi's sandbox (mode workspace-write)")
            && results[1].contains("ask the user"),
        "{results:?}"
    );
}

#[test]
fn a_command_cannot_reach_the_network_unless_the_user_turns_it_on() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let curl = format!(
        "curl -s --max-time 5 --noproxy '*' http://{}/",
        listener.local_addr().unwrap()
    );
    let env = commands(&[&curl]);
    let out = env.kigi(&["-p", "go", "--permission-mode", "bypassPermissions"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let results = tool_results(&env);
    assert!(results[0].contains("the network is off"), "{results:?}");
    assert_eq!(
        listener.accept().map(|_| ()).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock),
        "the sandboxed curl reached the listener"
    );
}

#[test]
fn danger_full_access_is_the_users_choice_to_make() {
    let env = commands(&["touch ../outside.txt"]);
    let out = env.kigi(&[
        "-p",
        "go",
        "--permission-mode",
        "bypassPermissions",
        "--sandbox",
        "danger-full-access",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.repo.parent().unwrap().join("outside.txt").exists());
    let bad = env.kigi(&["-p", "go", "--sandbox", "wide-open"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("unknown sandbox mode `wide-open`"),
        "{}",
        stderr(&bad)
    );
}
