//! What a `Read(…)` or `Edit(…)` rule says about a file, in Claude Code's gitignore-style
//! syntax: `//abs/path` from the filesystem root, `~/path` from the home folder, `/path` from
//! the project root, `path` or `./path` from the working directory. `*` stays within one path
//! component and `**` crosses them; a relative pattern without a `/` matches at any depth
//! (`*.env`); and a pattern naming a folder covers everything below it (`~/.ssh`).
//!
//! The rule: a pattern is compiled against resolved anchors (symlinks followed) and matched
//! against a resolved path, so no spelling of a path reaches around it.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobMatcher};
use kigi_tools::path_resolution::resolve_path;

/// Where a pattern starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathAnchor {
    /// `//path`.
    Root,
    /// `~/path`.
    Home,
    /// `/path`: the project root.
    Project,
    /// `path`, `./path`: the working directory.
    WorkingDirectory,
}

/// A path pattern as written, before the session's folders are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    pub anchor: PathAnchor,
    /// The rest, relative to the anchor (no leading `/`).
    pub pattern: String,
}

/// The folders a session's patterns are anchored at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathAnchors {
    pub home: Option<PathBuf>,
    pub project_root: PathBuf,
    pub cwd: PathBuf,
}

/// A pattern ready to match resolved paths.
#[derive(Debug, Clone)]
pub struct CompiledPath {
    matcher: GlobMatcher,
}

/// Why a path pattern cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathPatternError {
    #[error("`~/` needs a home folder, and none is known")]
    NoHome,
    #[error("{0}")]
    Glob(String),
}

impl PathPattern {
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        let (anchor, rest) = if let Some(rest) = text.strip_prefix("//") {
            (PathAnchor::Root, rest)
        } else if let Some(rest) = text.strip_prefix("~/") {
            (PathAnchor::Home, rest)
        } else if text == "~" {
            (PathAnchor::Home, "")
        } else if let Some(rest) = text.strip_prefix('/') {
            (PathAnchor::Project, rest)
        } else {
            (
                PathAnchor::WorkingDirectory,
                text.strip_prefix("./").unwrap_or(text),
            )
        };
        Self {
            anchor,
            pattern: rest.trim_start_matches('/').to_owned(),
        }
    }

    /// The pattern against `anchors`: the literal folders before the first wildcard are
    /// resolved, the rest is a glob below them.
    pub fn compile(&self, anchors: &PathAnchors) -> Result<CompiledPath, PathPatternError> {
        let base = match self.anchor {
            PathAnchor::Root => PathBuf::from("/"),
            PathAnchor::Home => anchors.home.clone().ok_or(PathPatternError::NoHome)?,
            PathAnchor::Project => anchors.project_root.clone(),
            PathAnchor::WorkingDirectory => anchors.cwd.clone(),
        };
        let pattern = self.pattern.trim_end_matches('/');
        // gitignore: a relative name without a slash matches at any depth.
        let any_depth = self.anchor == PathAnchor::WorkingDirectory
            && !pattern.contains('/')
            && has_wildcard(pattern);
        let (literal, wild) = split_literal(pattern);
        let base = resolve_path(&base, Path::new(&literal));
        let mut glob = escape(&base.to_string_lossy());
        if any_depth {
            glob.push_str("/**");
        }
        if !wild.is_empty() {
            glob.push('/');
            glob.push_str(&wild);
        }
        let matcher = globset::GlobBuilder::new(&glob)
            .literal_separator(true)
            .build()
            .map(|g: Glob| g.compile_matcher())
            .map_err(|e| PathPatternError::Glob(e.kind().to_string()))?;
        Ok(CompiledPath { matcher })
    }
}

impl CompiledPath {
    /// True when `resolved` or a folder above it matches: a pattern naming a folder covers
    /// what is inside.
    pub fn matches(&self, resolved: &Path) -> bool {
        resolved
            .ancestors()
            .any(|candidate| self.matcher.is_match(candidate))
    }
}

fn has_wildcard(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

/// The leading components without wildcards, and the rest.
fn split_literal(pattern: &str) -> (String, String) {
    let mut literal = Vec::new();
    let mut components = pattern.split('/').filter(|c| !c.is_empty()).peekable();
    while let Some(component) = components.next_if(|c| !has_wildcard(c)) {
        literal.push(component);
    }
    (literal.join("/"), components.collect::<Vec<_>>().join("/"))
}

/// A path as a glob that matches only itself.
fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors() -> PathAnchors {
        PathAnchors {
            home: Some(PathBuf::from("/nonexistent-home/u")),
            project_root: PathBuf::from("/nonexistent-repo"),
            cwd: PathBuf::from("/nonexistent-repo/app"),
        }
    }

    fn matches(pattern: &str, path: &str) -> bool {
        PathPattern::parse(pattern)
            .compile(&anchors())
            .unwrap()
            .matches(Path::new(path))
    }

    #[test]
    fn each_anchor_starts_where_claude_code_says() {
        assert!(matches("//etc/passwd", "/etc/passwd"));
        assert!(matches("~/.ssh/**", "/nonexistent-home/u/.ssh/id_ed25519"));
        assert!(matches("/src/**", "/nonexistent-repo/src/lib.rs"));
        assert!(!matches("/src/**", "/nonexistent-repo/app/src/lib.rs"));
        assert!(matches("src/**", "/nonexistent-repo/app/src/lib.rs"));
        assert!(matches(
            "./src/main.rs",
            "/nonexistent-repo/app/src/main.rs"
        ));
    }

    #[test]
    fn a_folder_covers_its_contents_and_stars_stay_in_one_component() {
        assert!(matches("~/.ssh", "/nonexistent-home/u/.ssh/keys/id"));
        assert!(!matches("~/.ssh", "/nonexistent-home/u/.sshrc"));
        assert!(matches("src/*.rs", "/nonexistent-repo/app/src/a.rs"));
        assert!(!matches("src/*.rs", "/nonexistent-repo/app/src/deep/a.rs"));
        assert!(matches(
            "src/**/*.rs",
            "/nonexistent-repo/app/src/deep/a.rs"
        ));
    }

    #[test]
    fn a_bare_wildcard_name_matches_at_any_depth_below_the_working_directory() {
        assert!(matches("*.env", "/nonexistent-repo/app/config/prod.env"));
        assert!(!matches("*.env", "/elsewhere/prod.env"));
    }

    #[test]
    fn anchors_are_resolved_so_a_symlinked_spelling_is_the_same_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, tmp.path().join("link")).unwrap();
        let pattern = format!("/{}/link/**", tmp.path().display());
        let compiled = PathPattern::parse(&pattern).compile(&anchors()).unwrap();
        assert!(compiled.matches(&real.join("file")));
    }
}
