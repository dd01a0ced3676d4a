//! What `kigi swarm` shows as members finish: with `--output-format stream-json`, each
//! member's end as a `swarm_member` line on stdout; the counts redraw the progress bar on
//! stderr. (Recording each end in `swarm.jsonl` is the core's `RecordingWatch`, around this.)

use std::io::Write;

use kigi_core::swarm::{MemberReport, SwarmCounts, SwarmWatch};

use super::progress::OutputFormat;

/// The batch's watcher.
pub struct BatchWatch {
    format: OutputFormat,
    terminal: bool,
    total: usize,
}

impl BatchWatch {
    pub fn new(format: OutputFormat, terminal: bool, total: usize) -> Self {
        Self {
            format,
            terminal,
            total,
        }
    }
}

impl SwarmWatch for BatchWatch {
    fn counts(&self, counts: &SwarmCounts) {
        show_progress(counts, self.total, self.terminal);
    }

    fn member(&self, member: &MemberReport) {
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
