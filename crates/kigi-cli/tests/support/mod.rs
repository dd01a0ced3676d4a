//! The real `kigi` binary against the scripted model server over loopback, in a real git
//! repository with its own `$KIGI_HOME`: what the print-mode and permission tests share.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use kigi_testkit::{ScriptSet, ScriptedServer, Step};
use serde_json::Value;

pub struct Env {
    pub _tmp: tempfile::TempDir,
    pub repo: PathBuf,
    pub home: PathBuf,
    pub runtime: tokio::runtime::Runtime,
    pub server: Option<ScriptedServer>,
}

impl Env {
    pub fn new(steps: Vec<Step>) -> Self {
        Self::with_scripts(ScriptSet::single(steps))
    }

    pub fn with_scripts(scripts: ScriptSet) -> Self {
        // Not under the system temp dir (sandboxed commands may write there), wherever the
        // build directory is.
        let tmp = tempfile::tempdir_in("/var/tmp").expect("these tests need /var/tmp");
        let repo = tmp.path().join("repo");
        let home = tmp.path().join("kigi-home");
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()
            .unwrap();
        assert!(git.success());
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let server = runtime.block_on(ScriptedServer::start(scripts)).unwrap();
        Self {
            _tmp: tmp,
            repo,
            home,
            runtime,
            server: Some(server),
        }
    }

    pub fn server(&self) -> &ScriptedServer {
        self.server.as_ref().unwrap()
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.repo.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kigi"));
        command
            .args(args)
            .current_dir(&self.repo)
            .env("HOME", self._tmp.path())
            .env("KIGI_HOME", &self.home)
            .env("KIGI_BASE_URL", self.server().url())
            .env("KIGI_MODEL", "scripted")
            .env_remove("KIGI_API_KEY")
            // Not the test runner's stdin, which `kigi -p` would read when it is a pipe.
            .stdin(Stdio::null());
        command
    }

    /// Runs kigi with `input` written to its stdin (and stdin closed after it).
    pub fn kigi_with_stdin(&self, args: &[&str], input: Vec<u8>) -> Output {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // kigi may stop reading (a size cap): a write that fails then is expected.
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    }

    /// Runs kigi with stdout a pipe whose reader has already gone (`kigi … | head -0`).
    pub fn kigi_into_closed_pipe(&self, args: &[&str]) -> Output {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        self.command(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    }

    /// The text of the user message in model request `n` (the first user message).
    pub fn user_prompt(&self, n: usize) -> String {
        let request = &self.server().requests()[n];
        let messages = request.body["messages"].as_array().unwrap();
        let user = messages.iter().find(|m| m["role"] == "user").unwrap();
        kigi_testkit::wire::content_text(&user["content"])
    }

    /// Starts kigi with `args`, its output piped, and returns at once.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Waits (at most 30 s) until kigi's first model request has reached the server.
    pub fn wait_for_first_request(&self) {
        let arrived = self.runtime.block_on(
            self.server()
                .wait_for(Duration::from_secs(30), |log| !log.is_empty()),
        );
        assert!(arrived, "kigi never sent its request");
    }

    pub fn kigi(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    pub fn session_events(&self, id: &str) -> Vec<Value> {
        self.events_in(&self.home.join("sessions").join(id).join("wire.jsonl"))
    }

    /// The events of subagent `agent` (`sub-1`) of session `id`.
    pub fn agent_events(&self, id: &str, agent: &str) -> Vec<Value> {
        self.events_in(
            &self
                .home
                .join("sessions")
                .join(id)
                .join("agents")
                .join(agent)
                .join("wire.jsonl"),
        )
    }

    pub fn events_in(&self, wire: &std::path::Path) -> Vec<Value> {
        let text = std::fs::read_to_string(wire).unwrap();
        text.lines()
            .map(|line| {
                let record: Value = serde_json::from_str(line).unwrap();
                assert_eq!(record["method"], "_kigi/session/update");
                record["params"]["update"].clone()
            })
            .collect()
    }
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn result_of(out: &Output) -> Value {
    serde_json::from_str(stdout(out).trim()).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

/// The tool results the model got back in its last request, in order.
pub fn tool_results(env: &Env) -> Vec<String> {
    let requests = env.server().requests();
    requests.last().unwrap().body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A run whose model calls `run_terminal_cmd` with each of `lines` in one response, then
/// answers "done".
pub fn commands(lines: &[&str]) -> Env {
    Env::new(vec![
        Step::calls(
            lines
                .iter()
                .map(|line| ("run_terminal_cmd", serde_json::json!({"command": line})))
                .collect::<Vec<_>>(),
        ),
        Step::text("done"),
    ])
}
