//! Starting a command inside a sandbox without `pre_exec` (unsafe code is forbidden here):
//! one OS thread per distinct policy confines itself once (Landlock applies to the calling
//! thread, and a child forked from it inherits the restriction), then serves spawn requests
//! over a channel, each answered through a oneshot. Threads live for the process; a thread
//! that could not confine itself first leaves the table (so the next request starts a fresh
//! one), then answers what it was sent with the error, and ends.
//!
//! The rule: a confined policy never falls back to an unconfined spawn; only
//! `danger-full-access` spawns on the caller's thread.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use tokio::process::{Child, Command};
use tokio::runtime::Handle;
use tokio::sync::oneshot;

use super::confine::confine_this_thread;
use super::error::SandboxError;
use super::policy::SandboxPolicy;
use super::support::{SandboxSupport, probed_support};

/// A spawner thread only forks and execs: a small stack is plenty.
const SPAWNER_STACK: usize = 256 * 1024;

/// A command to start on a confined thread, with the runtime that will drive the child (its
/// pipes and exit are registered with that runtime's reactor).
struct Request {
    command: Command,
    runtime: Handle,
    reply: oneshot::Sender<Result<Child, SandboxError>>,
}

/// A running spawner thread: its number (to tell it from a later one of the same policy) and
/// its request channel.
#[derive(Debug)]
struct Spawner {
    number: u64,
    requests: mpsc::Sender<Request>,
}

type Spawners = HashMap<SandboxPolicy, Spawner>;

/// The spawner thread of each normalized policy. Requests are sent with this lock held, so a
/// thread that removed itself receives nothing after.
static SPAWNERS: LazyLock<Mutex<Spawners>> = LazyLock::new(|| Mutex::new(HashMap::new()));

static NEXT_NUMBER: AtomicU64 = AtomicU64::new(0);

fn spawners() -> MutexGuard<'static, Spawners> {
    SPAWNERS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts `command` confined to `policy` (directly for `danger-full-access`).
pub async fn spawn_in_sandbox(
    mut command: Command,
    policy: &SandboxPolicy,
) -> Result<Child, SandboxError> {
    if !policy.is_confined() {
        return Ok(command.spawn()?);
    }
    // Fails fast once the host has probed; otherwise the spawner thread finds out itself.
    if let Some(SandboxSupport::Unavailable { reason }) = probed_support() {
        return Err(SandboxError::Unavailable {
            reason: reason.clone(),
        });
    }
    let runtime =
        Handle::try_current().map_err(|e| SandboxError::Spawn(std::io::Error::other(e)))?;
    let (reply, answer) = oneshot::channel();
    send(
        policy.normalized(),
        Request {
            command,
            runtime,
            reply,
        },
    )?;
    answer.await.unwrap_or_else(|_| {
        Err(SandboxError::SpawnerStopped {
            reason: "it ended without answering".to_owned(),
        })
    })
}

/// Hands the request to the policy's thread, starting one when there is none or the last one
/// ended.
fn send(policy: SandboxPolicy, request: Request) -> Result<(), SandboxError> {
    let mut spawners = spawners();
    let request = match spawners.get(&policy) {
        Some(spawner) => match spawner.requests.send(request) {
            Ok(()) => return Ok(()),
            // It panicked: start another.
            Err(mpsc::SendError(request)) => request,
        },
        None => request,
    };
    let (sender, requests) = mpsc::channel();
    let number = NEXT_NUMBER.fetch_add(1, Ordering::Relaxed);
    let thread_policy = policy.clone();
    std::thread::Builder::new()
        .name("kigi-sandbox".to_owned())
        .stack_size(SPAWNER_STACK)
        .spawn(move || serve(&thread_policy, number, &requests))?;
    // The new thread cannot end before it leaves the table, which waits for this lock.
    sender
        .send(request)
        .map_err(|_| SandboxError::SpawnerStopped {
            reason: "it ended before its first request".to_owned(),
        })?;
    spawners.insert(
        policy,
        Spawner {
            number,
            requests: sender,
        },
    );
    Ok(())
}

/// The body of a spawner thread.
fn serve(policy: &SandboxPolicy, number: u64, requests: &mpsc::Receiver<Request>) {
    if let Err(error) = confine_this_thread(policy) {
        {
            let mut spawners = spawners();
            if spawners.get(policy).is_some_and(|s| s.number == number) {
                spawners.remove(policy);
            }
        }
        // Everything sent to this thread is queued by now.
        let reason = error.to_string();
        if let Ok(first) = requests.try_recv() {
            let _ = first.reply.send(Err(error));
        }
        while let Ok(request) = requests.try_recv() {
            let _ = request.reply.send(Err(SandboxError::SpawnerStopped {
                reason: reason.clone(),
            }));
        }
        return;
    }
    for mut request in requests {
        let _runtime = request.runtime.enter();
        let child = request.command.spawn().map_err(SandboxError::from);
        let _ = request.reply.send(child);
    }
}
