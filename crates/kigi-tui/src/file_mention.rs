//! `@` mentions: the files of the working folder (as `git` would list them: `.gitignore`
//! respected, hidden files skipped), matched fuzzily against what follows the `@`.
//!
//! The rule: listing is bounded ([`MAX_FILES`]) and happens once per session, off the event
//! loop's thread; matching is pure.

use std::path::Path;

/// Files listed at most.
pub const MAX_FILES: usize = 20_000;
/// Matches offered at once.
pub const MAX_MATCHES: usize = 8;

/// The files below `root`, relative, `/`-separated, sorted.
pub fn list_files(root: &Path) -> Vec<String> {
    let mut files: Vec<String> = ignore::WalkBuilder::new(root)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|entry| {
            entry
                .path()
                .strip_prefix(root)
                .ok()
                .map(|p| p.to_string_lossy().replace('\\', "/"))
        })
        .take(MAX_FILES)
        .collect();
    files.sort();
    files
}

/// The best matches of `query` among `files`: paths containing it first, then paths holding
/// its characters in order; shorter paths first within each.
pub fn matches<'f>(files: &'f [String], query: &str) -> Vec<&'f str> {
    let query = query.to_lowercase();
    let mut scored: Vec<(usize, &str)> = files
        .iter()
        .filter_map(|file| {
            let lower = file.to_lowercase();
            if lower.contains(&query) {
                Some((file.len(), file.as_str()))
            } else if is_subsequence(&query, &lower) {
                Some((100_000 + file.len(), file.as_str()))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(MAX_MATCHES)
        .map(|(_, f)| f)
        .collect()
}

fn is_subsequence(needle: &str, hay: &str) -> bool {
    let mut hay = hay.chars();
    needle.chars().all(|c| hay.any(|h| h == c))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn substring_matches_rank_before_fuzzy_ones_and_gitignored_files_are_not_listed() {
        let dir = tempfile::tempdir().unwrap();
        std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        for file in [
            "src/main.rs",
            "src/mention.rs",
            "docs/manual.md",
            "target/debug/x",
        ] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        let files = list_files(dir.path());
        assert_eq!(files, ["docs/manual.md", "src/main.rs", "src/mention.rs"]);
        assert_eq!(matches(&files, "main"), ["src/main.rs"]);
        assert_eq!(
            matches(&files, "mn"),
            ["src/main.rs", "docs/manual.md", "src/mention.rs"]
        );
    }
}
