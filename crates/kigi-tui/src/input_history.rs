//! Prompts sent before, for Up/Down, kept across sessions in `$KIGI_HOME/prompt-history.jsonl`
//! (one JSON string a line, so multi-line prompts survive), at most [`MAX_ENTRIES`].
//!
//! The rule: a history that cannot be read starts empty; one that cannot be written is
//! reported once and the session goes on.

use std::path::{Path, PathBuf};

use crate::error::TuiError;

/// Entries kept.
pub const MAX_ENTRIES: usize = 500;

/// The history and where the person is in it.
#[derive(Debug, Default)]
pub struct InputHistory {
    path: Option<PathBuf>,
    entries: Vec<String>,
    /// While browsing: the entry shown, counted from the newest (0 is the newest).
    browsing: Option<usize>,
    /// What was typed before browsing started, restored past the newest.
    draft: String,
}

impl InputHistory {
    /// The history in `path` (empty when it is missing or unreadable).
    pub fn load(path: &Path) -> Self {
        let entries = std::fs::read_to_string(path)
            .map(|text| {
                text.lines()
                    .filter_map(|line| serde_json::from_str::<String>(line).ok())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let skip = entries.len().saturating_sub(MAX_ENTRIES);
        Self {
            path: Some(path.to_owned()),
            entries: entries.into_iter().skip(skip).collect(),
            browsing: None,
            draft: String::new(),
        }
    }

    /// Adds `entry` (not a repeat of the newest) and writes the file.
    pub fn push(&mut self, entry: &str) -> Result<(), TuiError> {
        self.browsing = None;
        if entry.trim().is_empty() || self.entries.last().is_some_and(|e| e == entry) {
            return Ok(());
        }
        self.entries.push(entry.to_owned());
        let over = self.entries.len().saturating_sub(MAX_ENTRIES);
        self.entries.drain(..over);
        let Some(path) = &self.path else {
            return Ok(());
        };
        let mut text = String::new();
        for entry in &self.entries {
            text.push_str(&serde_json::Value::String(entry.clone()).to_string());
            text.push('\n');
        }
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(path, text)
        };
        write().map_err(|source| TuiError::History {
            path: path.clone(),
            source,
        })
    }

    /// The newest entry containing `query` older than entry `before` (an index into the
    /// entries, oldest first), for Ctrl+R.
    pub fn find(&self, query: &str, before: Option<usize>) -> Option<(usize, &str)> {
        let end = before.unwrap_or(self.entries.len()).min(self.entries.len());
        self.entries[..end]
            .iter()
            .enumerate()
            .rev()
            .find(|(_, entry)| entry.contains(query))
            .map(|(i, entry)| (i, entry.as_str()))
    }

    /// The entry before the one shown (Up), given what the editor holds now.
    pub fn older(&mut self, current: &str) -> Option<String> {
        let next = match self.browsing {
            None => {
                self.draft = current.to_owned();
                0
            }
            Some(i) => i + 1,
        };
        if next >= self.entries.len() {
            return None;
        }
        self.browsing = Some(next);
        Some(self.entries[self.entries.len() - 1 - next].clone())
    }

    /// The entry after the one shown (Down); past the newest, the draft.
    pub fn newer(&mut self) -> Option<String> {
        match self.browsing? {
            0 => {
                self.browsing = None;
                Some(std::mem::take(&mut self.draft))
            }
            i => {
                self.browsing = Some(i - 1);
                Some(self.entries[self.entries.len() - i].clone())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn history_survives_a_restart_is_bounded_and_browses_back_to_the_draft() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prompt-history.jsonl");
        let mut history = InputHistory::load(&path);
        for i in 0..MAX_ENTRIES + 5 {
            history.push(&format!("prompt {i}\nsecond line")).unwrap();
        }
        let mut again = InputHistory::load(&path);
        assert_eq!(again.entries.len(), MAX_ENTRIES);
        let newest = format!("prompt {}\nsecond line", MAX_ENTRIES + 4);
        assert_eq!(again.older("draft").unwrap(), newest);
        assert!(
            again
                .older("")
                .unwrap()
                .starts_with(&format!("prompt {}", MAX_ENTRIES + 3))
        );
        assert_eq!(again.newer().unwrap(), newest);
        assert_eq!(again.newer().unwrap(), "draft");
        assert_eq!(again.newer(), None);
        let (at, found) = again.find("prompt 3", None).unwrap();
        assert!(found.starts_with("prompt 3"));
        let (older, _) = again.find("prompt 3", Some(at)).unwrap();
        assert!(older < at);
    }
}
