//! `AGENTS.md`: project instructions. Read from `$KIGI_HOME/AGENTS.md`, then each folder from
//! the project root down to the working directory (root first; the file name is matched
//! case-insensitively), within a byte budget. Past the budget the text is cut at a character
//! boundary and the prompt says what was left out, so the model knows to read the rest. Only
//! regular files are read, and never past the budget.

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

/// The `AGENTS.md` in `dir` (any letter case), if there is one.
fn find_in(dir: &Path) -> Option<PathBuf> {
    let exact = dir.join("AGENTS.md");
    if is_candidate(&exact) {
        return Some(exact);
    }
    let entries = std::fs::read_dir(dir).ok()?;
    let mut matches: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("agents.md"))
                && is_candidate(p)
        })
        .collect();
    matches.sort();
    matches.into_iter().next()
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
    candidates.extend(layout.levels_root_first().iter().filter_map(|d| find_in(d)));

    let mut out = AgentsMd::default();
    let mut used = 0;
    for path in candidates {
        let room = budget.saturating_sub(used);
        // Only what fits the budget is read, so a huge file costs no more than a small one.
        let prefix = read_prefix(&path, room as u64)?;
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
        let mut out = String::from(
            "<agents_md>\nProject instructions from AGENTS.md files, outermost first; a file \
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
