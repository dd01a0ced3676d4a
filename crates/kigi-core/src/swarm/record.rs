//! `swarm.jsonl`, beside a `kigi swarm` session's `wire.jsonl`: the request on its first line,
//! then one line per member as it finishes, flushed at once. It is what `kigi swarm --resume`
//! reads to rerun only the members that did not complete, so it must survive the process
//! dying mid-swarm (a node lost, a Ctrl-C, an out-of-memory kill): every line is whole on
//! disk before the next member's is written, and a torn last line is ignored on reading.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use std::sync::Mutex;

use super::engine::{MemberReport, SwarmCounts, SwarmOutcome, SwarmWatch};
use super::plan::SwarmRequest;

/// The file's name in the session's folder.
pub const RECORD_FILE: &str = "swarm.jsonl";
/// The most a record may hold: 10,000 items with long prompts, and their members' lines.
const RECORD_CAP: u64 = 256 * 1024 * 1024;

/// The first line: what was asked, as `--resume` needs it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedRequest {
    #[serde(flatten)]
    pub request: SwarmRequest,
    /// Every member's reasoning effort, as given.
    pub effort: Option<String>,
}

impl RecordedRequest {
    /// The request a batch resumes with.
    pub fn to_request(&self) -> SwarmRequest {
        SwarmRequest {
            batch: true,
            ..self.request.clone()
        }
    }

    pub fn of(request: &SwarmRequest, effort: Option<&str>) -> Self {
        Self {
            request: request.clone(),
            effort: effort.map(str::to_owned),
        }
    }

    /// How many items the swarm had.
    pub fn item_count(&self) -> usize {
        self.request.items.len()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Line {
    Swarm { request: RecordedRequest },
    Member { member: RecordedMember },
}

/// One member's end, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedMember {
    pub index: usize,
    pub outcome: SwarmOutcome,
    pub id: Option<String>,
    pub error: Option<String>,
    pub attempts: u32,
    pub tokens: u64,
}

impl From<&MemberReport> for RecordedMember {
    fn from(line: &MemberReport) -> Self {
        Self {
            index: line.index,
            outcome: line.outcome,
            id: line.id.clone(),
            error: line.error.clone(),
            attempts: line.attempts,
            tokens: line.tokens,
        }
    }
}

/// A record read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedSwarm {
    pub request: RecordedRequest,
    /// Every member's latest end, by item index (a rerun's line replaces the earlier one).
    pub members: std::collections::BTreeMap<usize, RecordedMember>,
}

impl RecordedSwarm {
    /// Items whose latest run completed: a resume leaves them alone.
    pub fn completed(&self) -> BTreeSet<usize> {
        self.members
            .values()
            .filter(|m| m.outcome == SwarmOutcome::Completed)
            .map(|m| m.index)
            .collect()
    }
}

/// Why a record could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Missing, not a regular file, or over the cap (the message names the file).
    #[error(transparent)]
    Read(#[from] kigi_agent::BoundedReadError),
    #[error(
        "{}: not a `kigi swarm` record (its first line is not the swarm's request); only a session made by `kigi swarm` can be resumed with --resume",
        path.display()
    )]
    NotASwarm { path: PathBuf },
}

/// An open record, appended to as members finish.
#[derive(Debug)]
pub struct SwarmRecord {
    path: PathBuf,
    file: File,
}

impl SwarmRecord {
    /// A new record at `path` holding `request`.
    pub fn create(path: &Path, request: &RecordedRequest) -> Result<Self, RecordError> {
        let file = OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(path)
            .map_err(|source| io(path, source))?;
        let mut record = Self {
            path: path.to_owned(),
            file,
        };
        record.write(&Line::Swarm {
            request: request.clone(),
        })?;
        Ok(record)
    }

    /// An existing record, to append a resumed run's members to. A torn last line (the
    /// writer died mid-line) is closed first, so the next line starts whole on its own.
    pub fn append(path: &Path) -> Result<Self, RecordError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|source| io(path, source))?;
        if ends_torn(&mut file).map_err(|source| io(path, source))? {
            file.write_all(b"\n").map_err(|source| io(path, source))?;
        }
        Ok(Self {
            path: path.to_owned(),
            file,
        })
    }

    /// `line`, whole on disk before this returns.
    pub fn member(&mut self, line: &MemberReport) -> Result<(), RecordError> {
        self.write(&Line::Member {
            member: RecordedMember::from(line),
        })
    }

    fn write(&mut self, line: &Line) -> Result<(), RecordError> {
        let mut text = serde_json::to_string(line).map_err(|e| io(&self.path, e.into()))?;
        text.push('\n');
        // One write per line: a reader never sees half of one next to a whole one.
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|source| io(&self.path, source))
    }
}

/// A watcher that writes each member's end to the swarm's record before `inner` sees it: what
/// every batch runs under, whatever front end shows it, so `--resume` can trust the record.
pub struct RecordingWatch<'a> {
    record: Mutex<SwarmRecord>,
    /// The first failure to record a member: kept for the end, never silently lost.
    error: Mutex<Option<String>>,
    inner: &'a dyn SwarmWatch,
}

impl std::fmt::Debug for RecordingWatch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordingWatch")
            .field("record", &self.record)
            .finish_non_exhaustive()
    }
}

impl<'a> RecordingWatch<'a> {
    pub fn new(record: SwarmRecord, inner: &'a dyn SwarmWatch) -> Self {
        Self {
            record: Mutex::new(record),
            error: Mutex::new(None),
            inner,
        }
    }

    /// Why some member's end could not be recorded, if that happened.
    pub fn error(&self) -> Option<String> {
        self.error.lock().ok().and_then(|e| e.clone())
    }
}

impl SwarmWatch for RecordingWatch<'_> {
    fn counts(&self, counts: &SwarmCounts) {
        self.inner.counts(counts);
    }

    fn member(&self, member: &MemberReport) {
        let recorded = self
            .record
            .lock()
            .map_err(|_| "the record's lock was poisoned".to_owned())
            .and_then(|mut record| record.member(member).map_err(|e| e.to_string()));
        if let Err(error) = recorded
            && let Ok(mut first) = self.error.lock()
        {
            first.get_or_insert(error);
        }
        self.inner.member(member);
    }
}

/// Whether `file` is non-empty and does not end with a newline.
fn ends_torn(file: &mut File) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    if file.metadata()?.len() == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// Reads the record at `path`. A torn last line (the writer died mid-write) is skipped; any
/// other unreadable line is skipped too, since the request line alone decides what reruns.
pub fn read_record(path: &Path) -> Result<RecordedSwarm, RecordError> {
    let text = kigi_agent::read_bounded(path, RECORD_CAP)?;
    let mut lines = text.lines();
    let request = match lines.next().map(serde_json::from_str::<Line>) {
        Some(Ok(Line::Swarm { request })) => request,
        _ => {
            return Err(RecordError::NotASwarm {
                path: path.to_owned(),
            });
        }
    };
    let mut members = std::collections::BTreeMap::new();
    for line in lines {
        if let Ok(Line::Member { member }) = serde_json::from_str::<Line>(line)
            && member.index < request.item_count()
        {
            members.insert(member.index, member);
        }
    }
    Ok(RecordedSwarm { request, members })
}

fn io(path: &Path, source: std::io::Error) -> RecordError {
    RecordError::Io {
        path: path.to_owned(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(index: usize, outcome: SwarmOutcome) -> MemberReport {
        MemberReport {
            index,
            item: format!("item {index}"),
            outcome,
            id: Some(format!("sub-{}", index + 1)),
            output: "answer".into(),
            error: None,
            attempts: 1,
            tokens: 7,
        }
    }

    fn request() -> RecordedRequest {
        RecordedRequest::of(
            &SwarmRequest {
                description: "d".into(),
                prompt_template: "do {{item}}".into(),
                items: vec!["a".into(), "b".into(), "c".into()],
                executor: Some("slurm".into()),
                batch: true,
                ..SwarmRequest::default()
            },
            Some("low"),
        )
    }

    #[test]
    fn a_rerun_replaces_a_members_earlier_end_and_a_torn_line_costs_only_itself() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORD_FILE);
        let mut record = SwarmRecord::create(&path, &request()).unwrap();
        record.member(&member(0, SwarmOutcome::Completed)).unwrap();
        record.member(&member(1, SwarmOutcome::Failed)).unwrap();
        drop(record);
        // The first run died halfway through member 2's line.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"type":"member","member":{"index":2,"outc"#)
            .unwrap();
        drop(file);
        // The resumed run's first line still reads.
        let mut record = SwarmRecord::append(&path).unwrap();
        record.member(&member(1, SwarmOutcome::Completed)).unwrap();
        drop(record);

        let read = read_record(&path).unwrap();
        assert_eq!(read.request, request());
        assert_eq!(read.request.to_request().executor.as_deref(), Some("slurm"));
        assert!(read.request.to_request().batch);
        assert_eq!(read.completed(), BTreeSet::from([0, 1]));
        assert_eq!(read.members.len(), 2);
    }

    #[test]
    fn a_recording_watch_writes_each_end_before_passing_it_on() {
        struct Seen(Mutex<Vec<usize>>);
        impl SwarmWatch for Seen {
            fn counts(&self, _: &SwarmCounts) {}
            fn member(&self, member: &MemberReport) {
                self.0.lock().unwrap().push(member.index);
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORD_FILE);
        let seen = Seen(Mutex::new(Vec::new()));
        let watch = RecordingWatch::new(SwarmRecord::create(&path, &request()).unwrap(), &seen);
        watch.member(&member(2, SwarmOutcome::Completed));
        watch.member(&member(0, SwarmOutcome::Failed));
        assert_eq!(*seen.0.lock().unwrap(), [2, 0]);
        assert_eq!(read_record(&path).unwrap().completed(), BTreeSet::from([2]));
        assert_eq!(watch.error(), None);
    }

    #[test]
    fn a_session_without_a_swarm_line_is_named_as_not_a_swarm() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORD_FILE);
        std::fs::write(&path, "{\"type\":\"member\"}\n").unwrap();
        let error = read_record(&path).unwrap_err().to_string();
        assert!(error.contains("not a `kigi swarm` record"), "{error}");
        assert!(error.contains(RECORD_FILE), "{error}");
        assert!(SwarmRecord::create(&path, &request()).is_err());
    }
}
