//! `[browser]` in `config.toml`: which Chromium the `browser-use` agent drives, and whether
//! it shows a window. Without `executable`, kigi looks for a Chromium-based browser on `PATH`.
//!
//! The rule: an agent with browser tools is offered whether or not a browser is installed,
//! but listing it says how to install one, and spawning it fails with that same reason
//! ([`BrowserConfig::locate`]); nothing is found or started before it is needed.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Names tried on `PATH`, in order (Debian's package first).
const CANDIDATES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

/// `[browser]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowserConfig {
    /// The Chromium or Chrome executable; found on `PATH` when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executable: Option<PathBuf>,
    /// `false` shows the browser window (default `true`).
    pub headless: bool,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        Self {
            executable: None,
            headless: true,
        }
    }
}

/// No browser to drive, and how to get one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrowserMissing {
    /// `[browser] executable` names no file.
    #[error(
        "[browser] executable = \"{}\" does not exist: install Chromium (`apt install chromium`) or point [browser] executable in config.toml at a Chromium or Chrome binary",
        .0.display()
    )]
    Configured(PathBuf),
    /// Nothing suitable on `PATH`.
    #[error(
        "no Chromium-based browser found on PATH (looked for {}): install one (`apt install chromium`) or set [browser] executable in config.toml",
        CANDIDATES.join(", ")
    )]
    NotOnPath,
}

impl BrowserConfig {
    /// The browser to run: the configured executable, else the first candidate on `PATH`
    /// (the process environment's).
    pub fn locate(&self) -> Result<PathBuf, BrowserMissing> {
        self.locate_in(std::env::var_os("PATH").as_deref())
    }

    /// [`Self::locate`] with `path` as `PATH`.
    pub fn locate_in(&self, path: Option<&OsStr>) -> Result<PathBuf, BrowserMissing> {
        if let Some(executable) = &self.executable {
            return if executable.is_file() {
                Ok(executable.clone())
            } else {
                Err(BrowserMissing::Configured(executable.clone()))
            };
        }
        let dirs: Vec<PathBuf> = path
            .map(|p| std::env::split_paths(p).collect())
            .unwrap_or_default();
        CANDIDATES
            .iter()
            .find_map(|name| {
                dirs.iter()
                    .map(|dir| dir.join(name))
                    .find(|p| is_executable(p))
            })
            .ok_or(BrowserMissing::NotOnPath)
    }
}

/// Whether `definition` names browser tools (they are opt-in: only a named one is had).
pub fn drives_browser(definition: &crate::AgentDefinition) -> bool {
    matches!(&definition.tools, crate::ToolSelection::Only(names)
        if names.iter().any(|n| kigi_tools::is_browser_tool(n)))
}

/// Why `definition` cannot run here: it drives a browser and `config` finds none. What
/// `kigi agents list` and `show` print beside it, and what a spawn of it fails with.
pub fn browser_unavailable(
    definition: &crate::AgentDefinition,
    config: &BrowserConfig,
) -> Option<BrowserMissing> {
    drives_browser(definition)
        .then(|| config.locate().err())
        .flatten()
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executable(dir: &Path, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn the_section_reads_with_headless_on_by_default() {
        let config: crate::Config =
            toml::from_str("[browser]\nexecutable = \"/opt/chrome/chrome\"\n").unwrap();
        assert_eq!(
            config.browser,
            BrowserConfig {
                executable: Some("/opt/chrome/chrome".into()),
                headless: true
            }
        );
        let config: crate::Config = toml::from_str("").unwrap();
        assert_eq!(config.browser, BrowserConfig::default());
    }

    #[test]
    fn a_configured_executable_wins_and_a_missing_one_says_how_to_install() {
        let tmp = tempfile::tempdir().unwrap();
        let chrome = executable(tmp.path(), "my-chrome");
        let configured = BrowserConfig {
            executable: Some(chrome.clone()),
            ..BrowserConfig::default()
        };
        assert_eq!(configured.locate_in(None), Ok(chrome));
        let missing = BrowserConfig {
            executable: Some(tmp.path().join("nope")),
            ..BrowserConfig::default()
        };
        let err = missing.locate_in(None).unwrap_err().to_string();
        assert!(
            err.contains("does not exist: install Chromium (`apt install chromium`)"),
            "{err}"
        );
    }

    #[test]
    fn path_is_searched_in_candidate_order_and_plain_files_do_not_count() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("chromium"), "not executable").unwrap();
        let chrome = executable(&a, "google-chrome");
        let path = std::env::join_paths([&a, &b]).unwrap();
        assert_eq!(BrowserConfig::default().locate_in(Some(&path)), Ok(chrome));
        let chromium = executable(&b, "chromium");
        assert_eq!(
            BrowserConfig::default().locate_in(Some(&path)),
            Ok(chromium)
        );
        let empty = std::env::join_paths([tmp.path()]).unwrap();
        assert_eq!(
            BrowserConfig::default().locate_in(Some(&empty)),
            Err(BrowserMissing::NotOnPath)
        );
        assert!(
            BrowserMissing::NotOnPath
                .to_string()
                .contains("install one (`apt install chromium`) or set [browser] executable")
        );
    }
}
