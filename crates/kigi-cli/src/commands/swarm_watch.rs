//! What `kigi swarm` does as members finish: each member's end goes to the swarm's
//! `swarm.jsonl` at once (so `--resume` knows what completed even if this process dies next),
//! and, with `--output-format stream-json`, out on stdout as a `swarm_member` line; the
//! counts redraw the progress bar on stderr.

use std::io::Write;
use std::sync::Mutex;

use kigi_core::swarm::{MemberReport, SwarmCounts, SwarmRecord, SwarmWatch};

use super::progress::OutputFormat;

/// The batch's watcher.
pub struct BatchWatch {
    record: Mutex<SwarmRecord>,
    /// The first failure to record a member: reported once at the end, never silently lost.
    record_error: Mutex<Option<String>>,
    format: OutputFormat,
    terminal: bool,
    total: usize,
}

impl BatchWatch {
    pub fn new(record: SwarmRecord, format: OutputFormat, terminal: bool, total: usize) -> Self {
        Self {
            record: Mutex::new(record),
            record_error: Mutex::new(None),
            format,
            terminal,
            total,
        }
    }

    /// Why some member's end could not be recorded, if that happened.
    pub fn record_error(&self) -> Option<String> {
        self.record_error.lock().ok().and_then(|e| e.clone())
    }
}

impl SwarmWatch for BatchWatch {
    fn counts(&self, counts: &SwarmCounts) {
        show_progress(counts, self.total, self.terminal);
    }

    fn member(&self, member: &MemberReport) {
        let recorded = self
            .record
            .lock()
            .map_err(|_| "the record's lock was poisoned".to_owned())
            .and_then(|mut record| record.member(member).map_err(|e| e.to_string()));
        if let Err(error) = recorded
            && let Ok(mut first) = self.record_error.lock()
        {
            first.get_or_insert(error);
        }
        if self.format == OutputFormat::StreamJson
            && let Ok(mut line) = serde_json::to_value(member)
        {
            line["type"] = "swarm_member".into();
            outln!("{line}");
        }
    }
}

/// A bar with counts by outcome: redrawn in place on a terminal, one line per change otherwise.
fn show_progress(counts: &SwarmCounts, total: usize, terminal: bool) {
    let done = counts.completed
        + counts.failed
        + counts.rate_limited
        + counts.backgrounded
        + counts.cancelled
        + counts.still_running;
    let width = 30;
    let filled = (done * width).checked_div(total).unwrap_or(0);
    let line = format!(
        "[{}{}] {done}/{total}  running {}  completed {}  failed {}  rate_limited {}  backgrounded {}  cancelled {}",
        "#".repeat(filled),
        ".".repeat(width - filled),
        counts.running,
        counts.completed,
        counts.failed,
        counts.rate_limited,
        counts.backgrounded,
        counts.cancelled
    );
    let mut err = std::io::stderr().lock();
    if terminal {
        let _ = write!(err, "\r{line}");
    } else {
        let _ = writeln!(err, "{line}");
    }
    let _ = err.flush();
}
