//! `kigi models`, `kigi models ping` and `kigi mock-model`, run as real processes against a
//! real scripted server over loopback.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

struct Sandbox {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Sandbox {
    fn new(config: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        std::fs::create_dir_all(dir.join("kigi-home")).unwrap();
        std::fs::write(dir.join("kigi-home/config.toml"), config).unwrap();
        Self { _tmp: tmp, dir }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kigi"));
        command
            .args(args)
            .current_dir(&self.dir)
            .env("HOME", &self.dir)
            .env("KIGI_HOME", self.dir.join("kigi-home"))
            .env_remove("KIGI_MODEL")
            .env_remove("KIGI_BASE_URL")
            .env_remove("KIGI_API_KEY");
        command
    }

    fn kigi(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }
}

/// A `kigi mock-model` child, killed on drop.
struct MockModel {
    child: Child,
    url: String,
}

impl MockModel {
    fn start(sandbox: &Sandbox, script: &Path) -> Self {
        let mut child = sandbox
            .command(&["mock-model", "--script", script.to_str().unwrap()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            // Keep reading after the first line so the server's request log never blocks.
            for line in BufReader::new(stdout).lines() {
                let _ = tx.send(line.unwrap());
            }
        });
        let first = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("mock-model printed nothing");
        let url = first
            .split_whitespace()
            .find(|word| word.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no URL in {first:?}"))
            .to_owned();
        Self { child, url }
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn no_endpoint_anywhere_fails_naming_the_flag_and_the_config_key() {
    let sandbox = Sandbox::new("");
    let out = sandbox.kigi(&["models", "ping"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("--base-url"), "{err}");
    assert!(err.contains("[endpoints] api_base_url"), "{err}");
}

#[test]
fn an_unset_key_variable_is_named_and_no_request_is_made() {
    let sandbox = Sandbox::new(
        "[models.kimi]\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"KIGI_TEST_UNSET_KEY\"\n",
    );
    let out = sandbox.kigi(&["--model", "kimi", "models", "ping"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("$KIGI_TEST_UNSET_KEY"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_unknown_alias_lists_the_configured_ones() {
    let sandbox = Sandbox::new(
        "[models.kimi]\nbase_url = \"http://x/v1\"\n[models.claude]\nprovider = \"anthropic\"\nbase_url = \"http://y/v1\"\n",
    );
    let out = sandbox.kigi(&["--model", "gpt5", "models", "ping"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("unknown model alias `gpt5`"), "{err}");
    assert!(err.contains("claude, kimi"), "{err}");
}

#[test]
fn models_lists_aliases_and_key_state_without_the_key() {
    let sandbox = Sandbox::new(
        "default_model = \"kimi\"\n[models.kimi]\ndialect = \"kimi\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"kimi-k2\"\napi_key_env = \"KIGI_TEST_KEY\"\n",
    );
    let out = sandbox
        .command(&["models"])
        .env("KIGI_TEST_KEY", "sk-very-secret")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("$KIGI_TEST_KEY (set)"), "{text}");
    assert!(
        text.contains("current: kimi → kimi-k2 at http://127.0.0.1:9/v1/chat/completions"),
        "{text}"
    );
    assert!(!text.contains("sk-very-secret"));
}

#[test]
fn ping_reaches_the_standalone_mock_server_on_every_wire() {
    let sandbox = Sandbox::new("");
    let script = sandbox.dir.join("script.yaml");
    std::fs::write(
        &script,
        "steps:\n  - text: OK\n    usage: {input: 12, output: 1, cached: 4}\n",
    )
    .unwrap();
    let server = MockModel::start(&sandbox, &script);
    for provider in ["openai-chat", "anthropic", "openai-responses"] {
        let config = format!("[models.scripted]\nprovider = \"{provider}\"\n");
        std::fs::write(sandbox.dir.join("kigi-home/config.toml"), config).unwrap();
        let out = sandbox.kigi(&[
            "--base-url",
            &server.url,
            "--model",
            "scripted",
            "models",
            "ping",
        ]);
        assert!(out.status.success(), "{provider}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("\"OK\""), "{provider}: {text}");
        assert!(
            text.contains("12 input / 1 output tokens (4 cached)"),
            "{provider}: {text}"
        );
    }
}

#[test]
fn models_with_one_alias_and_no_default_model_says_a_run_uses_it() {
    let sandbox =
        Sandbox::new("[models.fast]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"x\"\n");
    let out = sandbox.kigi(&["models"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("current: fast → x at http://127.0.0.1:9/v1/chat/completions"),
        "{text}"
    );
    assert!(!text.contains("no model endpoint"), "{text}");
}

#[test]
fn models_with_several_aliases_and_no_default_model_asks_for_one_listing_them() {
    let sandbox = Sandbox::new(
        "[models.fast]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"x\"\n[models.slow]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"y\"\n",
    );
    let out = sandbox.kigi(&["models"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "current: none (no model is chosen: set default_model or pass --model (configured: fast, slow))"
        ),
        "{text}"
    );
    assert!(!text.contains("no model endpoint"), "{text}");
    let chosen = sandbox.kigi(&["--model", "slow", "models"]);
    assert!(
        stdout(&chosen).contains("current: slow → y at http://127.0.0.1:9/v1/chat/completions"),
        "{}",
        stdout(&chosen)
    );
}
