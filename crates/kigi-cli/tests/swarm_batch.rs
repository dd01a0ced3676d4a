//! `kigi swarm` as a batch: members on an executor (here kigi itself in stream-json mode, the
//! shape of an `srun`/`kubectl run`/`ssh` recipe, against the same scripted model), more items
//! than the `agent_swarm` tool takes, member results streamed as they finish, and `--resume`
//! rerunning only what did not complete.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use kigi_testkit::{Fault, Script, ScriptSet, Step};
use serde_json::Value;
use support::{Env, result_of, stderr, stdout};

/// `[agent_executors.<id>]` running the real kigi binary headless, with its own home.
fn kigi_executor(env: &Env, id: &str) -> String {
    let inner_home = env.home.parent().unwrap().join("inner-home");
    std::fs::create_dir_all(&inner_home).unwrap();
    format!(
        "[agent_executors.{id}]\nkind = \"command\"\ncommand = {:?}\n\
         args = [\"--output-format\", \"stream-json\", \"-p\", \"{{prompt}}\"]\n\
         env = {{ KIGI_HOME = {:?} }}\noutput_format = \"kigi-stream-json\"\n",
        env!("CARGO_BIN_EXE_kigi"),
        inner_home.display().to_string()
    )
}

fn lines_of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn members_run_on_an_executor_stream_their_ends_and_resume_reruns_only_the_failed_one() {
    let scripts = ScriptSet::default()
        .with(Script::matching("#ok", vec![Step::text("member fine")]))
        .with(Script::matching(
            "#flaky",
            // Refused the first time (a 400 is never retried), answered the second.
            vec![Step::text("flaky fixed").after_faults(vec![Fault::Status {
                status: 400,
                retry_after_ms: None,
                code: None,
                message: Some("bad day".into()),
            }])],
        ));
    let env = Env::with_scripts(scripts);
    std::fs::write(
        env.home.join("config.toml"),
        format!(
            "[swarm]\nexecutor = \"cluster\"\n{}",
            kigi_executor(&env, "cluster")
        ),
    )
    .unwrap();
    let items = env.write("items.txt", "#ok-1\n#flaky-2\n#ok-3\n");
    let out = env.kigi(&[
        "swarm",
        "--template",
        "do {{item}}",
        "--items-file",
        items.to_str().unwrap(),
        "--output-format",
        "stream-json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let members = lines_of_type(&lines, "swarm_member");
    assert_eq!(members.len(), 3, "{}", stdout(&out));
    let failed: Vec<&&Value> = members
        .iter()
        .filter(|m| m["outcome"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{members:#?}");
    assert_eq!(failed[0]["index"], 1);
    assert_eq!(failed[0]["item"], "#flaky-2");
    assert!(
        members
            .iter()
            .filter(|m| m["outcome"] == "completed")
            .all(|m| m["output"] == "member fine"),
        "{members:#?}"
    );
    // The totals come last (the members having streamed), not the members again.
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "swarm_result");
    assert_eq!(
        (&result["members"], &result["completed"], &result["failed"]),
        (&3.into(), &2.into(), &1.into()),
        "{result}"
    );
    let id = result["session_id"].as_str().unwrap().to_owned();
    // Each member ran on the executor and its transcript is in the swarm's session.
    for agent in ["sub-1", "sub-2", "sub-3"] {
        let events = env.agent_events(&id, agent);
        assert_eq!(
            events[0]["model"], "executor:cluster",
            "{agent}: {events:#?}"
        );
    }
    let requests = env.server().requests().len();
    assert_eq!(requests, 3);

    let resumed = env.kigi(&["swarm", "--resume", &id, "--output-format", "json"]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains("resuming: 1 of 3 members did not complete"),
        "{}",
        stderr(&resumed)
    );
    let report = result_of(&resumed);
    assert_eq!(report["session_id"], id.as_str());
    let rerun = report["members"].as_array().unwrap();
    assert_eq!(rerun.len(), 1, "{report}");
    assert_eq!(rerun[0]["index"], 1);
    assert_eq!(rerun[0]["outcome"], "completed");
    assert_eq!(rerun[0]["output"], "flaky fixed");
    // Numbered after the first run's members, in the same session.
    assert_eq!(rerun[0]["id"], "sub-4");
    assert_eq!(env.agent_events(&id, "sub-4")[1]["text"], "do #flaky-2");
    assert_eq!(env.server().requests().len(), requests + 1);

    // Nothing is owed any more: a third run starts nothing.
    let again = env.kigi(&["swarm", "--resume", &id, "--output-format", "json"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("resuming: 0 of 3"),
        "{}",
        stderr(&again)
    );
    assert_eq!(env.server().requests().len(), requests + 1);
}

#[test]
fn resume_refuses_a_new_template_and_a_session_that_is_not_a_swarm() {
    let env = Env::with_scripts(ScriptSet::single(vec![Step::text("hello")]));
    let print = env.kigi(&["-p", "hi", "--output-format", "json"]);
    let id = result_of(&print)["session_id"].as_str().unwrap().to_owned();
    let not_swarm = env.kigi(&["swarm", "--resume", &id]);
    assert_eq!(not_swarm.status.code(), Some(1));
    assert!(
        stderr(&not_swarm).contains(&format!("--resume {id}"))
            && stderr(&not_swarm).contains("swarm.jsonl"),
        "{}",
        stderr(&not_swarm)
    );
    let mixed = env.kigi(&["swarm", "--resume", &id, "--template", "x {{item}}"]);
    assert_eq!(mixed.status.code(), Some(1));
    assert!(
        stderr(&mixed).contains("--template cannot be used with --resume"),
        "{}",
        stderr(&mixed)
    );
    let neither = env.kigi(&["swarm"]);
    assert_eq!(neither.status.code(), Some(1));
    assert!(
        stderr(&neither).contains("needs --template and --items-file"),
        "{}",
        stderr(&neither)
    );
    let unknown = env.kigi(&[
        "swarm",
        "--template",
        "x {{item}}",
        "--items-file",
        env.write("i.txt", "a\nb\n").to_str().unwrap(),
        "--executor",
        "nowhere",
    ]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("nothing was started")
            && stderr(&unknown).contains("executor `nowhere` is not configured"),
        "{}",
        stderr(&unknown)
    );
    // Nothing was asked of the model but the one print turn.
    assert_eq!(env.server().requests().len(), 1);
}

#[test]
fn a_batch_takes_more_items_than_the_tool_and_records_every_member() {
    let env = Env::with_scripts(ScriptSet::single(vec![Step::text("ok")]));
    let items: Vec<String> = (0..200).map(|n| format!("item-{n}")).collect();
    let file = env.write("items.txt", &items.join("\n"));
    let out = env.kigi(&[
        "swarm",
        "--template",
        "check {{item}}",
        "--items-file",
        file.to_str().unwrap(),
        "--max-concurrency",
        "32",
        "--output-format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = result_of(&out);
    let members = report["members"].as_array().unwrap();
    assert_eq!(members.len(), 200);
    assert!(members.iter().all(|m| m["outcome"] == "completed"));
    let id = report["session_id"].as_str().unwrap();
    let record =
        std::fs::read_to_string(env.home.join("sessions").join(id).join("swarm.jsonl")).unwrap();
    let lines = json_lines(&record);
    assert_eq!(lines[0]["type"], "swarm");
    assert_eq!(lines[0]["request"]["items"].as_array().unwrap().len(), 200);
    assert_eq!(lines_of_type(&lines, "member").len(), 200);
    assert_eq!(env.server().requests().len(), 200);
}

#[test]
fn a_batch_runs_as_many_members_at_once_as_its_own_cap_not_the_subagent_slots() {
    // Every member hangs inside its model call, so all that can run at once are in flight
    // together: 24 of them, past `[subagents] max_concurrent`'s default of 16.
    let env = Env::with_scripts(ScriptSet::single(vec![
        Step::text("never").after_faults(vec![Fault::Hang]),
    ]));
    let items: Vec<String> = (0..24).map(|n| format!("item-{n}")).collect();
    let file = env.write("items.txt", &items.join("\n"));
    let swarm = env.spawn(&[
        "swarm",
        "--template",
        "check {{item}}",
        "--items-file",
        file.to_str().unwrap(),
        "--max-concurrency",
        "24",
        "--output-format",
        "json",
    ]);
    let all_in_flight = env.runtime.block_on(
        env.server()
            .wait_for(std::time::Duration::from_secs(60), |log| log.len() == 24),
    );
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &swarm.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let out = swarm.wait_with_output().unwrap();
    assert!(
        all_in_flight,
        "only {} members ran at once",
        env.server().requests().len()
    );
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let report = result_of(&out);
    assert!(
        report["members"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["outcome"] == "cancelled"),
        "{report}"
    );
}

#[test]
fn a_member_its_engine_says_was_rate_limited_is_retried_by_the_swarms_rules() {
    let env = Env::with_scripts(ScriptSet::default().with(Script::matching(
        "#busy",
        // Throttled once (the member's own kigi does not retry it), then answered.
        vec![Step::text("got through").after_faults(vec![Fault::Status {
            status: 429,
            retry_after_ms: None,
            code: None,
            message: Some("slow down".into()),
        }])],
    )));
    let executor = kigi_executor(&env, "cluster");
    let inner_home = env.home.parent().unwrap().join("inner-home");
    std::fs::write(
        inner_home.join("config.toml"),
        "[retry]\nmax_rate_limit_retries = 0\n",
    )
    .unwrap();
    std::fs::write(
        env.home.join("config.toml"),
        format!("[swarm]\nretry_delay_ms = 10\n{executor}"),
    )
    .unwrap();
    let items = env.write("items.txt", "#busy-1\n#busy-2\n");
    let out = env.kigi(&[
        "swarm",
        "--executor",
        "cluster",
        "--template",
        "do {{item}}",
        "--items-file",
        items.to_str().unwrap(),
        "--output-format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = result_of(&out);
    for member in report["members"].as_array().unwrap() {
        assert_eq!(member["outcome"], "completed", "{member}");
        assert_eq!(member["output"], "got through", "{member}");
        assert_eq!(member["attempts"], 2, "{member}");
    }
}
