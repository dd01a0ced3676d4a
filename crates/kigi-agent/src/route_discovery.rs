//! Finding routes: `.routes/<profile>/<route>.md` under kigi's own agent folders (the
//! project's `.kigi/agents/`, closest first, then `$KIGI_HOME/agents/`). Read when asked, like
//! agent files, so a route added while a session runs is spawnable at its next spawn.
//!
//! The rules: a route in a project folder counts only once the folder is trusted (a route
//! re-specializes an agent, built-ins included, so an untrusted repository's routes are
//! listed as ignored); a bad route is skipped with a diagnostic naming its file; the first
//! route of an id wins and a later one of the same id is reported, never merged.

use std::path::Path;

use crate::bounded_read::{FILE_CAP_BYTES, read_bounded};
use crate::diagnostic::Diagnostic;
use crate::discovery::{Discovery, Scope};
use crate::route::RouteDefinition;

/// Every usable route seen from a folder, and what was wrong with the others.
#[derive(Debug, Default)]
pub struct RouteReport {
    pub routes: Vec<RouteDefinition>,
    pub diagnostics: Vec<Diagnostic>,
}

impl RouteReport {
    pub fn get(&self, id: &str) -> Option<&RouteDefinition> {
        self.routes.iter().find(|route| route.id == id)
    }
}

impl Discovery {
    /// The routes visible from `cwd`.
    pub fn routes(&self, cwd: &Path) -> RouteReport {
        let mut report = RouteReport::default();
        for source in self.sources(Some(cwd)) {
            if source.scope == Scope::Compat {
                continue;
            }
            let untrusted = source
                .trust_root
                .as_ref()
                .filter(|root| !self.trust.is_trusted(root));
            for file in route_files(&source.dir.join(".routes")) {
                if let Some(root) = untrusted {
                    report.diagnostics.push(Diagnostic::warning(
                        Some(&file),
                        None,
                        format!(
                            "route ignored: the folder {} is not trusted (run `kigi trust {}` to allow it)",
                            root.display(),
                            root.display()
                        ),
                    ));
                    continue;
                }
                let parsed = read_bounded(&file, FILE_CAP_BYTES)
                    .map_err(|e| e.to_string())
                    .and_then(|text| {
                        RouteDefinition::parse(&text, &file).map_err(|e| e.to_string())
                    });
                match parsed {
                    Ok(route) => match report.get(&route.id) {
                        Some(first) => report.diagnostics.push(Diagnostic::warning(
                            Some(&file),
                            None,
                            format!(
                                "route `{}` is also defined in {}, which wins",
                                route.id,
                                first.source.display()
                            ),
                        )),
                        None => report.routes.push(route),
                    },
                    Err(message) => report
                        .diagnostics
                        .push(Diagnostic::error(Some(file), message)),
                }
            }
        }
        report
    }
}

/// `<routes>/<profile>/<route>.md`, sorted; a missing folder has none.
fn route_files(routes: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let Ok(profiles) = std::fs::read_dir(routes) else {
        return files;
    };
    for profile in profiles.flatten() {
        if !profile.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(profile.path()) else {
            continue;
        };
        files.extend(
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "md")),
        );
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::KigiPaths;

    #[test]
    fn routes_are_found_under_project_and_user_folders_and_bad_ones_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("repo");
        let write = |path: std::path::PathBuf, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        std::fs::create_dir_all(project.join(".git")).unwrap();
        write(
            project.join(".kigi/agents/.routes/explore/fast.md"),
            "---\nid: explore.fast\nprofile: explore\ndescription: quick look\nprompt_mode: inherit\n---\n",
        );
        write(
            project.join(".kigi/agents/.routes/explore/broken.md"),
            "---\nid: explore.other\nprofile: explore\ndescription: d\nprompt_mode: inherit\n---\n",
        );
        write(
            tmp.path().join("home/agents/.routes/plan/deep.md"),
            "---\nid: plan.deep\nprofile: plan\ndescription: think longer\nprompt_mode: append\n---\nTake your time.\n",
        );
        let mut discovery = Discovery::load(KigiPaths::new(tmp.path().join("home"), None)).unwrap();
        let untrusted = discovery.routes(&project);
        let ids: Vec<&str> = untrusted.routes.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["plan.deep"], "only the user's route counts untrusted");
        let ignored = untrusted
            .diagnostics
            .iter()
            .filter(|d| d.message.contains("not trusted"))
            .count();
        assert_eq!(ignored, 2);
        discovery.trust.trust(&project);
        let report = discovery.routes(&project);
        let ids: Vec<&str> = report.routes.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["explore.fast", "plan.deep"]);
        assert_eq!(report.diagnostics.len(), 1);
        assert!(report.diagnostics[0].message.contains("explore.other"));
        assert!(
            discovery
                .discover(&project)
                .diagnostics
                .iter()
                .all(|d| !d.message.contains("route")),
            "routes are not agent files"
        );
    }
}
