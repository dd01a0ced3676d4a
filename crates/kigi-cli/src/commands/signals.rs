//! How a run ends on a signal. The first Ctrl-C, SIGTERM or SIGHUP asks the run to stop (an
//! interrupt, or a swarm's cancel), so what finished is still reported and transcripts end
//! with their `turn_end`. A second one exits at once with 130, even while a tool is blocked
//! in a system call, after killing every process group kigi started.
//!
//! The rule: signals are watched on a thread of their own with its own runtime, so they are
//! seen even when the run's runtime is stuck.

use tokio::signal::unix::{Signal, SignalKind, signal};

/// How long the caller waits for the watcher to be in place.
const READY_CEILING: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs `first` on the first ending signal; exits on the second. Returns once the signals
/// are watched, so none sent after it can take the default path (an abrupt end).
pub fn on_ending_signal(first: impl FnOnce() + Send + 'static) {
    let (ready, watching) = std::sync::mpsc::channel();
    let watcher = move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
        else {
            let _ = ready.send(());
            return;
        };
        runtime.block_on(async move {
            let mut watched = [
                signal(SignalKind::interrupt()).ok(),
                signal(SignalKind::terminate()).ok(),
                signal(SignalKind::hangup()).ok(),
            ];
            let _ = ready.send(());
            let mut first = Some(first);
            loop {
                let [interrupt, terminate, hangup] = &mut watched;
                tokio::select! {
                    () = received(interrupt) => {}
                    () = received(terminate) => {}
                    () = received(hangup) => {}
                }
                match first.take() {
                    Some(first) => first(),
                    None => {
                        kigi_tools::process_group::kill_all();
                        std::process::exit(130);
                    }
                }
            }
        });
    };
    // A thread that cannot be made leaves the default: the signal ends the process.
    if std::thread::Builder::new()
        .name("kigi-signals".into())
        .spawn(watcher)
        .is_ok()
    {
        let _ = watching.recv_timeout(READY_CEILING);
    }
}

/// The next delivery of `signal`; never, for a signal that could not be watched.
async fn received(signal: &mut Option<Signal>) {
    match signal {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}
