//! The one loader of `config.toml`: parses the file once into [`Config`], warns about every key
//! nothing reads (with its line), applies the environment overrides, and remembers where each
//! value came from.
//!
//! The rule: every front end and the core take their configuration from a [`LoadedConfig`];
//! nothing else parses `config.toml` or reads the override variables.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::de::DeTable;

use crate::config::{Config, ConfigError};
use crate::config_env::apply_env;
use crate::config_keys::{KeyIndex, LineMap, display_key};
use crate::config_origin::ConfigOrigin;
use crate::config_warning::ConfigWarning;

/// `config.toml` as loaded: the configuration, its file, what was ignored, and the origin of
/// every value that is not a default.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedConfig {
    /// The effective configuration (file, then environment overrides).
    pub config: Config,
    /// The file read (it may not exist: then everything is a default).
    pub path: PathBuf,
    /// Unknown keys and unusable environment overrides, in line order then variable order.
    pub warnings: Vec<ConfigWarning>,
    /// Where each set value came from, by key path; absent means default.
    origins: BTreeMap<Vec<String>, ConfigOrigin>,
}

impl LoadedConfig {
    /// Reads `path` (a missing file is the default configuration) and applies the overrides
    /// `env` holds. Errors name the file, and the line when the parser knows it.
    pub fn load(path: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        // A regular file up to the cap only: a FIFO or /dev/zero here must not hang a run.
        match crate::bounded_read::read_bounded(path, crate::bounded_read::FILE_CAP_BYTES) {
            Ok(text) => Self::parse(&text, path, env),
            Err(e) if e.is_not_found() => Ok(Self::defaults(path, env)),
            Err(e) => Err(ConfigError::new(path, e.detail())),
        }
    }

    /// `$KIGI_HOME/config.toml` with the process environment: what the binary runs on.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::load(&crate::KigiPaths::from_env().config_file(), &|name| {
            std::env::var(name).ok()
        })
    }

    /// No file: defaults, then the overrides.
    pub fn defaults(path: &Path, env: &dyn Fn(&str) -> Option<String>) -> Self {
        let mut loaded = Self {
            config: Config::default(),
            path: path.to_path_buf(),
            warnings: Vec::new(),
            origins: BTreeMap::new(),
        };
        loaded.apply_env(env);
        loaded
    }

    /// Parses config text as if read from `path`.
    pub fn parse(
        text: &str,
        path: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let lines = LineMap::new(text);
        let error = |index: Option<&KeyIndex>, e: toml::de::Error| {
            let offset = e.span().map(|span| span.start);
            let key = offset.and_then(|at| index.and_then(|i| i.key_at(at)));
            let message = e.message().trim_end();
            ConfigError {
                path: path.to_path_buf(),
                line: offset.map(|at| lines.line(at)),
                message: match key {
                    Some(key) => format!("`{}`: {message}", display_key(key)),
                    None => message.to_owned(),
                },
            }
        };
        let table = DeTable::parse(text).map_err(|e| error(None, e))?;
        let index = KeyIndex::build(table.get_ref(), &lines);
        let mut ignored: Vec<Vec<String>> = Vec::new();
        let config: Config = serde_ignored::deserialize(
            toml::de::Deserializer::from(table),
            |at: serde_ignored::Path<'_>| ignored.push(key_path(&at)),
        )
        .map_err(|e| error(Some(&index), e))?;

        let mut warnings: Vec<ConfigWarning> = ignored
            .iter()
            .map(|key| ConfigWarning::UnknownKey {
                file: path.to_path_buf(),
                line: index.line(key),
                key: display_key(key),
            })
            .collect();
        warnings.sort_by_key(|w| match w {
            ConfigWarning::UnknownKey { line, .. } => *line,
            ConfigWarning::BadEnv { .. } => None,
        });
        let origins = index
            .lines()
            .filter(|(key, _)| !ignored.iter().any(|i| key.starts_with(i)))
            .map(|(key, line)| {
                let origin = ConfigOrigin::File {
                    path: path.to_path_buf(),
                    line,
                };
                (key.to_vec(), origin)
            })
            .collect();
        let mut loaded = Self {
            config,
            path: path.to_path_buf(),
            warnings,
            origins,
        };
        loaded.apply_env(env);
        Ok(loaded)
    }

    fn apply_env(&mut self, env: &dyn Fn(&str) -> Option<String>) {
        for applied in apply_env(&mut self.config, env, &mut self.warnings) {
            let key = applied.key.iter().map(|k| (*k).to_owned()).collect();
            let origin = ConfigOrigin::Env {
                variable: applied.variable.to_owned(),
            };
            self.origins.insert(key, origin);
        }
    }

    /// Where the value at `key` (e.g. `["subagents", "enabled"]`) came from.
    pub fn origin<S: AsRef<str>>(&self, key: &[S]) -> ConfigOrigin {
        let key: Vec<String> = key.iter().map(|k| k.as_ref().to_owned()).collect();
        self.origins
            .get(&key)
            .cloned()
            .unwrap_or(ConfigOrigin::Default)
    }
}

/// serde_ignored's path as a list of keys (array positions as numbers).
fn key_path(path: &serde_ignored::Path<'_>) -> Vec<String> {
    use serde_ignored::Path;
    let mut keys = match path {
        Path::Root => return Vec::new(),
        Path::Seq { parent, .. }
        | Path::Map { parent, .. }
        | Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => key_path(parent),
    };
    match path {
        Path::Seq { index, .. } => keys.push(index.to_string()),
        Path::Map { key, .. } => keys.push(key.clone()),
        _ => {}
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config_env::tests::env_of;

    fn parse(text: &str) -> LoadedConfig {
        LoadedConfig::parse(text, Path::new("/h/config.toml"), &|_| None).unwrap()
    }

    fn messages(loaded: &LoadedConfig) -> Vec<String> {
        loaded.warnings.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_typo_at_the_top_level_warns_with_its_line() {
        let loaded = parse("default_model = 'a'\n\n[subagent]\nenabled = false\n");
        assert_eq!(
            messages(&loaded),
            ["/h/config.toml:3: unknown key `subagent`, ignored"]
        );
        assert!(loaded.config.subagents.enabled);
    }

    #[test]
    fn typos_inside_every_known_section_warn_with_their_lines() {
        let loaded = parse(
            "[agents]\ncompat_dir = false\n\
             [endpoints]\napi_base = 'x'\n\
             [models.\"gpt-4.1\"]\nbase_ur = 'x'\n\
             [retry]\nmax_retry = 1\n\
             [subagents]\ntimout_ms = 5\n\
             [swarm]\nmax_concurency = 2\n",
        );
        assert_eq!(
            messages(&loaded),
            [
                "/h/config.toml:2: unknown key `agents.compat_dir`, ignored",
                "/h/config.toml:4: unknown key `endpoints.api_base`, ignored",
                "/h/config.toml:6: unknown key `models.\"gpt-4.1\".base_ur`, ignored",
                "/h/config.toml:8: unknown key `retry.max_retry`, ignored",
                "/h/config.toml:10: unknown key `subagents.timout_ms`, ignored",
                "/h/config.toml:12: unknown key `swarm.max_concurency`, ignored",
            ]
        );
        assert_eq!(
            loaded.origin(&["agents", "compat_dir"]),
            ConfigOrigin::Default
        );
    }

    #[test]
    fn open_tables_never_warn() {
        let loaded = parse(
            "[models.k.request_params]\ntemperature = 0.6\nanything = { deep = 1 }\n\
             [subagents.personas.concise]\ninstructions = 'x'\nwhatever = 1\n\
             [subagents.roles.auditor]\ndescription = 'x'\nodd = true\n\
             [subagents.toggle]\nplan = false\n[subagents.models]\nexplore = 'k'\n",
        );
        assert_eq!(messages(&loaded), Vec::<String>::new());
    }

    #[test]
    fn file_values_record_their_lines() {
        let loaded = parse("# models\ndefault_model = 'a'\n[swarm]\n\nmax_concurrency = 3\n");
        let at = |line| ConfigOrigin::File {
            path: PathBuf::from("/h/config.toml"),
            line,
        };
        assert_eq!(loaded.origin(&["default_model"]), at(2));
        assert_eq!(loaded.origin(&["swarm", "max_concurrency"]), at(5));
        assert_eq!(
            loaded.origin(&["swarm", "deadline_ms"]),
            ConfigOrigin::Default
        );
    }

    #[test]
    fn an_environment_override_is_applied_with_its_origin() {
        let loaded = LoadedConfig::parse(
            "[subagents]\nenabled = true\nawait_budget_ms = 5\n",
            Path::new("/h/config.toml"),
            &env_of(&[("KIGI_SUBAGENTS", "0"), ("KIGI_SWARM_MAX_CONCURRENCY", "7")]),
        )
        .unwrap();
        assert!(!loaded.config.subagents.enabled);
        assert_eq!(loaded.config.swarm.max_concurrency, Some(7));
        assert_eq!(loaded.config.subagents.await_budget_ms, Some(5));
        let env = |variable: &str| ConfigOrigin::Env {
            variable: variable.into(),
        };
        assert_eq!(
            loaded.origin(&["subagents", "enabled"]),
            env("KIGI_SUBAGENTS")
        );
        assert_eq!(
            loaded.origin(&["swarm", "max_concurrency"]),
            env("KIGI_SWARM_MAX_CONCURRENCY")
        );
        assert!(matches!(
            loaded.origin(&["subagents", "await_budget_ms"]),
            ConfigOrigin::File { line: 3, .. }
        ));
    }

    #[test]
    fn a_bad_environment_value_warns_naming_the_variable() {
        let loaded = LoadedConfig::parse(
            "[subagents]\nawait_budget_ms = 5\n",
            Path::new("/h/config.toml"),
            &env_of(&[("KIGI_SUBAGENT_AWAIT_BUDGET_MS", "ten seconds")]),
        )
        .unwrap();
        assert_eq!(loaded.config.subagents.await_budget_ms, Some(5));
        assert_eq!(
            messages(&loaded),
            [
                "env KIGI_SUBAGENT_AWAIT_BUDGET_MS: `ten seconds` is not a whole number of milliseconds; the variable is ignored"
            ]
        );
    }

    #[test]
    fn a_missing_file_is_the_default_config_with_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let loaded = LoadedConfig::load(&path, &env_of(&[("KIGI_SUBAGENTS", "no")])).unwrap();
        let mut expected = Config::default();
        expected.subagents.enabled = false;
        assert_eq!(loaded.config, expected);
        assert_eq!(loaded.path, path);
        assert!(loaded.warnings.is_empty());
    }

    #[test]
    fn an_unreadable_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = LoadedConfig::load(dir.path(), &|_| None).unwrap_err();
        assert_eq!(err.path, dir.path());
    }
}
