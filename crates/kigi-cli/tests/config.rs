//! The real `kigi config` and `kigi agents validate` on a temporary `$KIGI_HOME`: values with
//! their origins, warnings with their lines, and no secret on any output.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

const SECRET: &str = "sk-do-not-print-me";

struct Home {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    kigi_home: PathBuf,
}

impl Home {
    fn with_config(text: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let kigi_home = tmp.path().join("kigi-home");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(&kigi_home).unwrap();
        std::fs::write(kigi_home.join("config.toml"), text).unwrap();
        Self {
            _tmp: tmp,
            repo,
            kigi_home,
        }
    }

    fn config_file(&self) -> String {
        self.kigi_home.join("config.toml").display().to_string()
    }

    fn kigi(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kigi"));
        command
            .args(args)
            .current_dir(&self.repo)
            .env("HOME", self.repo.parent().unwrap())
            .env("KIGI_HOME", &self.kigi_home);
        for variable in [
            "KIGI_MODEL",
            "KIGI_BASE_URL",
            "KIGI_API_KEY",
            "KIGI_SUBAGENTS",
            "KIGI_SUBAGENT_AWAIT_BUDGET_MS",
            "KIGI_SWARM_MAX_CONCURRENCY",
        ] {
            command.env_remove(variable);
        }
        command.envs(env.iter().copied());
        command.output().unwrap()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const CONFIG: &str = "default_model = \"kimi\"\n\
[subagent]\n\
enabled = false\n\
[models.kimi]\n\
base_url = \"http://127.0.0.1:9/v1\"\n\
api_key_env = \"KIGI_TEST_SECRET\"\n\
[swarm]\n\
max_concurency = 4\n";

/// The line of `key = …`, whitespace between value and origin squeezed.
fn line_of(out: &str, key: &str) -> String {
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no `{key}` in:\n{out}"));
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn config_prints_each_value_with_its_origin_then_the_warnings() {
    let home = Home::with_config(CONFIG);
    let file = home.config_file();
    let out = home.kigi(
        &["--base-url", "http://flag/v1", "config"],
        &[
            ("KIGI_SUBAGENTS", "off"),
            ("KIGI_SWARM_MAX_CONCURRENCY", "lots"),
            ("KIGI_TEST_SECRET", SECRET),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(
        line_of(&stdout, "model"),
        format!("model = \"kimi\" file {file}:1")
    );
    assert_eq!(
        line_of(&stdout, "base_url"),
        "base_url = \"http://flag/v1\" flag --base-url"
    );
    assert_eq!(
        line_of(&stdout, "subagents.enabled"),
        "subagents.enabled = false env KIGI_SUBAGENTS"
    );
    assert_eq!(
        line_of(&stdout, "models.kimi.api_key_env"),
        format!("models.kimi.api_key_env = \"KIGI_TEST_SECRET\" (set) file {file}:6")
    );
    assert_eq!(
        line_of(&stdout, "swarm.max_concurrency"),
        "swarm.max_concurrency = 16 default"
    );
    let warnings: Vec<_> = stdout
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(
        warnings,
        [
            format!("warning: {file}:2: unknown key `subagent`, ignored"),
            format!("warning: {file}:8: unknown key `swarm.max_concurency`, ignored"),
            "warning: env KIGI_SWARM_MAX_CONCURRENCY: `lots` is not a whole number of at least 1; the variable is ignored".to_owned(),
        ]
    );
    assert!(!stdout.contains(SECRET) && !text(&out.stderr).contains(SECRET));
}

#[test]
fn config_json_has_values_origins_and_warnings_without_secrets() {
    let home = Home::with_config(CONFIG);
    let out = home.kigi(
        &["config", "--json", "--model", "kimi"],
        &[("KIGI_TEST_SECRET", SECRET)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains(SECRET));
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let value = |key: &str| {
        json["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["key"] == key)
            .unwrap_or_else(|| panic!("no {key}"))
            .clone()
    };
    assert_eq!(
        value("model"),
        serde_json::json!({"key": "model", "value": "kimi",
                           "origin": {"source": "flag", "flag": "--model"}})
    );
    assert_eq!(value("models.kimi.api_key_env")["variable_set"], true);
    assert_eq!(json["exists"], true);
    assert_eq!(json["warnings"][0]["kind"], "unknown_key");
    assert_eq!(json["warnings"][0]["line"], 2);
}

#[test]
fn a_missing_config_is_all_defaults() {
    let home = Home::with_config("");
    std::fs::remove_file(home.kigi_home.join("config.toml")).unwrap();
    let out = home.kigi(&["config"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("# ")
            && stdout
                .lines()
                .next()
                .unwrap()
                .ends_with("(not found: defaults)")
    );
    assert_eq!(
        line_of(&stdout, "agents.compat_dirs"),
        "agents.compat_dirs = true default"
    );
    assert!(!stdout.contains("warning"), "{stdout}");
}

#[test]
fn agents_validate_prints_the_config_warnings_with_their_lines() {
    let home = Home::with_config(CONFIG);
    let out = home.kigi(&["agents", "validate"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "warning {}:2: unknown key `subagent`, ignored",
            home.config_file()
        )),
        "{stdout}"
    );
}
