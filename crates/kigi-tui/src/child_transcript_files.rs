//! Reading a session's children's transcripts from disk (`<session>/agents/<id>/wire.jsonl`)
//! when the terminal resumes the session, so the children of its earlier runs can be listed
//! and opened ([`crate::earlier_children`] makes them children again).
//!
//! The rule: read-only and bounded. Files are opened for reading only (never through the
//! store's writer or its lock), a folder name is read only when it is a subagent id, and at
//! most [`TRANSCRIPT_CAP`] bytes of a file are read: its beginning (the prompt, the model)
//! and its end (how it ended), the middle of a larger one left out and counted.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use kigi_core::{SessionStore, decode_record};

use crate::earlier_children::StoredChild;

/// The most of one child's transcript the terminal reads.
pub const TRANSCRIPT_CAP: u64 = 1 << 20;
/// Of a larger one, how much of its beginning (the rest of the cap is its end).
const HEAD_BYTES: u64 = 64 << 10;

/// The most earlier children the terminal reads (the latest, by id): a resumed batch of
/// thousands is listed by `kigi sessions show`, not loaded into the terminal.
pub const MAX_STORED_CHILDREN: usize = 256;
/// The most bytes of all those transcripts together; each gets its share, up to
/// [`TRANSCRIPT_CAP`].
pub const STORED_BYTES_BUDGET: u64 = 32 << 20;

/// The transcripts of session `session_id`'s latest children (at most
/// [`MAX_STORED_CHILDREN`]), in id order (`sub-2` before `sub-10`), and how many earlier ones
/// were left out; a file that cannot be read is left out too.
pub fn read_stored_children(store: &SessionStore, session_id: &str) -> (Vec<StoredChild>, usize) {
    let mut ids = store.child_ids(session_id);
    let left_out = ids.len().saturating_sub(MAX_STORED_CHILDREN);
    let latest = ids.split_off(left_out);
    let share = (STORED_BYTES_BUDGET / latest.len().max(1) as u64).min(TRANSCRIPT_CAP);
    let children = latest
        .into_iter()
        .filter_map(|id| {
            let path = store.child_wire_path(session_id, &id).ok()?;
            read_stored_child(&path, &id, share).ok()
        })
        .collect();
    (children, left_out)
}

/// Child `id`'s transcript at `path`, at most `cap` bytes of it.
pub fn read_stored_child(path: &Path, id: &str, cap: u64) -> std::io::Result<StoredChild> {
    let (text, skipped_bytes) = read_capped(path, cap)?;
    let mut child = StoredChild {
        id: id.to_owned(),
        skipped_bytes,
        ..StoredChild::default()
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match decode_record(line) {
            Ok(record) => child.records.push(record),
            Err(_) => child.unreadable_lines += 1,
        }
    }
    Ok(child)
}

/// The text of the file at `path` when it holds at most `cap` bytes; else its first
/// [`HEAD_BYTES`] and its last bytes up to `cap` in all, each cut to whole lines, and how many
/// bytes were left out between them.
fn read_capped(path: &Path, cap: u64) -> std::io::Result<(String, u64)> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        // A FIFO or device named wire.jsonl must not hang the terminal.
        return Err(std::io::Error::other("not a regular file"));
    }
    let len = meta.len();
    if len <= cap {
        let mut bytes = Vec::new();
        file.take(cap).read_to_end(&mut bytes)?;
        return Ok((String::from_utf8_lossy(&bytes).into_owned(), 0));
    }
    let head_cap = HEAD_BYTES.min(cap / 2);
    let mut head = Vec::new();
    (&mut file).take(head_cap).read_to_end(&mut head)?;
    head.truncate(
        head.iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |at| at + 1),
    );
    let tail_cap = cap - head_cap;
    // One byte more, before the tail: whether the tail starts at a line's start.
    file.seek(SeekFrom::Start(len - tail_cap - 1))?;
    let mut tail = Vec::new();
    file.take(tail_cap + 1).read_to_end(&mut tail)?;
    let cut = tail
        .iter()
        .position(|b| *b == b'\n')
        .map_or(tail.len(), |at| at + 1);
    tail.drain(..cut);
    let skipped = len.saturating_sub((head.len() + tail.len()) as u64);
    let mut text = String::from_utf8_lossy(&head).into_owned();
    text.push_str(&String::from_utf8_lossy(&tail));
    Ok((text, skipped))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use kigi_protocol::{SessionEvent, ToolStatus, TurnEndReason};

    fn session(store: &SessionStore) -> String {
        let id = kigi_core::new_session_id();
        drop(store.create(&id).unwrap());
        id
    }

    /// Writes `events` as child `agent`'s transcript with the store's own writer.
    fn write_child(store: &SessionStore, id: &str, agent: &str, events: &[SessionEvent]) {
        let mut writer = store.create_child(id, agent).unwrap();
        let start = writer.start_event("explore", "scripted", Path::new("/repo"));
        writer.append(&start).unwrap();
        for event in events {
            writer.append(event).unwrap();
        }
    }

    /// Turn `n`: every record differs from every other turn's.
    fn turn(n: u32, output: &str) -> Vec<SessionEvent> {
        let call = format!("k{n}");
        vec![
            SessionEvent::UserMessage {
                text: format!("#child turn {n}"),
            },
            SessionEvent::ToolCall {
                call_id: call.clone(),
                name: "read_file".into(),
                raw_input: r#"{"path":"a.txt"}"#.into(),
                meta: None,
            },
            SessionEvent::ToolResult {
                call_id: call,
                name: "read_file".into(),
                status: ToolStatus::Completed,
                output: output.into(),
            },
            SessionEvent::TurnEnd {
                reason: TurnEndReason::Completed,
                steps: n,
            },
        ]
    }

    #[test]
    fn a_childs_transcript_reads_back_as_the_store_wrote_it_and_only_subagent_folders_count() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let id = session(&store);
        let events = turn(1, "hi\n");
        write_child(&store, &id, "sub-10", &events);
        write_child(&store, &id, "sub-2", &events[..1]);
        let stray = dir.path().join(&id).join("agents/notes");
        std::fs::create_dir_all(&stray).unwrap();
        std::fs::write(stray.join("wire.jsonl"), "{}\n").unwrap();
        let (children, _) = read_stored_children(&store, &id);
        let ids: Vec<&str> = children.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["sub-2", "sub-10"]);
        let read: Vec<SessionEvent> = children[1]
            .records
            .iter()
            .map(|r| r.event.clone())
            .collect();
        assert!(matches!(&read[0], SessionEvent::SessionStart { agent, .. } if agent == "explore"));
        assert_eq!(read[1..], events[..]);
        assert_eq!(
            (children[1].skipped_bytes, children[1].unreadable_lines),
            (0, 0)
        );
        assert!(read_stored_children(&store, "../etc").0.is_empty());
    }

    #[test]
    fn only_the_latest_children_of_a_large_batch_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let id = session(&store);
        let events = turn(1, "hi\n");
        let total = MAX_STORED_CHILDREN + 4;
        for n in 1..=total {
            write_child(&store, &id, &format!("sub-{n}"), &events[..1]);
        }
        let (children, left_out) = read_stored_children(&store, &id);
        assert_eq!((children.len(), left_out), (MAX_STORED_CHILDREN, 4));
        assert_eq!(children[0].id, "sub-5");
        assert_eq!(children.last().unwrap().id, format!("sub-{total}"));
    }

    #[test]
    fn a_transcript_over_the_cap_keeps_its_start_and_its_end_and_counts_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let id = session(&store);
        let mut events = Vec::new();
        for n in 0..200 {
            events.extend(turn(n, &"x".repeat(1_000)));
        }
        write_child(&store, &id, "sub-1", &events);
        let path = store.child_wire_path(&id, "sub-1").unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        let child = read_stored_child(&path, "sub-1", 20_000).unwrap();
        assert_eq!(child.unreadable_lines, 0, "only whole lines are read");
        let first = &child.records[0].event;
        assert!(
            matches!(first, SessionEvent::SessionStart { .. }),
            "{first:?}"
        );
        assert_eq!(child.records.last().unwrap().event, *events.last().unwrap());
        // What was kept is the file's first lines and its last ones; what was not, counted.
        let lines: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        let full = read_stored_child(&path, "sub-1", u64::MAX).unwrap().records;
        assert_eq!(full.len(), lines.len());
        let head = child
            .records
            .iter()
            .zip(&full)
            .take_while(|(kept, all)| kept == all)
            .count();
        let tail = child.records.len() - head;
        assert!(head > 0 && tail > 0, "{head} {tail}");
        assert_eq!(child.records[head..], full[full.len() - tail..]);
        let middle: u64 = lines[head..lines.len() - tail]
            .iter()
            .map(|l| l.len() as u64 + 1)
            .sum();
        assert!(middle > 0);
        assert_eq!(child.skipped_bytes, middle);
        assert!(len - middle <= 20_000, "{}", len - middle);
        // A torn last line is counted, the rest still read.
        let mut torn = std::fs::read(&path).unwrap();
        torn.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"meth");
        std::fs::write(&path, &torn).unwrap();
        let whole = read_stored_child(&path, "sub-1", u64::MAX).unwrap();
        assert_eq!(whole.unreadable_lines, 1);
        assert_eq!(whole.records.len(), events.len() + 1);
    }
}
