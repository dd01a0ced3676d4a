//! Finding agent definitions, in priority order, and deciding which one each name means.
//!
//! Order (highest first): project `.kigi/agents/` from the working directory up to the git
//! root (closer wins); `$KIGI_HOME/agents/`; compat directories (project `.claude/agents/`,
//! `.agents/agents/`, … closer first, then the user's `~/.claude/agents/`, …; switchable with
//! `[agents] compat_dirs`); built-ins. Directories are scanned recursively, files in path order.
//! The first definition of a name wins; later ones are kept as shadowed. A project file
//! (`.kigi/agents/` or a project compat directory) of an untrusted folder cannot take a
//! built-in's name: it is listed as ignored, with a diagnostic, and the name goes to the next
//! definition (the user's own, or the built-in).
//!
//! The rule: by-name lookups check the name with [`check_path_component`] before touching the
//! file system, and never join a name onto a directory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::agent_name::check_path_component;
use crate::bounded_read::{FILE_CAP_BYTES, read_bounded};
use crate::builtin::{built_in_definitions, is_built_in_name};
use crate::config::{Config, ConfigError};
use crate::definition::{AgentDefinition, NamePolicy, ParseOptions};
use crate::definition_parse::declared_name;
use crate::diagnostic::{Diagnostic, Severity};
use crate::error::AgentBuildError;
pub use crate::failed_agent::FailedAgent;
use crate::loaded_config::LoadedConfig;
use crate::paths::{KigiPaths, PROJECT_AGENT_DIR, PROJECT_COMPAT_AGENT_DIRS};
use crate::project::ProjectLayout;
use crate::settings::ModelChoice;
use crate::trust::{TrustStore, gate_untrusted, shadowing_refused};

/// Where a definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// `.kigi/agents/` in the project.
    Project,
    /// `$KIGI_HOME/agents/`.
    User,
    /// A directory written for another harness, in the project or the user's home.
    Compat,
    /// Compiled into kigi.
    BuiltIn,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::User => "user",
            Self::Compat => "compat",
            Self::BuiltIn => "built-in",
        }
    }
}

/// One directory to scan, in priority order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSource {
    pub dir: PathBuf,
    pub scope: Scope,
    pub name_policy: NamePolicy,
    /// For project directories: the folder that must be trusted. `None` means always trusted.
    pub trust_root: Option<PathBuf>,
}

/// A loaded definition and where it came from.
#[derive(Debug, Clone, Serialize)]
pub struct DiscoveredAgent {
    pub definition: AgentDefinition,
    pub scope: Scope,
    /// False for project files whose folder is not trusted (their hooks, MCP servers and
    /// command prefix were dropped, a raised permission mode lowered).
    pub trusted: bool,
}

impl DiscoveredAgent {
    /// The file path, or `built-in`.
    pub fn origin(&self) -> String {
        match &self.definition.source {
            Some(path) => path.display().to_string(),
            None => "built-in".to_owned(),
        }
    }
}

/// A definition that lost to a higher-priority one of the same name.
#[derive(Debug, Clone, Serialize)]
pub struct ShadowedAgent {
    pub agent: DiscoveredAgent,
    /// Origin of the definition that won.
    pub shadowed_by: String,
    /// True when this untrusted project file would have won, but may not replace a built-in
    /// agent until its folder is trusted.
    pub ignored_untrusted: bool,
}

/// Everything discovery found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DiscoveryReport {
    /// The winning definition of each name, highest priority first.
    pub agents: Vec<DiscoveredAgent>,
    pub shadowed: Vec<ShadowedAgent>,
    /// Files that failed to load (their errors are also in `diagnostics`).
    pub failed: Vec<FailedAgent>,
    /// Skipped files (errors) and everything the loaded ones warned about.
    pub diagnostics: Vec<Diagnostic>,
    /// Name → index in `agents`, so adding 10,000 definitions is not quadratic.
    #[serde(skip)]
    winners: HashMap<String, usize>,
}

impl DiscoveryReport {
    /// The winning definition of `name`.
    pub fn get(&self, name: &str) -> Option<&DiscoveredAgent> {
        self.agents.iter().find(|a| a.definition.name == name)
    }

    /// The winning definition of `name`; when there is none but a file meant to define it
    /// failed to load, that file's error.
    pub fn get_or_failure(&self, name: &str) -> Result<Option<&DiscoveredAgent>, AgentBuildError> {
        if let Some(found) = self.get(name) {
            return Ok(Some(found));
        }
        match self
            .failed
            .iter()
            .find(|f| f.name == name)
            .and_then(FailedAgent::error)
        {
            Some(error) => Err(error),
            None => Ok(None),
        }
    }

    /// Every definition of `name` that loaded: the winner first, then those it shadows.
    pub fn definitions_named(&self, name: &str) -> Vec<&DiscoveredAgent> {
        self.get(name)
            .into_iter()
            .chain(
                self.shadowed
                    .iter()
                    .map(|s| &s.agent)
                    .filter(|a| a.definition.name == name),
            )
            .collect()
    }

    /// Names of every winning definition, in priority order.
    pub fn names(&self) -> Vec<&str> {
        self.agents
            .iter()
            .map(|a| a.definition.name.as_str())
            .collect()
    }

    /// Adds `agent` as the winner of its name, or as shadowed. Two files of one name in the
    /// same directory tree is worth a warning; a closer scope shadowing a farther one is not.
    fn add(&mut self, agent: DiscoveredAgent, source_dir: Option<&Path>) {
        if self.winners.len() != self.agents.len() {
            // `agents` was changed from outside: index it again.
            self.winners = (self.agents.iter().enumerate())
                .map(|(i, a)| (a.definition.name.clone(), i))
                .collect();
        }
        let name = &agent.definition.name;
        let winner = (self.winners.get(name).and_then(|&i| self.agents.get(i)))
            .filter(|a| &a.definition.name == name);
        let Some(winner) = winner else {
            self.winners.insert(name.clone(), self.agents.len());
            self.agents.push(agent);
            return;
        };
        let same_dir = source_dir.is_some_and(|dir| {
            winner
                .definition
                .source
                .as_deref()
                .is_some_and(|p| p.starts_with(dir))
        });
        if same_dir {
            self.diagnostics.push(Diagnostic::warning(
                agent.definition.source.as_deref(),
                Some("name"),
                format!(
                    "`{name}` is also defined in {}, which wins (first in path order)",
                    winner.origin()
                ),
            ));
        }
        let shadowed_by = winner.origin();
        self.shadowed.push(ShadowedAgent {
            agent,
            shadowed_by,
            ignored_untrusted: false,
        });
    }

    /// Records `agent`, an untrusted project file that would have taken a built-in's name,
    /// against the definition that runs instead: listed as shadowed, with a diagnostic in the
    /// report and on the winner (so `agents show` and the start of a run can tell).
    fn refuse_shadowing(&mut self, agent: DiscoveredAgent, root: &Path) {
        let name = agent.definition.name.clone();
        let Some(winner) = self.agents.iter_mut().find(|a| a.definition.name == name) else {
            return;
        };
        let origin = winner.origin();
        let by_user = (winner.scope != Scope::BuiltIn).then_some(origin.as_str());
        let diagnostic = shadowing_refused(&agent.definition, root, by_user);
        winner.definition.warnings.push(diagnostic.clone());
        winner.definition.trust_notices.push(diagnostic.clone());
        self.diagnostics.push(diagnostic);
        self.shadowed.push(ShadowedAgent {
            agent,
            shadowed_by: origin,
            ignored_untrusted: true,
        });
    }

    /// True when a definition already holds `name`.
    fn has_winner(&self, name: &str) -> bool {
        self.agents.iter().any(|a| a.definition.name == name)
    }
}

/// Discovery settings: where to look and what is trusted.
#[derive(Debug, Clone)]
pub struct Discovery {
    pub paths: KigiPaths,
    pub compat_dirs: bool,
    pub trust: TrustStore,
    /// Configured model aliases, to tell which `model:` values will be honoured.
    pub model_aliases: Vec<String>,
    /// `[subagents]`, for the coordinator.
    pub subagents: crate::SubagentsConfig,
    /// `[swarm]`, for the swarm engine.
    pub swarm: crate::SwarmConfig,
    /// `[web_search]`: without it, agents have no `web_search`.
    pub web_search: Option<crate::WebSearchConfig>,
    /// `[browser]`: the browser an agent with browser tools drives.
    pub browser: crate::BrowserConfig,
    /// `extra_agent_dirs`, as written.
    pub extra_agent_dirs: Vec<String>,
    /// `[agent_executors.<id>]`, for children that run elsewhere.
    pub agent_executors: std::collections::BTreeMap<String, crate::ExecutorConfig>,
}

/// Where an `extra_agent_dirs` entry points.
enum ExtraDir {
    /// The user's own folder (`~/…` or absolute).
    User(PathBuf),
    /// Relative to the project root.
    Project,
    /// `~/…` on a machine with no home.
    Nowhere,
}

impl Discovery {
    /// Discovery under `paths` with the settings of `config` (from [`LoadedConfig`]).
    pub fn new(paths: KigiPaths, config: &Config, trust: TrustStore) -> Self {
        Self {
            paths,
            compat_dirs: config.agents.compat_dirs,
            trust,
            model_aliases: config.model_aliases(),
            subagents: config.subagents.clone(),
            swarm: config.swarm.clone(),
            web_search: config.web_search.clone(),
            browser: config.browser.clone(),
            extra_agent_dirs: config.extra_agent_dirs.clone(),
            agent_executors: config.agent_executors.clone(),
        }
    }

    /// Reads `$KIGI_HOME` from the environment, then its config and trust store.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::load(KigiPaths::from_env())
    }

    /// Reads the config (through [`LoadedConfig::load`], with the process environment's
    /// overrides; its warnings are dropped here) and the trust store under `paths`.
    pub fn load(paths: KigiPaths) -> Result<Self, ConfigError> {
        let loaded = LoadedConfig::load(&paths.config_file(), &|name| std::env::var(name).ok())?;
        Self::with_config(paths, &loaded.config)
    }

    /// Reads the trust store under `paths`; the configuration is already loaded.
    pub fn with_config(paths: KigiPaths, config: &Config) -> Result<Self, ConfigError> {
        let trust = TrustStore::load(&paths.trust_file())?;
        Ok(Self::new(paths, config, trust))
    }

    /// The directories to scan for `cwd` (or user-level only, with `None`), highest first.
    pub fn sources(&self, cwd: Option<&Path>) -> Vec<AgentSource> {
        let layout = cwd.map(ProjectLayout::locate);
        let levels = layout
            .as_ref()
            .map(ProjectLayout::levels_closest_first)
            .unwrap_or_default();
        let root = layout.as_ref().map(|l| l.root.clone());
        let project = |rel: &str, scope: Scope, policy: NamePolicy| -> Vec<AgentSource> {
            levels
                .iter()
                .map(|level| AgentSource {
                    dir: level.join(rel),
                    scope,
                    name_policy: policy,
                    trust_root: root.clone(),
                })
                .collect()
        };
        let user = |dir: PathBuf, scope: Scope, policy: NamePolicy| AgentSource {
            dir,
            scope,
            name_policy: policy,
            trust_root: None,
        };

        let mut sources: Vec<AgentSource> =
            project(PROJECT_AGENT_DIR, Scope::Project, NamePolicy::Strict);
        sources.push(user(
            self.paths.agents_dir(),
            Scope::User,
            NamePolicy::Strict,
        ));
        // `extra_agent_dirs` rank after kigi's own folders of the same scope.
        for written in &self.extra_agent_dirs {
            match self.extra_dir(written) {
                ExtraDir::User(dir) => sources.push(user(dir, Scope::User, NamePolicy::Strict)),
                ExtraDir::Nowhere => {}
                ExtraDir::Project => sources.extend(root.iter().map(|root| AgentSource {
                    dir: root.join(written),
                    scope: Scope::Project,
                    name_policy: NamePolicy::Strict,
                    trust_root: Some(root.clone()),
                })),
            }
        }
        if self.compat_dirs {
            for rel in PROJECT_COMPAT_AGENT_DIRS {
                sources.extend(project(rel, Scope::Compat, NamePolicy::Derive));
            }
            for dir in self.paths.user_compat_agent_dirs() {
                sources.push(user(dir, Scope::Compat, NamePolicy::Derive));
            }
        }
        sources
    }

    /// Whose an `extra_agent_dirs` entry is.
    fn extra_dir(&self, written: &str) -> ExtraDir {
        if let Some(rest) = written.strip_prefix("~/") {
            return match &self.paths.user_home {
                Some(home) => ExtraDir::User(home.join(rest)),
                None => ExtraDir::Nowhere,
            };
        }
        if Path::new(written).is_absolute() {
            ExtraDir::User(PathBuf::from(written))
        } else {
            ExtraDir::Project
        }
    }

    /// Everything visible from `cwd`.
    pub fn discover(&self, cwd: &Path) -> DiscoveryReport {
        self.discover_from(&self.sources(Some(cwd)))
    }

    /// User-level and built-in definitions only.
    pub fn discover_user(&self) -> DiscoveryReport {
        self.discover_from(&self.sources(None))
    }

    fn discover_from(&self, sources: &[AgentSource]) -> DiscoveryReport {
        let mut report = DiscoveryReport::default();
        // Untrusted project files that would have replaced a built-in, with their folder.
        let mut refused: Vec<(DiscoveredAgent, PathBuf)> = Vec::new();
        for source in sources {
            let untrusted_root = source
                .trust_root
                .as_ref()
                .filter(|root| !self.trust.is_trusted(root));
            for file in scan_markdown(&source.dir, &mut report.diagnostics) {
                let options = ParseOptions {
                    name_policy: source.name_policy,
                    ..ParseOptions::default()
                };
                match AgentDefinition::from_file_with(&file, options) {
                    Ok(mut definition) => {
                        let refuse = untrusted_root.is_some()
                            && is_built_in_name(&definition.name)
                            && !report.has_winner(&definition.name);
                        if refuse {
                            // What the file itself got wrong still shows; what the gate drops
                            // does not matter, the whole file is ignored.
                            report
                                .diagnostics
                                .extend(definition.warnings.iter().cloned());
                        }
                        if let Some(root) = untrusted_root {
                            gate_untrusted(&mut definition, root);
                        }
                        self.warn_unknown_model(&mut definition);
                        if !refuse {
                            report
                                .diagnostics
                                .extend(definition.warnings.iter().cloned());
                        }
                        let agent = DiscoveredAgent {
                            definition,
                            scope: source.scope,
                            trusted: untrusted_root.is_none(),
                        };
                        match untrusted_root {
                            Some(root) if refuse => refused.push((agent, root.clone())),
                            _ => report.add(agent, Some(&source.dir)),
                        }
                    }
                    Err(err) => {
                        report.diagnostics.extend(err.to_diagnostics());
                        let text = read_bounded(&file, FILE_CAP_BYTES).ok();
                        if let Some(name) = declared_name(text.as_deref(), &file) {
                            report.failed.push(FailedAgent::new(
                                name,
                                file,
                                source.scope,
                                source.name_policy,
                            ));
                        }
                    }
                }
            }
        }
        for definition in built_in_definitions() {
            let agent = DiscoveredAgent {
                definition,
                scope: Scope::BuiltIn,
                trusted: true,
            };
            report.add(agent, None);
        }
        for (agent, root) in refused {
            report.refuse_shadowing(agent, &root);
        }
        report
    }

    /// Warns when `model:` names something that is not a configured alias: the value is kept
    /// for display and the agent runs on its parent's model.
    pub(crate) fn warn_unknown_model(&self, def: &mut AgentDefinition) {
        if let ModelChoice::Named(name) = &def.model
            && def.model.effective(&self.model_aliases) == ModelChoice::Inherit
        {
            let message = format!(
                "`{name}` is not a configured model alias ([models.{name}] in config.toml); \
                 the parent's model will be used"
            );
            def.warnings.push(Diagnostic::warning(
                def.source.as_deref(),
                Some("model"),
                message,
            ));
        }
    }

    /// The user-level or built-in definition named `name`; the error of the file meant to
    /// define it when that failed to load and nothing else has the name.
    pub fn by_name(&self, name: &str) -> Result<Option<DiscoveredAgent>, AgentBuildError> {
        guard_name(name)?;
        Ok(self.discover_user().get_or_failure(name)?.cloned())
    }

    /// The definition named `name` as seen from `cwd` (project definitions first); the error
    /// of the file meant to define it when that failed to load and nothing else has the name.
    pub fn by_name_in_cwd(
        &self,
        name: &str,
        cwd: &Path,
    ) -> Result<Option<DiscoveredAgent>, AgentBuildError> {
        guard_name(name)?;
        let report = self.discover(cwd);
        if let Some(found) = report.get_or_failure(name)? {
            return Ok(Some(found.clone()));
        }
        // A type recorded under the legacy prefix resolves to its current name.
        let canonical = crate::canonical_agent_type(name);
        if canonical == name {
            return Ok(None);
        }
        Ok(report.get_or_failure(&canonical)?.cloned())
    }
}

fn guard_name(name: &str) -> Result<(), AgentBuildError> {
    match check_path_component(name) {
        None => Ok(()),
        Some(reason) => Err(AgentBuildError::InvalidName {
            file: None,
            name: name.to_owned(),
            reason: format!("{reason}; a name must be one plain path component"),
        }),
    }
}

/// Every `.md` file below `dir`, in path order. Symlinked directories are not followed (no
/// cycles, no escaping the tree), and hidden folders below `dir` are not entered. A missing
/// directory is simply empty.
pub fn scan_markdown(dir: &Path, diagnostics: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries = match std::fs::read_dir(&current) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => continue,
            Err(e) => {
                diagnostics.push(Diagnostic {
                    severity: Severity::Error,
                    file: Some(current.clone()),
                    line: None,
                    field: None,
                    message: format!("cannot read directory: {e}"),
                });
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                // `.git/`, `.routes/` and other hidden folders hold no agents.
                if !entry.file_name().to_string_lossy().starts_with('.') {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Discovery configured from the environment's `$KIGI_HOME`. A broken config or trust file
/// yields defaults plus a diagnostic naming the file, so discovery always answers.
fn env_discovery() -> (Discovery, Option<Diagnostic>) {
    let paths = KigiPaths::from_env();
    match Discovery::load(paths.clone()) {
        Ok(discovery) => (discovery, None),
        Err(err) => {
            let trust = TrustStore::empty(paths.trust_file());
            let fallback = Discovery::new(paths, &Config::default(), trust);
            let diagnostic = Diagnostic {
                severity: Severity::Error,
                file: Some(err.path.clone()),
                line: err.line,
                field: None,
                message: format!("{}; using defaults", err.message),
            };
            (fallback, Some(diagnostic))
        }
    }
}

/// Discovers from `cwd` using the environment's `$KIGI_HOME`.
pub fn discover(cwd: &Path) -> DiscoveryReport {
    let (discovery, problem) = env_discovery();
    let mut report = discovery.discover(cwd);
    report.diagnostics.splice(0..0, problem);
    report
}

/// The user-level or built-in definition named `name` (environment's `$KIGI_HOME`).
pub fn by_name(name: &str) -> Result<Option<DiscoveredAgent>, AgentBuildError> {
    guard_name(name)?;
    env_discovery().0.by_name(name)
}

/// The definition named `name` as seen from `cwd` (environment's `$KIGI_HOME`).
pub fn by_name_in_cwd(name: &str, cwd: &Path) -> Result<Option<DiscoveredAgent>, AgentBuildError> {
    guard_name(name)?;
    env_discovery().0.by_name_in_cwd(name, cwd)
}
