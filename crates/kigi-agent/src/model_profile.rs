//! `model_profiles` (seed 002): per-model run recipes in an agent file. When a child of the
//! agent is bound to a model one entry names, that entry supplies its defaults (effort, a
//! prompt delta, caps on the context and on each completion, extra request parameters) and
//! adds its hard and soft model lists; `when` tells the parent when to pick that model.
//!
//! The rules: entries match by the model they name (an alias resolving to the same provider
//! model), the first match gives the defaults and every match adds its hard lists; caps only
//! ever narrow; an alias that is not configured applies nowhere and is never shown.

use serde::Serialize;
use serde_yaml_ng::Value;

use crate::error::AgentBuildError;
use crate::fields::{Fields, describe};
use crate::model_policy::ModelLists;
use crate::model_policy_fields::read_model_lists;
use crate::prompt_delta::{self, PromptDeltaMode};

/// One `model_profiles` entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelProfile {
    /// The `[models]` alias it applies to.
    pub alias: String,
    /// When the parent should pick this model (shown in the spawn tool's type list).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_effort: Option<String>,
    pub lists: ModelLists,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<(PromptDeltaMode, String)>,
    /// A cap on the context window (tokens).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_budget: Option<u64>,
    /// A cap on each completion (tokens).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    /// `auto`, `default`, `flex` or `priority`; only the Responses wire sends it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    /// Scalar parameters added to every request.
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub request_params: serde_json::Map<String, serde_json::Value>,
}

/// Fields the wire encoders write themselves: a request parameter may add to a request,
/// never replace what kigi decided (the model, the conversation, the caps, streaming).
const RESERVED_PARAMS: [&str; 16] = [
    "model",
    "messages",
    "input",
    "instructions",
    "system",
    "tools",
    "tool_choice",
    "stream",
    "stream_options",
    "max_tokens",
    "max_completion_tokens",
    "max_output_tokens",
    "reasoning",
    "reasoning_effort",
    "thinking",
    "service_tier",
];

impl ModelProfile {
    /// `body` with this entry's prompt delta.
    pub fn compose_prompt(&self, body: &str) -> String {
        match &self.prompt {
            None => body.to_owned(),
            Some((mode, delta)) => prompt_delta::compose(*mode, body, delta),
        }
    }
}

/// Reads `model_profiles`. Every bad entry or field is recorded on `fields` and left out.
pub(crate) fn read_model_profiles(fields: &mut Fields<'_>) -> Vec<ModelProfile> {
    let Some(value) = fields.take("model_profiles") else {
        return Vec::new();
    };
    let Value::Sequence(entries) = value else {
        let error = fields.error(
            "model_profiles",
            format!("expected a list of mappings, found {}", describe(&value)),
        );
        fields.record(error);
        return Vec::new();
    };
    let mut profiles = Vec::new();
    for (index, entry) in entries.into_iter().enumerate() {
        let key = format!("model_profiles[{index}]");
        let Value::Mapping(mapping) = entry else {
            let error = fields.error(
                &key,
                format!(
                    "expected a mapping with `alias`, found {}",
                    describe(&entry)
                ),
            );
            fields.record(error);
            continue;
        };
        let mut nested = Fields::new(fields.file(), &format!("{key}."), mapping);
        if let Some(profile) = read_entry(&mut nested) {
            profiles.push(profile);
        }
        fields.absorb(nested);
    }
    profiles
}

fn read_entry(fields: &mut Fields<'_>) -> Option<ModelProfile> {
    let alias = fields.keep(|f| {
        f.string("alias")?
            .filter(|a| !a.trim().is_empty())
            .map(Some)
            .ok_or_else(|| f.error("alias", "every entry needs the alias it applies to"))
    });
    let when = fields.keep(|f| f.string("when"));
    let thinking_effort = fields.keep(|f| f.string("thinking_effort"));
    let (lists, _) = read_model_lists(fields);
    let prompt = fields.keep(|f| read_prompt(f));
    let context_budget = fields.keep(|f| f.u64("context_budget"));
    let max_completion_tokens = fields.keep(|f| f.u32("max_completion_tokens"));
    let service_tier = fields.keep(|f| {
        let Some(tier) = f.string("service_tier")? else {
            return Ok(None);
        };
        match tier.as_str() {
            "auto" | "default" | "flex" | "priority" => Ok(Some(tier)),
            other => Err(f.error(
                "service_tier",
                format!("`{other}` is not one of auto, default, flex, priority"),
            )),
        }
    });
    let request_params = fields
        .keep(|f| read_request_params(f).map(Some))
        .unwrap_or_default();
    Some(ModelProfile {
        alias: alias?.trim().to_owned(),
        when,
        thinking_effort,
        lists,
        prompt,
        context_budget,
        max_completion_tokens,
        service_tier,
        request_params,
    })
}

fn read_prompt(
    fields: &mut Fields<'_>,
) -> Result<Option<(PromptDeltaMode, String)>, AgentBuildError> {
    let mode = fields.string("prompt_mode")?;
    let text = fields.string("prompt")?;
    let (mode, text) = match (mode, text) {
        (None, None) => return Ok(None),
        (Some(_), None) => return Err(fields.error("prompt", "`prompt_mode` needs a `prompt`")),
        (None, Some(text)) => ("prepend".to_owned(), text),
        (Some(mode), Some(text)) => (mode, text),
    };
    let mode = match mode.as_str() {
        "prepend" => PromptDeltaMode::Prepend,
        "append" => PromptDeltaMode::Append,
        "wrap" => PromptDeltaMode::Wrap,
        other => {
            return Err(fields.error(
                "prompt_mode",
                format!("`{other}` is not one of prepend, append, wrap"),
            ));
        }
    };
    prompt_delta::check(mode, &text).map_err(|problem| fields.error("prompt", problem))?;
    Ok(Some((mode, text)))
}

fn read_request_params(
    fields: &mut Fields<'_>,
) -> Result<serde_json::Map<String, serde_json::Value>, AgentBuildError> {
    let mut params = serde_json::Map::new();
    for (key, value) in fields.entries("request_params")? {
        if RESERVED_PARAMS.contains(&key.as_str()) {
            return Err(fields.error(
                &format!("request_params.{key}"),
                "kigi sets this field itself (use the model alias, the caps or service_tier)",
            ));
        }
        let json = match &value {
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(_) => serde_json::to_value(&value).unwrap_or(serde_json::Value::Null),
            Value::String(s) => serde_json::Value::String(s.clone()),
            other => {
                return Err(fields.error(
                    &format!("request_params.{key}"),
                    format!(
                        "expected a string, number or boolean, found {}",
                        describe(other)
                    ),
                ));
            }
        };
        params.insert(key, json);
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::AgentDefinition;

    fn parse(frontmatter: &str) -> Result<AgentDefinition, AgentBuildError> {
        AgentDefinition::parse(
            &format!("---\nname: r\ndescription: d\n{frontmatter}---\nBody.\n"),
            None,
        )
    }

    #[test]
    fn entries_are_read_with_every_field() {
        let def = parse(
            "model_alias: fast\nmodel_profiles:\n  - alias: fast\n    when: Quick passes.\n    \
             thinking_effort: high\n    context_budget: 32000\n    max_completion_tokens: 4096\n  \
             - alias: review\n    prompt_mode: prepend\n    prompt: Think globally.\n    \
             service_tier: priority\n    request_params:\n      temperature: 0.2\n      \
             parallel_tool_calls: yes\n    deny_models: [heavy]\n",
        )
        .unwrap();
        let [fast, review] = &def.model_profiles[..] else {
            panic!("{:?}", def.model_profiles)
        };
        assert_eq!(fast.alias, "fast");
        assert_eq!(fast.when.as_deref(), Some("Quick passes."));
        assert_eq!(fast.thinking_effort.as_deref(), Some("high"));
        assert_eq!(fast.context_budget, Some(32_000));
        assert_eq!(fast.max_completion_tokens, Some(4096));
        assert_eq!(review.service_tier.as_deref(), Some("priority"));
        assert_eq!(review.request_params["temperature"], 0.2);
        assert_eq!(review.lists.deny_models, ["heavy"]);
        assert_eq!(review.compose_prompt("Body."), "Think globally.\n\nBody.");
    }

    #[test]
    fn wrap_places_the_body_and_bad_entries_name_their_field() {
        let def = parse(
            "model_profiles:\n  - alias: a\n    prompt_mode: wrap\n    \
             prompt: \"Before ${parent_prompt} after\"\n",
        )
        .unwrap();
        assert_eq!(
            def.model_profiles[0].compose_prompt("BODY"),
            "Before BODY after"
        );
        for (yaml, field) in [
            ("model_profiles:\n  - when: x\n", "model_profiles[0].alias"),
            ("model_profiles: fast\n", "model_profiles"),
            (
                "model_profiles:\n  - alias: a\n    prompt_mode: wrap\n    prompt: no slot\n",
                "model_profiles[0].prompt",
            ),
            (
                "model_profiles:\n  - alias: a\n    service_tier: turbo\n",
                "model_profiles[0].service_tier",
            ),
            (
                "model_profiles:\n  - alias: a\n    request_params:\n      x: [1]\n",
                "model_profiles[0].request_params.x",
            ),
            (
                "model_profiles:\n  - alias: a\n    request_params:\n      model: pricey\n",
                "model_profiles[0].request_params.model",
            ),
        ] {
            let error = parse(yaml).unwrap_err().to_string();
            assert!(error.contains(field), "{field}: {error}");
        }
    }
}
