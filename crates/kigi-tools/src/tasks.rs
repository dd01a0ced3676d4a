//! Background commands of one session: started by `run_terminal_cmd` with `background: true`,
//! read with `get_task_output`, stopped with `kill_task`. Every task is killed when the
//! registry is dropped (the session ended).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::sandbox::{SandboxError, SandboxPolicy, sandbox_denial_note};
use crate::shell::{self, Ending, OutputBuffer};

/// Where a task is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskState {
    Running,
    Ended(Ending),
    /// It could not start.
    Failed(String),
}

#[derive(Debug)]
struct Task {
    command: String,
    sandbox: SandboxPolicy,
    output: Arc<Mutex<OutputBuffer>>,
    state: watch::Receiver<TaskState>,
    cancel: CancellationToken,
}

/// A snapshot of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskReport {
    pub id: String,
    pub command: String,
    pub state: TaskState,
    pub output: String,
}

impl TaskReport {
    /// The report as the model reads it: `task-1 `cmd`: exited with code 0`, then the output.
    pub fn render(&self) -> String {
        let state = match &self.state {
            TaskState::Running => "running".to_owned(),
            TaskState::Ended(Ending::Exited(code)) => format!("exited with code {code}"),
            TaskState::Ended(Ending::Cancelled) => "killed".to_owned(),
            TaskState::Ended(Ending::Signalled) => "killed by a signal".to_owned(),
            TaskState::Ended(Ending::TimedOut(_)) => "timed out".to_owned(),
            TaskState::Failed(reason) => format!("failed to start: {reason}"),
        };
        format!("{} `{}`: {state}\n{}", self.id, self.command, self.output)
    }
}

/// Told when a task starts and ends, so a front end can show background commands without
/// polling (the session reports them as host notices).
pub trait TaskWatcher: Send + Sync {
    fn started(&self, id: &str, command: &str);
    fn ended(&self, id: &str, state: &TaskState);
}

/// The session's background tasks.
#[derive(Default)]
pub struct TaskRegistry {
    next: AtomicU64,
    tasks: Mutex<BTreeMap<String, Task>>,
    watcher: Mutex<Option<Arc<dyn TaskWatcher>>>,
}

impl std::fmt::Debug for TaskRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRegistry")
            .field("tasks", &self.ids())
            .finish_non_exhaustive()
    }
}

impl TaskRegistry {
    /// Starts `command` in the background, confined to `sandbox`, and returns its id.
    pub async fn start(
        &self,
        command: &str,
        cwd: &Path,
        sandbox: &SandboxPolicy,
        output_limit: usize,
    ) -> Result<String, SandboxError> {
        let output = Arc::new(Mutex::new(OutputBuffer::new(output_limit)));
        let spawned = shell::spawn(command, cwd, sandbox, Arc::clone(&output)).await?;
        let id = format!("task-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (state_tx, state_rx) = watch::channel(TaskState::Running);
        let cancel = CancellationToken::new();
        let task_cancel = cancel.clone();
        let watcher = self.watcher();
        if let Some(watcher) = &watcher {
            watcher.started(&id, command);
        }
        let task_id = id.clone();
        tokio::spawn(async move {
            // Dropped with the runtime, this future's process group dies with it.
            let ending = shell::wait(spawned, None, &task_cancel).await;
            let state = TaskState::Ended(ending);
            if let Some(watcher) = watcher {
                watcher.ended(&task_id, &state);
            }
            let _ = state_tx.send(state);
        });
        let task = Task {
            command: command.to_owned(),
            sandbox: sandbox.clone(),
            output,
            state: state_rx,
            cancel,
        };
        self.lock().insert(id.clone(), task);
        Ok(id)
    }

    /// The task's report after it ends or `wait` passes, whichever is first; `None` for an
    /// unknown id.
    pub async fn report(&self, id: &str, wait: Duration) -> Option<TaskReport> {
        let mut state = self.lock().get(id)?.state.clone();
        let _ = tokio::time::timeout(wait, state.wait_for(|s| *s != TaskState::Running)).await;
        let tasks = self.lock();
        let task = tasks.get(id)?;
        let mut output = task.output.lock().map(|o| o.text()).unwrap_or_default();
        let state = task.state.borrow().clone();
        if let TaskState::Ended(Ending::Exited(code)) = state
            && let Some(note) = sandbox_denial_note(&task.sandbox, &task.command, code, &output)
        {
            output.push_str(&note);
        }
        Some(TaskReport {
            id: id.to_owned(),
            command: task.command.clone(),
            state,
            output,
        })
    }

    /// Tells `watcher` of every task started from now on (replacing an earlier watcher).
    pub fn set_watcher(&self, watcher: Arc<dyn TaskWatcher>) {
        *self.watcher.lock().unwrap_or_else(|p| p.into_inner()) = Some(watcher);
    }

    fn watcher(&self) -> Option<Arc<dyn TaskWatcher>> {
        self.watcher
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Cancels a task; `false` for an unknown id.
    pub fn kill(&self, id: &str) -> bool {
        match self.lock().get(id) {
            Some(task) => {
                task.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Ids of every task, in start order.
    pub fn ids(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Task>> {
        match self.tasks.lock() {
            Ok(tasks) => tasks,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

impl Drop for TaskRegistry {
    fn drop(&mut self) {
        for task in self.lock().values() {
            task.cancel.cancel();
        }
    }
}
