//! Benchmark: wall time of `kigi --version` (process start to exit). Prints figures; asserts
//! nothing about time. Run with `cargo bench -p kigi-cli`.

#![allow(clippy::print_stdout, clippy::unwrap_used)]

use std::process::Command;
use std::time::Instant;

const RUNS: usize = 50;

fn main() {
    let exe = env!("CARGO_BIN_EXE_kigi");
    let mut samples: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let out = Command::new(exe).arg("--version").output().unwrap();
            assert!(out.status.success());
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    println!(
        "kigi --version ({RUNS} runs): median {:.2} ms, p90 {:.2} ms, min {:.2} ms (target <= 5 ms)",
        samples[RUNS / 2],
        samples[RUNS * 9 / 10],
        samples[0]
    );
}
