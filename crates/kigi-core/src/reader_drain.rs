//! Collecting what a child process's output reader read, once the process has ended: a
//! grandchild that keeps the pipe open must not hold the caller, so the wait has a ceiling
//! and a reader still running past it is aborted (its text is lost, the caller goes on).

use std::time::Duration;

use tokio::task::JoinHandle;

/// The reader's text, or nothing when there is no reader or it outlives `ceiling`.
pub(crate) async fn drain(reader: Option<JoinHandle<String>>, ceiling: Duration) -> String {
    let Some(reader) = reader else {
        return String::new();
    };
    let abort = reader.abort_handle();
    match tokio::time::timeout(ceiling, reader).await {
        Ok(Ok(text)) => text,
        _ => {
            abort.abort();
            String::new()
        }
    }
}
