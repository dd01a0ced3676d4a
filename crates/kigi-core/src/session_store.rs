//! Sessions on disk: `$KIGI_HOME/sessions/<session-id>/wire.jsonl`, one record per line,
//! appended and flushed as events happen.
//!
//! The rule: loading never loses what a crash did not touch. A torn or corrupt line is
//! skipped with a warning naming its line number; every other line still loads.
//!
//! A session's last use is its transcript's modification time, which kigi sets itself from
//! the fine-grained clock on every open and append (file systems stamp writes with a coarse
//! one), strictly increasing within a process. Listings and `--continue` order by it, so
//! sessions started within one second still come out in the order they were used.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use kigi_protocol::SessionEvent;

use crate::session_id::{is_session_id, is_subagent_id};
use crate::session_lock::SessionLock;
use crate::wire_record::{self, MAIN_AGENT, StoredEvent};

/// The name of a session's transcript file.
pub const WIRE_FILE: &str = "wire.jsonl";

/// The folder holding every session.
#[derive(Debug, Clone)]
pub struct SessionStore {
    root: PathBuf,
}

/// A session's transcript, open for appending.
#[derive(Debug)]
pub struct SessionWriter {
    session_id: String,
    agent_id: String,
    path: PathBuf,
    file: File,
    /// The main transcript's writer lock (children write inside their parent's).
    _lock: Option<SessionLock>,
}

/// A session file read back.
#[derive(Debug, Clone, Default)]
pub struct LoadedSession {
    pub events: Vec<StoredEvent>,
    /// One line per skipped line: `wire.jsonl:17: …`.
    pub warnings: Vec<String>,
}

impl LoadedSession {
    /// The agent the session was started with.
    pub fn agent(&self) -> Option<&str> {
        self.events.iter().find_map(|e| match &e.event {
            SessionEvent::SessionStart { agent, .. } => Some(agent.as_str()),
            _ => None,
        })
    }
}

/// A session in a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub id: String,
    pub started: String,
    /// When the session was last written (RFC 3339, milliseconds).
    pub last_used: String,
    pub agent: String,
    pub cwd: String,
    pub first_prompt: String,
    pub turns: usize,
}

/// A failure to use the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An id that is not a session id (ids are never joined onto paths unchecked).
    #[error("`{0}` is not a session id (expected something like 20261130-124501-1a2b3c)")]
    BadId(String),
    /// A subagent id that is not one.
    #[error("`{0}` is not a subagent id (expected sub-1, sub-2, …)")]
    BadAgentId(String),
    #[error("no session `{id}` in {}", root.display())]
    NotFound { id: String, root: PathBuf },
    /// Another process writes this session now.
    #[error(
        "session {id} is in use by another kigi process (pid {holder}); wait for it to end, or start a new session"
    )]
    InUse { id: String, holder: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl SessionStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The transcript path of session `id`, refusing anything that is not a session id.
    pub fn wire_path(&self, id: &str) -> Result<PathBuf, StoreError> {
        if !is_session_id(id) {
            return Err(StoreError::BadId(id.to_owned()));
        }
        Ok(self.root.join(id).join(WIRE_FILE))
    }

    /// Creates the session's folder and file, and takes its writer lock.
    pub fn create(&self, id: &str) -> Result<SessionWriter, StoreError> {
        let path = self.wire_path(id)?;
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let lock = SessionLock::acquire(&dir, id)?;
        let mut writer = create_writer(path, id, MAIN_AGENT)?;
        writer._lock = Some(lock);
        writer.mark_used();
        Ok(writer)
    }

    /// The transcript path of subagent `agent_id` of session `id`.
    pub fn child_wire_path(&self, id: &str, agent_id: &str) -> Result<PathBuf, StoreError> {
        let parent = self.wire_path(id)?;
        if !is_subagent_id(agent_id) {
            return Err(StoreError::BadAgentId(agent_id.to_owned()));
        }
        let dir = parent
            .parent()
            .unwrap_or(&self.root)
            .join("agents")
            .join(agent_id);
        Ok(dir.join(WIRE_FILE))
    }

    /// The ids of session `id`'s subagents with a folder of their own, in number order
    /// (`sub-2` before `sub-10`); empty when it has none or cannot be read. A folder whose name
    /// is not a subagent id is not one.
    pub fn child_ids(&self, id: &str) -> Vec<String> {
        let Some(agents) = self
            .wire_path(id)
            .ok()
            .and_then(|wire| Some(wire.parent()?.join("agents")))
        else {
            return Vec::new();
        };
        let mut ids: Vec<(u64, String)> = std::fs::read_dir(agents)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                    .filter(|name| is_subagent_id(name))
                    .filter_map(|name| Some((name.strip_prefix("sub-")?.parse().ok()?, name)))
                    .collect()
            })
            .unwrap_or_default();
        ids.sort();
        ids.into_iter().map(|(_, name)| name).collect()
    }

    /// Creates the transcript of subagent `agent_id` inside session `id`'s folder.
    pub fn create_child(&self, id: &str, agent_id: &str) -> Result<SessionWriter, StoreError> {
        create_writer(self.child_wire_path(id, agent_id)?, id, agent_id)
    }

    /// Reads subagent `agent_id`'s transcript.
    pub fn load_child(&self, id: &str, agent_id: &str) -> Result<LoadedSession, StoreError> {
        let path = self.child_wire_path(id, agent_id)?;
        if !path.exists() {
            return Err(StoreError::NotFound {
                id: format!("{id} --agent {agent_id}"),
                root: self.root.clone(),
            });
        }
        load(&path)
    }

    /// Reads session `id` and opens it for appending.
    pub fn reopen(&self, id: &str) -> Result<(LoadedSession, SessionWriter), StoreError> {
        let path = self.wire_path(id)?;
        if !path.exists() {
            return Err(StoreError::NotFound {
                id: id.to_owned(),
                root: self.root.clone(),
            });
        }
        let lock = SessionLock::acquire(path.parent().unwrap_or(&self.root), id)?;
        let loaded = load(&path)?;
        let mut file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        // A torn last line has no newline; start the next record on a line of its own.
        if std::fs::read(&path)
            .map_err(io(&path))?
            .last()
            .is_some_and(|b| *b != b'\n')
        {
            file.write_all(b"\n").map_err(io(&path))?;
        }
        let writer = SessionWriter {
            session_id: id.to_owned(),
            agent_id: MAIN_AGENT.to_owned(),
            path,
            file,
            _lock: Some(lock),
        };
        writer.mark_used();
        Ok((loaded, writer))
    }

    /// Reads session `id`.
    pub fn load(&self, id: &str) -> Result<LoadedSession, StoreError> {
        let path = self.wire_path(id)?;
        if !path.exists() {
            return Err(StoreError::NotFound {
                id: id.to_owned(),
                root: self.root.clone(),
            });
        }
        load(&path)
    }

    /// The session last used in `cwd`, if any.
    pub fn latest_in(&self, cwd: &Path) -> Result<Option<String>, StoreError> {
        let here = cwd.display().to_string();
        Ok(self
            .list()?
            .into_iter()
            .find(|s| s.cwd == here)
            .map(|s| s.id))
    }

    /// Every session, the last used first.
    pub fn list(&self) -> Result<Vec<SessionSummary>, StoreError> {
        let entries = match std::fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&self.root)(e)),
        };
        let ids: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| is_session_id(name))
            .collect();
        let mut used: Vec<(SystemTime, Summarized)> = Vec::new();
        for id in ids {
            let Ok(path) = self.wire_path(&id) else {
                continue;
            };
            let Ok(loaded) = load(&path) else { continue };
            let last_used = std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .unwrap_or(UNIX_EPOCH);
            used.push((last_used, summarize(&id, &loaded, last_used)));
        }
        // Equal times (a coarse file system) fall back to the last record's time, then the id.
        used.sort_by(|(a_time, a), (b_time, b)| {
            b_time
                .cmp(a_time)
                .then_with(|| b.last_record.cmp(&a.last_record))
                .then_with(|| b.summary.id.cmp(&a.summary.id))
        });
        Ok(used.into_iter().map(|(_, s)| s.summary).collect())
    }
}

/// A summary with what ordering needs beside it.
#[derive(Debug)]
struct Summarized {
    summary: SessionSummary,
    last_record: String,
}

/// A time after every stamp this process made before: the fine-grained clock, moved on by a
/// nanosecond when it has not advanced (or went back) since the last call.
fn use_stamp() -> SystemTime {
    static LAST_NANOS: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    let mut previous = LAST_NANOS.load(Ordering::Relaxed);
    loop {
        let next = now.max(previous.saturating_add(1));
        match LAST_NANOS.compare_exchange_weak(previous, next, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => return UNIX_EPOCH + Duration::from_nanos(next),
            Err(seen) => previous = seen,
        }
    }
}

fn summarize(id: &str, loaded: &LoadedSession, last_used: SystemTime) -> Summarized {
    let mut summary = SessionSummary {
        id: id.to_owned(),
        started: loaded
            .events
            .first()
            .map(|e| e.timestamp.clone())
            .unwrap_or_default(),
        last_used: chrono::DateTime::<chrono::Utc>::from(last_used)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        agent: String::new(),
        cwd: String::new(),
        first_prompt: String::new(),
        turns: 0,
    };
    for stored in &loaded.events {
        match &stored.event {
            SessionEvent::SessionStart { agent, cwd, .. } => {
                summary.agent.clone_from(agent);
                summary.cwd.clone_from(cwd);
            }
            SessionEvent::UserMessage { text } if summary.first_prompt.is_empty() => {
                summary.first_prompt = text.lines().next().unwrap_or("").chars().take(80).collect();
            }
            SessionEvent::TurnEnd { .. } => summary.turns += 1,
            _ => {}
        }
    }
    Summarized {
        summary,
        last_record: loaded
            .events
            .last()
            .map(|e| e.timestamp.clone())
            .unwrap_or_default(),
    }
}

/// Creates a transcript file (never over an existing one) and its folder.
fn create_writer(
    path: PathBuf,
    session_id: &str,
    agent_id: &str,
) -> Result<SessionWriter, StoreError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let file = OpenOptions::new()
        .create_new(true)
        .append(true)
        .open(&path)
        .map_err(io(&path))?;
    Ok(SessionWriter {
        session_id: session_id.to_owned(),
        agent_id: agent_id.to_owned(),
        path,
        file,
        _lock: None,
    })
}

/// Reads a transcript, skipping lines that do not parse.
fn load(path: &Path) -> Result<LoadedSession, StoreError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    let text = String::from_utf8_lossy(&bytes);
    let mut loaded = LoadedSession::default();
    let line_count = text.lines().count();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match wire_record::decode(line) {
            Ok(event) => loaded.events.push(event),
            Err(error) => {
                let what = if index + 1 == line_count && !text.ends_with('\n') {
                    "torn last line (a crash mid-write?)"
                } else {
                    "unreadable line"
                };
                loaded.warnings.push(format!(
                    "{}:{}: {what} skipped: {error}",
                    path.display(),
                    index + 1
                ));
            }
        }
    }
    Ok(loaded)
}

impl SessionWriter {
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// `main`, or the subagent id.
    pub fn agent_id(&self) -> &str {
        &self.agent_id
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The first record of this transcript.
    pub fn start_event(&self, agent: &str, model: &str, cwd: &Path) -> SessionEvent {
        SessionEvent::SessionStart {
            session_id: self.session_id.clone(),
            agent: agent.to_owned(),
            model: model.to_owned(),
            cwd: cwd.display().to_string(),
            kigi_version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }

    /// Appends one event and flushes it to the OS. Live-only events are not stored.
    pub fn append(&mut self, event: &SessionEvent) -> Result<(), StoreError> {
        if event.is_live_only() {
            return Ok(());
        }
        let timestamp = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let mut line = wire_record::encode(&self.session_id, &self.agent_id, &timestamp, event);
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .map_err(io(&self.path))?;
        self.file.flush().map_err(io(&self.path))?;
        if self.agent_id == MAIN_AGENT {
            self.mark_used();
        }
        Ok(())
    }

    /// Stamps the transcript as used now (see the module doc). Best effort: a file system
    /// that keeps no such time costs only the order of listings, never the record.
    fn mark_used(&self) {
        let _ = self.file.set_modified(use_stamp());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn start(store: &SessionStore, id: &str, cwd: &Path) -> SessionWriter {
        let mut writer = store.create(id).unwrap();
        let event = writer.start_event("default", "m", cwd);
        writer.append(&event).unwrap();
        writer
    }

    #[test]
    fn sessions_of_one_second_are_listed_and_continued_by_last_use_not_by_id() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::new(tmp.path().join("sessions"));
        let cwd = tmp.path().join("project");
        // One second, random suffixes in the opposite order to the starts.
        let ids = [
            "20261130-124501-ffffff",
            "20261130-124501-888888",
            "20261130-124501-000000",
        ];
        for id in ids {
            drop(start(&store, id, &cwd));
        }
        let order = |store: &SessionStore| -> Vec<String> {
            store.list().unwrap().into_iter().map(|s| s.id).collect()
        };
        assert_eq!(order(&store), [ids[2], ids[1], ids[0]]);
        let (_, mut again) = store.reopen(ids[1]).unwrap();
        again
            .append(&SessionEvent::UserMessage {
                text: "more".into(),
            })
            .unwrap();
        drop(again);
        assert_eq!(order(&store), [ids[1], ids[2], ids[0]]);
        assert_eq!(store.latest_in(&cwd).unwrap().as_deref(), Some(ids[1]));
        // Opening a session is a use too, before anything is written.
        drop(store.reopen(ids[0]).unwrap());
        assert_eq!(store.latest_in(&cwd).unwrap().as_deref(), Some(ids[0]));
        assert_eq!(
            store.latest_in(&tmp.path().join("elsewhere")).unwrap(),
            None
        );
    }

    #[test]
    fn use_stamps_strictly_increase_within_a_process() {
        let stamps: Vec<SystemTime> = (0..1000).map(|_| use_stamp()).collect();
        assert!(stamps.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_listing_names_when_each_session_was_last_used() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::new(tmp.path().join("sessions"));
        drop(start(&store, "20261130-124501-1a2b3c", tmp.path()));
        let listed = store.list().unwrap();
        let used = chrono::DateTime::parse_from_rfc3339(&listed[0].last_used).unwrap();
        let age = chrono::Utc::now().signed_duration_since(used);
        assert!(
            age >= chrono::TimeDelta::zero() && age < chrono::TimeDelta::hours(1),
            "{age}"
        );
    }
}
