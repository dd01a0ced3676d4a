//! `kigi swarm` on a real single-node Slurm cluster: every member through `srun` (the
//! executor recipe of the README), all transcripts in the swarm's session, a member killed
//! with `scancel` reported failed with Slurm's reason, `--resume` rerunning just that one,
//! and an interrupted swarm leaving no step running on the cluster.
//!
//! It starts a private cluster (its own configuration, ports and state; munged, slurmctld and
//! slurmd as root: tests/slurm/start-cluster.sh), so it runs only when asked:
//! `KIGI_TEST_SLURM=1` (set by `.ci/run`, which installs Debian's slurm-wlm and munge). Asked
//! and unable, it fails; not asked, it says so and passes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

mod support;

use std::io::Read;
use std::process::Command;
use std::time::{Duration, Instant};

use kigi_testkit::{Fault, Script, ScriptSet, Step};
use serde_json::Value;
use support::{Env, result_of, stderr};

const MEMBERS: usize = 50;
/// The member `scancel` kills: item 10, so child `sub-10`.
const KILLED: usize = 10;

fn slurm_asked() -> bool {
    if std::env::var_os("KIGI_TEST_SLURM").is_some_and(|v| v == "1") {
        return true;
    }
    eprintln!(
        "slurm test not run: set KIGI_TEST_SLURM=1 (needs root, slurm-wlm and munge; .ci/run does)"
    );
    false
}

/// Starts the test's private cluster; returns its `SLURM_CONF`.
fn start_cluster() -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/slurm/start-cluster.sh");
    let out = Command::new("bash").arg(script).output().unwrap();
    assert!(
        out.status.success(),
        "the Slurm cluster did not start:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Job names in the queue now.
fn queued_jobs(conf: &str) -> Vec<String> {
    let out = Command::new("squeue")
        .args(["-h", "-o", "%j"])
        .env("SLURM_CONF", conf)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Waits (at most `ceiling`) until the queue's job names satisfy `done`.
fn wait_for_queue(conf: &str, ceiling: Duration, done: impl Fn(&[String]) -> bool) -> bool {
    let until = Instant::now() + ceiling;
    while Instant::now() < until {
        if done(&queued_jobs(conf)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// A started `kigi swarm`, killed if the test fails before it ends.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits (at most 600 s) for the swarm to end.
fn wait_for_end(swarm: &mut Running) -> std::process::ExitStatus {
    let ceiling = Instant::now() + Duration::from_secs(600);
    loop {
        if let Some(status) = swarm.0.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < ceiling,
            "the swarm did not end within 600 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Reads a pipe to its end on a thread of its own, so a chatty child never blocks on it.
fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

#[test]
fn a_swarm_runs_every_member_through_srun_and_resume_reruns_the_one_scancel_killed() {
    if !slurm_asked() {
        return;
    }
    let conf = start_cluster();
    let scripts = ScriptSet::default()
        .with(Script::matching("#ok", vec![Step::text("member fine")]))
        .with(Script::matching(
            "#doomed",
            // Hangs inside its model call the first time (until scancel ends it); answers
            // when resumed.
            vec![Step::text("finally done").after_faults(vec![Fault::Hang])],
        ))
        .with(Script::matching(
            "#stuck",
            vec![Step::text("never").after_faults(vec![Fault::Hang])],
        ));
    let env = Env::with_scripts(scripts);
    let inner_home = env.home.parent().unwrap().join("member-home");
    std::fs::create_dir_all(&inner_home).unwrap();
    std::fs::write(
        env.home.join("config.toml"),
        format!(
            "[agent_executors.slurm]\nkind = \"command\"\ncommand = \"srun\"\n\
             args = [\"--quiet\", \"--nodes=1\", \"--ntasks=1\", \"--job-name=kigi-{{session}}-{{member}}\", \
             {:?}, \"--output-format\", \"stream-json\", \"-p\", \"{{prompt}}\"]\n\
             env = {{ KIGI_HOME = {:?}, SLURM_CONF = {:?} }}\noutput_format = \"kigi-stream-json\"\n",
            env!("CARGO_BIN_EXE_kigi"),
            inner_home.display().to_string(),
            conf
        ),
    )
    .unwrap();
    let items: Vec<String> = (1..=MEMBERS)
        .map(|n| {
            if n == KILLED {
                format!("#doomed-{n}")
            } else {
                format!("#ok-{n}")
            }
        })
        .collect();
    let file = env.write("items.txt", &items.join("\n"));
    let mut swarm = Running(env.spawn(&[
        "swarm",
        "--executor",
        "slurm",
        "--template",
        "work on {{item}}",
        "--items-file",
        file.to_str().unwrap(),
        "--max-concurrency",
        "12",
        "--output-format",
        "stream-json",
    ]));
    let out = drain(swarm.0.stdout.take().unwrap());
    let err = drain(swarm.0.stderr.take().unwrap());

    // The doomed member is inside its model call, so its job is running: kill it.
    let hanging = env
        .runtime
        .block_on(env.server().wait_for(Duration::from_secs(120), |log| {
            log.iter().any(|r| r.body.to_string().contains("#doomed"))
        }));
    assert!(hanging, "the doomed member never reached the model");
    let suffix = format!("-sub-{KILLED}");
    let jobs = queued_jobs(&conf);
    let job = jobs
        .iter()
        .find(|name| name.starts_with("kigi-") && name.ends_with(&suffix))
        .unwrap_or_else(|| panic!("no job for sub-{KILLED} in {jobs:?}"));
    let cancelled = Command::new("scancel")
        .args(["--name", job])
        .env("SLURM_CONF", &conf)
        .status()
        .unwrap();
    assert!(cancelled.success());

    let status = wait_for_end(&mut swarm);
    let out = out.join().unwrap();
    let err = err.join().unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let members: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "swarm_member")
        .collect();
    assert_eq!(members.len(), MEMBERS, "{err}");
    let failed: Vec<&&Value> = members
        .iter()
        .filter(|m| m["outcome"] != "completed")
        .collect();
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert_eq!(failed[0]["outcome"], "failed");
    assert_eq!(failed[0]["index"], KILLED - 1);
    assert_eq!(failed[0]["id"], format!("sub-{KILLED}"));
    let reason = failed[0]["error"].as_str().unwrap();
    assert!(
        reason.contains("executor `slurm`") && reason.to_lowercase().contains("cancel"),
        "the engine's reason: {reason}"
    );
    eprintln!("the killed member's reason: {reason}");
    let id = lines.last().unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Every member's transcript arrived in the swarm's session, through srun's stdout.
    for n in 1..=MEMBERS {
        let events = env.agent_events(&id, &format!("sub-{n}"));
        assert_eq!(events[0]["model"], "executor:slurm", "sub-{n}");
        assert_eq!(events[1]["text"], format!("work on {}", items[n - 1]));
        if n != KILLED {
            assert!(
                events
                    .iter()
                    .any(|e| e["type"] == "assistant_message" && e["text"] == "member fine"),
                "sub-{n}: {events:#?}"
            );
        }
    }
    let before = env.server().requests().len();

    let resumed = env.kigi(&["swarm", "--resume", &id, "--output-format", "json"]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let report = result_of(&resumed);
    let rerun = report["members"].as_array().unwrap();
    assert_eq!(rerun.len(), 1, "{report}");
    assert_eq!(rerun[0]["index"], KILLED - 1);
    assert_eq!(rerun[0]["outcome"], "completed");
    assert_eq!(rerun[0]["output"], "finally done");
    assert_eq!(rerun[0]["id"], format!("sub-{}", MEMBERS + 1));
    assert_eq!(env.server().requests().len(), before + 1);
    assert_eq!(
        env.agent_events(&id, &format!("sub-{}", MEMBERS + 1))[0]["model"],
        "executor:slurm"
    );

    // Interrupted, kigi passes the end on to the cluster: no member's step is left running.
    let stuck = env.write("stuck.txt", "#stuck-1\n#stuck-2\n#stuck-3\n");
    let mut swarm = Running(env.spawn(&[
        "swarm",
        "--executor",
        "slurm",
        "--template",
        "wait on {{item}}",
        "--items-file",
        stuck.to_str().unwrap(),
        "--output-format",
        "json",
    ]));
    let in_calls = env
        .runtime
        .block_on(env.server().wait_for(Duration::from_secs(120), |log| {
            log.iter()
                .filter(|r| r.body.to_string().contains("wait on #stuck"))
                .count()
                == 3
        }));
    assert!(in_calls, "the stuck members never reached the model");
    assert!(
        wait_for_queue(&conf, Duration::from_secs(30), |jobs| jobs.len() == 3),
        "{:?}",
        queued_jobs(&conf)
    );
    let interrupted = Command::new("kill")
        .args(["-INT", &swarm.0.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    assert_eq!(wait_for_end(&mut swarm).code(), Some(130));
    assert!(
        wait_for_queue(&conf, Duration::from_secs(30), <[String]>::is_empty),
        "steps left running on the cluster: {:?}",
        queued_jobs(&conf)
    );
}
