//! `AGENTS.md`: project instructions. Read from `$KIGI_HOME/AGENTS.md`, then each folder from
//! the project root down to the working directory (root first; the file name is matched
//! case-insensitively), within a byte budget. Past the budget the text is cut at a character
//! boundary and the prompt says what was left out, so the model knows to read the rest. Only
//! regular files are read, and never past the budget.
//!
//! A folder's `CLAUDE.md` (Claude Code users' project instructions) is read right after its
//! `AGENTS.md`, within the same budget, unless it is that same file (a link to it) or only
//! imports it (`@AGENTS.md`).

use std::path::{Path, PathBuf};

use crate::bounded_read::read_prefix;
use crate::error::AgentBuildError;
use crate::project::ProjectLayout;

/// Codex's figure, which users already rely on.
pub const DEFAULT_BUDGET_BYTES: usize = 32 * 1024;

/// One `AGENTS.md` as included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentsMdFile {
    pub path: PathBuf,
    pub content: String,
}

/// What was collected and what the budget left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentsMd {
    pub files: Vec<AgentsMdFile>,
    /// Bytes left out by the budget.
    pub omitted_bytes: usize,
    /// Files (wholly or partly) left out by the budget.
    pub omitted_files: Vec<PathBuf>,
}

/// Something to read as `AGENTS.md`: anything but a directory, so a FIFO or a device gets
/// a diagnostic from the bounded reader instead of being skipped in silence.
fn is_candidate(path: &Path) -> bool {
    path.exists() && !path.is_dir()
}

/// The file named `name` in `dir` (any letter case), if there is one.
fn find_in(dir: &Path, name: &str) -> Option<PathBuf> {
    let exact = dir.join(name);
    if is_candidate(&exact) {
        return Some(exact);
    }
    let entries = std::fs::read_dir(dir).ok()?;
    let mut matches: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(name))
                && is_candidate(p)
        })
        .collect();
    matches.sort();
    matches.into_iter().next()
}

/// A folder's instruction files: its `AGENTS.md`, then its `CLAUDE.md` unless that is the
/// same file.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let agents = find_in(dir, "AGENTS.md");
    let claude = find_in(dir, "CLAUDE.md").filter(|claude| {
        let same = |a: &Path, b: &Path| {
            matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
        };
        !agents.as_deref().is_some_and(|agents| same(agents, claude))
    });
    agents.into_iter().chain(claude).collect()
}

/// A `CLAUDE.md` that only points Claude Code at `AGENTS.md`, already included.
fn only_imports_agents_md(path: &Path, text: &str) -> bool {
    let is_claude = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("claude.md"));
    is_claude
        && text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .all(|line| line.eq_ignore_ascii_case("@AGENTS.md"))
}

/// Collects the files for `layout`, user-level first, within `budget` bytes.
pub fn collect(
    user_agents_md: &Path,
    layout: &ProjectLayout,
    budget: usize,
) -> Result<AgentsMd, AgentBuildError> {
    let mut candidates = Vec::new();
    if is_candidate(user_agents_md) {
        candidates.push(user_agents_md.to_path_buf());
    }
    candidates.extend(layout.levels_root_first().iter().flat_map(|d| files_in(d)));

    let mut out = AgentsMd::default();
    let mut used = 0;
    for path in candidates {
        let room = budget.saturating_sub(used);
        // Only what fits the budget is read, so a huge file costs no more than a small one.
        let prefix = read_prefix(&path, room as u64)?;
        if prefix.total_len == prefix.text.len() as u64
            && only_imports_agents_md(&path, &prefix.text)
        {
            continue;
        }
        let kept = prefix.text;
        used += kept.len();
        let left_out = prefix.total_len.saturating_sub(kept.len() as u64);
        if left_out > 0 {
            out.omitted_bytes += usize::try_from(left_out).unwrap_or(usize::MAX);
            out.omitted_files.push(path.clone());
        }
        if !kept.is_empty() {
            out.files.push(AgentsMdFile {
                path,
                content: kept,
            });
        }
    }
    Ok(out)
}

impl AgentsMd {
    /// The prompt section, or `None` when there is nothing to include.
    pub fn render(&self) -> Option<String> {
        if self.files.is_empty() && self.omitted_files.is_empty() {
            return None;
        }
        let with_claude_md = self.files.iter().any(|f| {
            f.path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("claude.md"))
        });
        let sources = if with_claude_md {
            "AGENTS.md and CLAUDE.md"
        } else {
            "AGENTS.md"
        };
        let mut out = format!(
            "<agents_md>\nProject instructions from {sources} files, outermost first; a file \
             deeper in the tree wins where they conflict.\n",
        );
        for file in &self.files {
            out.push_str(&format!(
                "<file path=\"{}\">\n{}\n</file>\n",
                file.path.display(),
                file.content.trim_end()
            ));
        }
        if self.omitted_bytes > 0 {
            let files: Vec<String> = self
                .omitted_files
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            out.push_str(&format!(
                "[AGENTS.md budget reached: {} bytes left out of {}; read them if they matter]\n",
                self.omitted_bytes,
                files.join(", ")
            ));
        }
        out.push_str("</agents_md>");
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> (tempfile::TempDir, ProjectLayout) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        let layout = ProjectLayout::locate(&root.join("pkg/sub"));
        (tmp, layout)
    }

    #[test]
    fn reads_user_file_then_root_down_to_cwd_case_insensitively() {
        let (tmp, layout) = repo();
        let user = tmp.path().join("home/AGENTS.md");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(&user, "user rules").unwrap();
        std::fs::write(layout.root.join("AGENTS.md"), "root rules").unwrap();
        std::fs::write(layout.root.join("pkg/agents.md"), "pkg rules").unwrap();
        let got = collect(&user, &layout, DEFAULT_BUDGET_BYTES).unwrap();
        let contents: Vec<_> = got.files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, vec!["user rules", "root rules", "pkg rules"]);
        assert_eq!(got.omitted_bytes, 0);
    }

    #[test]
    fn claude_md_follows_agents_md_in_each_folder_within_the_same_budget() {
        let (tmp, layout) = repo();
        std::fs::write(layout.root.join("CLAUDE.md"), "root claude").unwrap();
        std::fs::write(layout.root.join("AGENTS.md"), "root agents").unwrap();
        std::fs::write(layout.root.join("pkg/claude.md"), "pkg claude").unwrap();
        let got = collect(&tmp.path().join("none"), &layout, DEFAULT_BUDGET_BYTES).unwrap();
        let contents: Vec<_> = got.files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, vec!["root agents", "root claude", "pkg claude"]);
        let text = got.render().unwrap();
        assert!(
            text.contains("from AGENTS.md and CLAUDE.md files"),
            "{text}"
        );
        // One budget for both kinds: the CLAUDE.md after a full AGENTS.md is cut.
        let got = collect(&tmp.path().join("none"), &layout, 15).unwrap();
        let contents: Vec<_> = got.files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, vec!["root agents", "root"]);
        assert_eq!(got.omitted_bytes, 7 + 10);
    }

    #[test]
    fn a_claude_md_that_is_or_imports_agents_md_is_not_read_twice() {
        let (tmp, layout) = repo();
        std::fs::write(layout.root.join("AGENTS.md"), "root agents").unwrap();
        std::os::unix::fs::symlink("AGENTS.md", layout.root.join("CLAUDE.md")).unwrap();
        std::fs::write(layout.root.join("pkg/AGENTS.md"), "pkg agents").unwrap();
        std::fs::write(layout.root.join("pkg/CLAUDE.md"), "@AGENTS.md\n").unwrap();
        let got = collect(&tmp.path().join("none"), &layout, DEFAULT_BUDGET_BYTES).unwrap();
        let contents: Vec<_> = got.files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(contents, vec!["root agents", "pkg agents"]);
        assert!(got.render().unwrap().contains("from AGENTS.md files"));
    }

    #[test]
    fn budget_truncates_and_says_so() {
        let (tmp, layout) = repo();
        std::fs::write(layout.root.join("AGENTS.md"), "a".repeat(30)).unwrap();
        std::fs::write(layout.root.join("pkg/AGENTS.md"), "é".repeat(10)).unwrap();
        let got = collect(&tmp.path().join("none"), &layout, 35).unwrap();
        assert_eq!(got.files.len(), 2);
        assert_eq!(
            got.files[1].content,
            "é".repeat(2),
            "cut on a char boundary"
        );
        assert_eq!(got.omitted_bytes, 16);
        let text = got.render().unwrap();
        assert!(text.contains("16 bytes left out"), "{text}");
        assert!(text.contains("pkg/AGENTS.md"), "{text}");
    }
}
