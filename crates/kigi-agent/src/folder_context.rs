//! What every agent built in one folder shares: the `AGENTS.md` section, the skills found and
//! the prompt environment. Building one agent reads them itself; `kigi agents validate` reads
//! them once per folder, since reading them for each of 10,000 files in one directory (whose
//! `AGENTS.md` lookup lists that directory) made validation quadratic.
//!
//! The rule: a context is only handed to agents built in the folder it was read for.

use crate::agents_md;
use crate::diagnostic::Diagnostic;
use crate::error::AgentBuildError;
use crate::paths::KigiPaths;
use crate::project::ProjectLayout;
use crate::skills::{self, Skill};
use crate::template::PromptEnvironment;

/// The shared inputs of every agent built in one folder.
#[derive(Debug, Clone)]
pub(crate) struct FolderContext {
    /// The rendered `AGENTS.md` section (`None` when there is none).
    pub(crate) agents_md: Option<String>,
    pub(crate) skills: Vec<Skill>,
    /// What skill discovery reported (unreadable `SKILL.md` files, …).
    pub(crate) skill_diagnostics: Vec<Diagnostic>,
    pub(crate) environment: PromptEnvironment,
}

impl FolderContext {
    /// Reads the context for `layout` with an `AGENTS.md` budget of `budget` bytes (and no
    /// `AGENTS.md` at all without `with_agents_md`).
    pub(crate) fn read(
        paths: &KigiPaths,
        layout: &ProjectLayout,
        budget: usize,
        with_agents_md: bool,
    ) -> Result<Self, AgentBuildError> {
        let agents_md = if with_agents_md {
            agents_md::collect(&paths.agents_md(), layout, budget)?.render()
        } else {
            None
        };
        let (skills, skill_diagnostics) = skills::discover(&paths.skills_dir(), Some(layout));
        Ok(Self {
            agents_md,
            skills,
            skill_diagnostics,
            environment: PromptEnvironment::detect(&layout.cwd),
        })
    }
}
