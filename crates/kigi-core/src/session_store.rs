//! Sessions on disk: `$KIGI_HOME/sessions/<session-id>/wire.jsonl`, one record per line,
//! appended and flushed as events happen.
//!
//! The rule: loading never loses what a crash did not touch. A torn or corrupt line is
//! skipped with a warning naming its line number; every other line still loads.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

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
        Ok((
            loaded,
            SessionWriter {
                session_id: id.to_owned(),
                agent_id: MAIN_AGENT.to_owned(),
                path,
                file,
                _lock: Some(lock),
            },
        ))
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

    /// The newest session started in `cwd`, if any.
    pub fn latest_in(&self, cwd: &Path) -> Result<Option<String>, StoreError> {
        let here = cwd.display().to_string();
        Ok(self
            .list()?
            .into_iter()
            .find(|s| s.cwd == here)
            .map(|s| s.id))
    }

    /// Every session, newest first.
    pub fn list(&self) -> Result<Vec<SessionSummary>, StoreError> {
        let entries = match std::fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&self.root)(e)),
        };
        let mut ids: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| is_session_id(name))
            .collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        let mut summaries = Vec::new();
        for id in ids {
            let Ok(loaded) = self.load(&id) else { continue };
            summaries.push(summarize(&id, &loaded));
        }
        Ok(summaries)
    }
}

fn summarize(id: &str, loaded: &LoadedSession) -> SessionSummary {
    let mut summary = SessionSummary {
        id: id.to_owned(),
        started: loaded
            .events
            .first()
            .map(|e| e.timestamp.clone())
            .unwrap_or_default(),
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
    summary
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
        self.file.flush().map_err(io(&self.path))
    }
}
