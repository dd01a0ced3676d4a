//! `McpServers`: many servers started together, none blocking another; failures and
//! untrusted servers reported once; only ready servers' tools offered.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use kigi_mcp::{McpServerConfig, McpServerEntry, McpServerStatus, McpServers, McpSource};

fn entry(name: &str, config: McpServerConfig, trusted: bool) -> McpServerEntry {
    McpServerEntry {
        name: name.into(),
        config,
        source: if trusted {
            McpSource::User
        } else {
            McpSource::Project
        },
        trusted,
    }
}

fn sh(script: &str) -> McpServerConfig {
    let mut config = McpServerConfig::stdio("sh", vec!["-c".into(), script.into()]);
    config.startup_timeout_ms = 500;
    config
}

#[tokio::test]
async fn failed_slow_and_untrusted_servers_never_block_the_good_one() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("untrusted-ran");
    let mut disabled = common::stdio_config();
    disabled.enabled = false;
    let mut filtered = common::stdio_config();
    filtered.enabled_tools = Some(vec!["echo".into(), "get-sum".into()]);
    filtered.disabled_tools = vec!["get-sum".into()];
    let entries = vec![
        entry("everything", filtered, true),
        entry("crashes", sh("echo 'cannot start' >&2; exit 1"), true),
        entry("silent", sh("exec sleep 600"), true),
        entry("project", sh(&format!("touch {}", marker.display())), false),
        entry("off", disabled, true),
        entry(
            "needs-var",
            McpServerConfig::stdio("${KIGI_TEST_UNSET_VAR}", vec![]),
            true,
        ),
    ];
    let mut servers = McpServers::start_all_with_env(entries, &|_| None);
    let statuses = servers.wait_ready(Duration::from_secs(30)).await;
    let status = |name: &str| statuses.iter().find(|(n, _)| n == name).unwrap().1.clone();

    assert!(matches!(status("everything"), McpServerStatus::Ready { tools } if tools > 5));
    assert!(
        matches!(status("crashes"), McpServerStatus::Failed { ref stderr_tail, .. } if stderr_tail == "cannot start\n"),
        "{:?}",
        status("crashes")
    );
    assert!(
        matches!(status("silent"), McpServerStatus::Failed { ref reason, .. } if reason.contains("no answer to initialize")),
        "{:?}",
        status("silent")
    );
    assert_eq!(status("project"), McpServerStatus::NeedsTrust);
    assert_eq!(status("off"), McpServerStatus::Disabled);
    assert!(
        matches!(status("needs-var"), McpServerStatus::Failed { ref reason, .. } if reason.contains("KIGI_TEST_UNSET_VAR")),
        "{:?}",
        status("needs-var")
    );
    assert!(
        !marker.exists(),
        "an untrusted server's command must never run"
    );

    let reported: Vec<String> = servers
        .take_unreported()
        .into_iter()
        .map(|r| r.name)
        .collect();
    assert_eq!(reported, ["crashes", "silent", "project", "needs-var"]);
    assert!(
        servers.take_unreported().is_empty(),
        "each is reported once"
    );

    let names: Vec<String> = servers
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(
        names,
        ["mcp__everything__echo"],
        "enabled_tools minus disabled_tools"
    );

    let pid = servers.connection("everything").unwrap().pid().unwrap();
    servers.shutdown().await;
    assert!(common::process_gone(pid));
}

#[tokio::test]
async fn two_servers_start_concurrently_and_offer_distinct_names() {
    let entries = vec![
        entry("one", common::stdio_config(), true),
        entry("two", common::stdio_config(), true),
    ];
    let mut servers = McpServers::start_all(entries);
    let statuses = servers.wait_ready(Duration::from_secs(30)).await;
    assert!(
        statuses
            .iter()
            .all(|(_, s)| matches!(s, McpServerStatus::Ready { .. })),
        "{statuses:?}"
    );
    let tools = servers.tools();
    assert!(tools.iter().any(|t| t.name() == "mcp__one__echo"));
    assert!(tools.iter().any(|t| t.name() == "mcp__two__echo"));
    let unique: std::collections::BTreeSet<_> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(unique.len(), tools.len());
    servers.shutdown().await;
}
