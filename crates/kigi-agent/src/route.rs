//! Named profile routes (seed 002): `agents/.routes/<profile>/<route>.md` specializes an
//! existing agent under the id `<profile>.<route>` without a new permission identity: its own
//! description, model, effort and tools, and a prompt that always keeps the base's
//! (`prompt_mode`: `inherit`, `prepend`, `append` or `wrap`). Pure: text in, route out; the
//! route is applied to its base when a child is spawned, so an edited base counts at once.
//!
//! The rules: route frontmatter is strict (an unknown key skips that one route with a
//! diagnostic, the base and sibling routes still load); the id, the folder and the file name
//! agree; a route can narrow or change the model and tools, never the permission mode.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_yaml_ng::{Mapping, Value};

use crate::agent_name::strict_name_problem;
use crate::definition::AgentDefinition;
use crate::error::AgentBuildError;
use crate::frontmatter;
use crate::prompt_delta::{self, PromptDeltaMode};
use crate::settings::ModelChoice;

/// The keys an agent file shares with a route; everything else a route writes is refused.
const SHARED_KEYS: [&str; 6] = [
    "description",
    "whenToUse",
    "model_alias",
    "thinking_effort",
    "tools",
    "disallowedTools",
];
/// How a route's body joins its base's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoutePromptMode {
    /// The base prompt unchanged (the body must be empty).
    Inherit,
    /// Prepended, appended or wrapped around the base's (see `prompt_delta`).
    Delta(PromptDeltaMode),
}

/// One route file, read and checked.
#[derive(Debug, Clone)]
pub struct RouteDefinition {
    /// `<profile>.<route>`.
    pub id: String,
    /// The agent it specializes.
    pub profile: String,
    pub prompt_mode: RoutePromptMode,
    /// The shared fields the route wrote, parsed as an agent file would be.
    overlay: AgentDefinition,
    /// Which of [`SHARED_KEYS`] it wrote.
    written: BTreeSet<String>,
    pub source: PathBuf,
}

impl RouteDefinition {
    /// Reads `path`, which must be `<...>/.routes/<profile>/<route>.md`.
    pub fn parse(text: &str, path: &Path) -> Result<Self, AgentBuildError> {
        let error = |field: Option<&str>, message: String| AgentBuildError::ParseError {
            file: Some(path.to_path_buf()),
            line: None,
            field: field.map(str::to_owned),
            message,
        };
        let (profile_dir, route_name) = route_location(path)
            .ok_or_else(|| error(None, "a route is `.routes/<profile>/<route>.md`".into()))?;
        if let Some(problem) = strict_name_problem(&route_name) {
            return Err(error(None, format!("route name `{route_name}`: {problem}")));
        }
        let doc = frontmatter::split(text).map_err(|e| error(None, e.message().to_owned()))?;
        let mapping = match serde_yaml_ng::from_str::<Value>(&doc.yaml) {
            Ok(Value::Mapping(mapping)) => mapping,
            Ok(_) => return Err(error(None, "the frontmatter is not a mapping".into())),
            Err(e) => return Err(error(None, format!("invalid YAML: {e}"))),
        };
        let mut shared = Mapping::new();
        let (mut id, mut profile, mut mode) = (None, None, None);
        for (key, value) in mapping {
            let key = crate::fields::scalar_text(&key).unwrap_or_default();
            let text = || crate::fields::scalar_text(&value).map(|t| t.trim().to_owned());
            match key.as_str() {
                "id" => id = text(),
                "profile" => profile = text(),
                "prompt_mode" => mode = text(),
                k if SHARED_KEYS.contains(&k) => {
                    shared.insert(Value::String(key), value);
                }
                other => {
                    return Err(error(
                        Some(other),
                        "not a route field (routes take id, profile, description, prompt_mode, \
                         whenToUse, model_alias, thinking_effort, tools, disallowedTools)"
                            .into(),
                    ));
                }
            }
        }
        let expected = format!("{profile_dir}.{route_name}");
        let id = id.ok_or_else(|| error(Some("id"), format!("missing; expected `{expected}`")))?;
        if id != expected {
            return Err(error(
                Some("id"),
                format!("`{id}` does not match its path: expected `{expected}`"),
            ));
        }
        let profile = profile.ok_or_else(|| error(Some("profile"), "missing".into()))?;
        if profile != profile_dir {
            return Err(error(
                Some("profile"),
                format!("`{profile}` does not match its folder `{profile_dir}`"),
            ));
        }
        let prompt_mode = match mode.as_deref() {
            Some("inherit") => RoutePromptMode::Inherit,
            Some("prepend") => RoutePromptMode::Delta(PromptDeltaMode::Prepend),
            Some("append") => RoutePromptMode::Delta(PromptDeltaMode::Append),
            Some("wrap") => RoutePromptMode::Delta(PromptDeltaMode::Wrap),
            Some(other) => {
                return Err(error(
                    Some("prompt_mode"),
                    format!("`{other}` is not one of inherit, prepend, append, wrap"),
                ));
            }
            None => return Err(error(Some("prompt_mode"), "missing".into())),
        };
        check_body(prompt_mode, &doc.body).map_err(|m| error(Some("prompt_mode"), m))?;
        let written: BTreeSet<String> = shared
            .keys()
            .filter_map(crate::fields::scalar_text)
            .collect();
        if !written.contains("description") {
            return Err(error(Some("description"), "missing".into()));
        }
        // The shared fields read exactly as an agent file's would (tool names and all).
        let yaml = serde_yaml_ng::to_string(&Value::Mapping(shared))
            .map_err(|e| error(None, e.to_string()))?;
        let text = format!("---\nname: route\n{yaml}---\n{}", doc.body);
        let overlay = AgentDefinition::parse(&text, Some(path))?;
        Ok(Self {
            id,
            profile,
            prompt_mode,
            overlay,
            written,
            source: path.to_path_buf(),
        })
    }

    /// The definition a child of this route runs: its base with what the route wrote. It
    /// keeps the base's name: a route is no new permission identity (the spawn carries the
    /// route id).
    pub fn apply(&self, base: &AgentDefinition) -> AgentDefinition {
        let mut definition = base.clone();
        let overlay = &self.overlay;
        definition.description = overlay.description.clone();
        let wrote = |key: &str| self.written.contains(key);
        if wrote("whenToUse") {
            definition.when_to_use = overlay.when_to_use.clone();
        }
        if wrote("model_alias") {
            definition.model = overlay.model.clone();
        }
        if wrote("thinking_effort") {
            definition.effort = overlay.effort.clone();
        }
        if wrote("tools") {
            definition.tools = overlay.tools.clone();
        }
        if wrote("disallowedTools") {
            definition.disallowed_tools = overlay.disallowed_tools.clone();
        }
        definition.body = compose(self.prompt_mode, &base.body, &overlay.body);
        definition.source = Some(self.source.clone());
        definition.warnings.extend(overlay.warnings.iter().cloned());
        definition
    }

    /// The description the route was written with.
    pub fn description(&self) -> String {
        self.overlay.dispatch_description()
    }

    /// The model the route pins, if any.
    pub fn model(&self) -> Option<&str> {
        match &self.overlay.model {
            ModelChoice::Named(alias) if self.written.contains("model_alias") => Some(alias),
            _ => None,
        }
    }
}

/// `.../.routes/<profile>/<route>.md` → (`profile`, `route`).
fn route_location(path: &Path) -> Option<(String, String)> {
    if path.extension()? != "md" {
        return None;
    }
    let route = path.file_stem()?.to_string_lossy().into_owned();
    let profile_dir = path.parent()?;
    let routes_dir = profile_dir.parent()?;
    if routes_dir.file_name()? != ".routes" {
        return None;
    }
    Some((
        profile_dir.file_name()?.to_string_lossy().into_owned(),
        route,
    ))
}

/// The body rules of each mode: the base prompt is always kept, exactly once.
fn check_body(mode: RoutePromptMode, body: &str) -> Result<(), String> {
    match mode {
        RoutePromptMode::Inherit if !body.trim().is_empty() => {
            Err("`inherit` keeps the base prompt: the body must be empty".into())
        }
        RoutePromptMode::Inherit => Ok(()),
        RoutePromptMode::Delta(delta)
            if delta != PromptDeltaMode::Wrap && body.trim().is_empty() =>
        {
            Err("`prepend` and `append` need a body".into())
        }
        RoutePromptMode::Delta(delta) => prompt_delta::check(delta, body).map_err(str::to_owned),
    }
}

fn compose(mode: RoutePromptMode, base: &str, route: &str) -> String {
    match mode {
        RoutePromptMode::Inherit => base.to_owned(),
        RoutePromptMode::Delta(delta) => prompt_delta::compose(delta, base, route),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::settings::ToolSelection;

    fn path(profile: &str, route: &str) -> PathBuf {
        PathBuf::from(format!("/p/.kigi/agents/.routes/{profile}/{route}.md"))
    }

    fn base() -> AgentDefinition {
        let mut base = AgentDefinition::new("reviewer", "Reviews code");
        base.body = "Base rules.".into();
        base
    }

    const UI: &str = "---\nid: reviewer.ui-k3\nprofile: reviewer\ndescription: Review UI changes\n\
                      whenToUse: Frontend reviews\nprompt_mode: prepend\nmodel_alias: k3\n\
                      thinking_effort: high\ntools: [Read, Grep]\n---\nFocus on accessibility.\n";

    #[test]
    fn a_route_specializes_its_base_and_keeps_its_prompt() {
        let route = RouteDefinition::parse(UI, &path("reviewer", "ui-k3")).unwrap();
        assert_eq!(route.id, "reviewer.ui-k3");
        assert_eq!(route.model(), Some("k3"));
        let definition = route.apply(&base());
        assert_eq!(definition.name, "reviewer");
        assert_eq!(definition.model, ModelChoice::Named("k3".into()));
        assert_eq!(definition.effort.as_deref(), Some("high"));
        assert_eq!(
            definition.tools,
            ToolSelection::Only(vec!["read_file".into(), "grep".into()])
        );
        assert_eq!(definition.body, "Focus on accessibility.\n\nBase rules.");
        assert_eq!(
            definition.dispatch_description(),
            "Review UI changes When to use: Frontend reviews"
        );
    }

    #[test]
    fn what_a_route_leaves_out_comes_from_its_base() {
        let text = "---\nid: reviewer.plain\nprofile: reviewer\ndescription: d\n\
                    prompt_mode: inherit\n---\n";
        let mut base = base();
        base.model = ModelChoice::Named("base-model".into());
        base.tools = ToolSelection::Only(vec!["grep".into()]);
        let definition = RouteDefinition::parse(text, &path("reviewer", "plain"))
            .unwrap()
            .apply(&base);
        assert_eq!(definition.model, ModelChoice::Named("base-model".into()));
        assert_eq!(definition.tools, ToolSelection::Only(vec!["grep".into()]));
        assert_eq!(definition.body, "Base rules.");
    }

    #[test]
    fn wrap_places_the_base_once_and_append_follows_it() {
        let wrap = "---\nid: reviewer.w\nprofile: reviewer\ndescription: d\nprompt_mode: wrap\n\
                    ---\nBefore.\n${parent_prompt}\nAfter.\n";
        let definition = RouteDefinition::parse(wrap, &path("reviewer", "w"))
            .unwrap()
            .apply(&base());
        assert_eq!(definition.body, "Before.\nBase rules.\nAfter.");
        let append = "---\nid: reviewer.a\nprofile: reviewer\ndescription: d\n\
                      prompt_mode: append\n---\nAlso this.\n";
        let definition = RouteDefinition::parse(append, &path("reviewer", "a"))
            .unwrap()
            .apply(&base());
        assert_eq!(definition.body, "Base rules.\n\nAlso this.");
    }

    #[test]
    fn bad_routes_are_refused_naming_the_field() {
        let cases = [
            (UI.replace("id: reviewer.ui-k3", "id: reviewer.other"), "id"),
            (
                UI.replace("profile: reviewer", "profile: writer"),
                "profile",
            ),
            (
                UI.replace("prompt_mode: prepend", "prompt_mode: replace"),
                "prompt_mode",
            ),
            (
                UI.replace("thinking_effort: high", "allowed_models: [x]"),
                "allowed_models",
            ),
            (
                UI.replace("prompt_mode: prepend", "prompt_mode: inherit"),
                "prompt_mode",
            ),
            (
                UI.replace("Focus on accessibility.", "${parent_prompt}"),
                "prompt_mode",
            ),
        ];
        for (text, field) in cases {
            let error = RouteDefinition::parse(&text, &path("reviewer", "ui-k3")).unwrap_err();
            assert!(
                matches!(&error, AgentBuildError::ParseError { field: Some(f), .. } if f == field),
                "{field}: {error}"
            );
        }
        assert!(RouteDefinition::parse(UI, Path::new("/p/agents/ui-k3.md")).is_err());
    }
}
