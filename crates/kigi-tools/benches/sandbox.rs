//! Benchmark: `true` run 100 times unsandboxed and 100 times sandboxed (workspace-write, no
//! network) through the same `shell::spawn` + `shell::wait` path, in turns. Prints the medians
//! and the difference (budget: at most 2 ms added per command); asserts nothing about time.
//! Run with `cargo bench -p kigi-tools --bench sandbox`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kigi_tools::shell::{self, Ending, OutputBuffer};
use kigi_tools::{SandboxPolicy, SandboxSupport, sandbox_support};
use tokio_util::sync::CancellationToken;

const RUNS: usize = 100;
/// Runs of each kind before measuring: the sandboxed kind starts its spawner thread here.
const WARM_UP: usize = 5;

async fn run_true(cwd: &std::path::Path, policy: &SandboxPolicy) -> Duration {
    let started = Instant::now();
    let buffer = Arc::new(Mutex::new(OutputBuffer::new(4096)));
    let spawned = shell::spawn("true", cwd, policy, buffer).await.unwrap();
    let ending = shell::wait(
        spawned,
        Some(Duration::from_secs(10)),
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(ending, Ending::Exited(0));
    started.elapsed()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let support = sandbox_support();
    if let SandboxSupport::Unavailable { reason } = support {
        println!("sandbox unavailable here, nothing to compare: {reason}");
        return;
    }
    let workspace = tempfile::tempdir().unwrap();
    let cwd = workspace.path().to_path_buf();
    let unconfined = SandboxPolicy::full_access();
    let confined = SandboxPolicy::workspace_write([cwd.clone()]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (plain, sandboxed) = runtime.block_on(async {
        for _ in 0..WARM_UP {
            run_true(&cwd, &unconfined).await;
            run_true(&cwd, &confined).await;
        }
        let mut plain = Vec::with_capacity(RUNS);
        let mut sandboxed = Vec::with_capacity(RUNS);
        // In turns, so drift on the machine weighs on both alike.
        for _ in 0..RUNS {
            plain.push(run_true(&cwd, &unconfined).await);
            sandboxed.push(run_true(&cwd, &confined).await);
        }
        (plain, sandboxed)
    });
    let (plain, sandboxed) = (median(plain), median(sandboxed));
    println!("sandbox support: {support:?}");
    println!("`true`, spawn + wait, median of {RUNS}:");
    println!(
        "  unsandboxed (danger-full-access):        {:.3} ms",
        ms(plain)
    );
    println!(
        "  sandboxed (workspace-write, no network): {:.3} ms",
        ms(sandboxed)
    );
    println!(
        "  added by the sandbox:                    {:+.3} ms (budget 2 ms)",
        ms(sandboxed) - ms(plain)
    );
}
