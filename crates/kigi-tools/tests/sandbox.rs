//! The command sandbox on real `sh`, real files and a real loopback listener, driven through
//! `run_terminal_cmd` as the model calls it. Every test first checks that the kernel enforces
//! the sandbox and fails loudly when it does not: a sandbox test that passes because nothing
//! was confined proves nothing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use kigi_tools::path_resolution::resolve_path;
use kigi_tools::{SandboxMode, SandboxPolicy, ToolContext, ToolOutput, ToolRegistry};
use serde_json::json;

/// What the tool result carries when the sandbox is the likely cause of a failure.
const NOTE: &str = "[sandbox] This command ran in kigi's sandbox";

/// A project folder (`<root>/ws`) with room for siblings, outside the temp dir: the temp dir
/// is writable in the sandbox, so a sibling there would prove nothing.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    workspace: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let support = kigi_tools::sandbox_support();
        assert!(
            support.is_enforced(),
            "the kernel cannot enforce kigi's sandbox here ({support:?}); these tests need Landlock ABI 4 or later"
        );
        let dir = tempfile::tempdir_in("/var/tmp").expect("these tests need /var/tmp");
        let root = resolve_path(Path::new("/"), dir.path());
        let temp = resolve_path(Path::new("/"), &std::env::temp_dir());
        assert!(
            !root.starts_with(&temp),
            "the test folder {} must lie outside the temp dir {}",
            root.display(),
            temp.display()
        );
        let workspace = root.join("ws");
        std::fs::create_dir(&workspace).unwrap();
        Self {
            _dir: dir,
            root,
            workspace,
        }
    }

    /// A context in `cwd` confined to `sandbox`.
    fn context(&self, cwd: &Path, sandbox: SandboxPolicy) -> ToolContext {
        let mut context = ToolContext::new(cwd);
        context.sandbox = sandbox;
        context
    }

    fn workspace_write(&self) -> ToolContext {
        self.context(
            &self.workspace,
            SandboxPolicy::workspace_write([self.workspace.clone()]),
        )
    }
}

async fn run(context: &ToolContext, command: &str) -> ToolOutput {
    ToolRegistry::built_in()
        .get("run_terminal_cmd")
        .unwrap()
        .execute(json!({ "command": command }), context)
        .await
        .unwrap()
}

async fn succeeds(context: &ToolContext, command: &str) -> String {
    let out = run(context, command).await;
    assert!(!out.is_error, "`{command}` failed: {}", out.content);
    out.content
}

async fn refused(context: &ToolContext, command: &str) -> String {
    let out = run(context, command).await;
    assert!(
        out.is_error,
        "`{command}` should have failed: {}",
        out.content
    );
    assert!(
        out.content.contains(NOTE),
        "`{command}` failed without the sandbox note: {}",
        out.content
    );
    out.content
}

#[tokio::test]
async fn workspace_write_allows_the_workspace_and_refuses_a_sibling() {
    let fx = Fixture::new();
    let context = fx.workspace_write();
    succeeds(&context, "touch inside").await;
    assert!(fx.workspace.join("inside").exists());

    let out = refused(&context, "touch ../outside").await;
    assert!(out.contains("Permission denied"), "{out}");
    assert!(out.contains("(mode workspace-write)"), "{out}");
    assert!(out.contains(&fx.workspace.display().to_string()), "{out}");
    assert!(out.contains("the network is off"), "{out}");
    assert!(!fx.root.join("outside").exists());
}

#[tokio::test]
async fn workspace_write_allows_the_temp_dir_and_dev_null() {
    let fx = Fixture::new();
    let context = fx.workspace_write();
    let temp = tempfile::tempdir().unwrap();
    let file = temp.path().join("scratch");
    let out = succeeds(
        &context,
        &format!(
            "echo x > /dev/null && echo kept > '{}' && cat '{}'",
            file.display(),
            file.display()
        ),
    )
    .await;
    assert_eq!(out, "kept\n");
}

#[tokio::test]
async fn a_worktree_root_confines_writes_to_the_worktree() {
    let fx = Fixture::new();
    let worktree = fx.workspace.join("worktree");
    std::fs::create_dir(&worktree).unwrap();
    let context = fx.context(
        &worktree,
        SandboxPolicy::workspace_write([worktree.clone()]),
    );
    succeeds(&context, "touch here && mkdir sub && mv here sub/moved").await;
    assert!(worktree.join("sub/moved").exists());

    refused(&context, "touch ../in-workspace").await;
    assert!(!fx.workspace.join("in-workspace").exists());
}

#[tokio::test]
async fn read_only_refuses_every_write_but_devices() {
    let fx = Fixture::new();
    std::fs::write(fx.workspace.join("existing"), "before").unwrap();
    let context = fx.context(&fx.workspace, SandboxPolicy::read_only());
    assert_eq!(
        succeeds(&context, "cat existing; echo x > /dev/null").await,
        "before"
    );

    let out = refused(&context, "touch new").await;
    assert!(
        out.contains("(mode read-only): it may write no files"),
        "{out}"
    );
    refused(&context, "echo after > existing").await;
    let temp = tempfile::tempdir().unwrap();
    refused(
        &context,
        &format!("touch '{}'", temp.path().join("t").display()),
    )
    .await;

    assert!(!fx.workspace.join("new").exists());
    assert_eq!(
        std::fs::read_to_string(fx.workspace.join("existing")).unwrap(),
        "before"
    );
    assert!(!temp.path().join("t").exists());
}

/// The network tests run the real curl (`.ci/run` installs it): without it they fail, never
/// pass unchecked.
fn require_curl() {
    let present = std::process::Command::new("curl")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    assert!(
        present,
        "curl is needed by the network tests (apt-get install curl)"
    );
}

#[tokio::test]
async fn without_network_a_loopback_connection_is_refused() {
    require_curl();
    let fx = Fixture::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let context = fx.workspace_write();

    let out = refused(
        &context,
        &format!("curl -s --noproxy '*' --max-time 10 http://127.0.0.1:{port}/"),
    )
    .await;
    assert!(out.starts_with("exit code "), "{out}");
    // A connection curl made would wait in the backlog, accepted or not by now.
    let accepted = listener.accept();
    assert!(
        accepted
            .as_ref()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock),
        "the listener saw a connection: {accepted:?}"
    );
}

#[tokio::test]
async fn with_network_a_loopback_connection_goes_through() {
    require_curl();
    let fx = Fixture::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (accepted_tx, accepted_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        accepted_tx.send(()).unwrap();
        // Read the request head so curl does not see a reset, then answer.
        let mut request = [0u8; 1024];
        let _ = std::io::Read::read(&mut stream, &mut request);
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nserved\n")
            .unwrap();
    });
    let context = fx.context(
        &fx.workspace,
        SandboxPolicy {
            network: true,
            ..SandboxPolicy::workspace_write([fx.workspace.clone()])
        },
    );

    let out = succeeds(
        &context,
        &format!("curl -s --noproxy '*' --max-time 10 http://127.0.0.1:{port}/"),
    )
    .await;
    assert_eq!(out, "served\n");
    // The ceiling only bounds a broken run; the answer above already required the accept.
    accepted_rx.recv_timeout(Duration::from_secs(10)).unwrap();
}

#[tokio::test]
async fn without_network_a_udp_datagram_is_refused_and_with_network_it_arrives() {
    // bash's `/dev/udp/HOST/PORT` opens a UDP socket, which Landlock alone does not cover.
    if !std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
    {
        eprintln!("bash is not installed: skipping the UDP test");
        return;
    }
    let fx = Fixture::new();
    let receiver = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver.set_nonblocking(true).unwrap();
    let port = receiver.local_addr().unwrap().port();
    let send = format!("bash -c 'echo datagram > /dev/udp/127.0.0.1/{port}'");
    let mut buf = [0u8; 64];

    let out = run(&fx.workspace_write(), &send).await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains("Operation not permitted"),
        "{}",
        out.content
    );
    // A loopback datagram is queued before `sendto` returns: none came.
    let received = receiver.recv(&mut buf);
    assert!(
        received
            .as_ref()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock),
        "a datagram arrived: {received:?}"
    );

    let online = fx.context(
        &fx.workspace,
        SandboxPolicy {
            network: true,
            ..SandboxPolicy::workspace_write([fx.workspace.clone()])
        },
    );
    succeeds(&online, &send).await;
    let n = receiver.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"datagram\n");
}

#[tokio::test]
async fn processes_the_command_starts_are_confined_too() {
    let fx = Fixture::new();
    let context = fx.workspace_write();
    refused(&context, "sh -c 'sh -c \"touch ../nested\"'").await;
    refused(&context, "(touch ../subshell) & wait $!").await;
    assert!(!fx.root.join("nested").exists());
    assert!(!fx.root.join("subshell").exists());
}

#[tokio::test]
async fn a_background_task_is_confined_and_its_report_carries_the_note() {
    let fx = Fixture::new();
    let context = fx.workspace_write();
    let started = ToolRegistry::built_in()
        .get("run_terminal_cmd")
        .unwrap()
        .execute(
            json!({ "command": "touch ../from-task", "background": true }),
            &context,
        )
        .await
        .unwrap();
    assert!(!started.is_error, "{}", started.content);
    let id = context.tasks.ids().pop().unwrap();
    let report = context
        .tasks
        .report(&id, Duration::from_secs(30))
        .await
        .unwrap();
    assert!(report.output.contains(NOTE), "{}", report.render());
    assert!(!fx.root.join("from-task").exists());
}

#[tokio::test]
async fn danger_full_access_is_unconfined() {
    let fx = Fixture::new();
    let context = fx.context(&fx.workspace, SandboxPolicy::full_access());
    assert_eq!(context.sandbox.mode, SandboxMode::DangerFullAccess);
    succeeds(&context, "touch ../outside").await;
    assert!(fx.root.join("outside").exists());
}

#[tokio::test]
async fn a_context_that_does_not_opt_in_is_unconfined() {
    let fx = Fixture::new();
    let context = ToolContext::new(&fx.workspace);
    assert_eq!(context.sandbox, SandboxPolicy::full_access());
    succeeds(&context, "touch ../plain").await;
    assert!(fx.root.join("plain").exists());
}

#[tokio::test]
async fn a_missing_writable_root_refuses_to_start_until_it_exists() {
    let fx = Fixture::new();
    let later = fx.root.join("later");
    let context = fx.context(
        &fx.workspace,
        SandboxPolicy::workspace_write([fx.workspace.clone(), later.clone()]),
    );
    let out = run(&context, "touch ../later/file").await;
    assert!(out.is_error, "{}", out.content);
    assert!(
        out.content.contains("cannot open sandbox writable root")
            && out.content.contains(&later.display().to_string()),
        "{}",
        out.content
    );

    // A spawner that could not confine itself is not kept: the next call starts afresh.
    std::fs::create_dir(&later).unwrap();
    succeeds(&context, "touch ../later/file").await;
    assert!(later.join("file").exists());
}
