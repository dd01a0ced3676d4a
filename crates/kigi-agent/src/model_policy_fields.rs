//! Reading an agent file's model policy keys (`allowed_models`, `deny_models`,
//! `allowed_efforts`, `restrict_models_to_menu`, `preferred_models`, `discouraged_models`,
//! `preferred_efforts`) into [`ModelLists`]. Keys are spelled as seed 002 spells them
//! (snake_case); each takes a YAML list or a comma-separated string.
//!
//! The rule: a list that cannot be read is an error naming its field, never a silently
//! narrower or wider list.

use serde_yaml_ng::Value;

use crate::error::AgentBuildError;
use crate::fields::{Fields, describe, scalar_text};
use crate::model_policy::{
    ListProblem, ModelLists, allowset, effort_list, plain_names, split_list,
};

/// The names written under `key`, or `None` when it is absent or null.
fn written(fields: &mut Fields<'_>, key: &str) -> Result<Option<Vec<String>>, AgentBuildError> {
    let Some(value) = fields.take(key) else {
        return Ok(None);
    };
    match value {
        Value::Sequence(items) => {
            let mut names = Vec::with_capacity(items.len());
            for item in &items {
                let text = scalar_text(item).ok_or_else(|| {
                    fields.error(key, format!("expected names, found {}", describe(item)))
                })?;
                names.extend(split_list(&text));
            }
            Ok(Some(names))
        }
        other => scalar_text(&other)
            .map(|text| Some(split_list(&text)))
            .ok_or_else(|| {
                fields.error(
                    key,
                    format!("expected a list of names, found {}", describe(&other)),
                )
            }),
    }
}

/// Reads `key` and checks it with `check`; a problem is an error naming the field.
fn read<T>(
    fields: &mut Fields<'_>,
    key: &str,
    check: impl FnOnce(Vec<String>) -> Result<T, ListProblem>,
) -> Result<Option<T>, AgentBuildError> {
    match written(fields, key)? {
        None => Ok(None),
        Some(names) => check(names)
            .map(Some)
            .map_err(|problem| fields.error(key, problem.0)),
    }
}

/// The lists, and `restrict_models_to_menu`. Every bad field is recorded (see
/// [`Fields::keep`]) and reads as absent.
pub(crate) fn read_model_lists(fields: &mut Fields<'_>) -> (ModelLists, bool) {
    let lists = ModelLists {
        allowed_models: fields
            .keep(|f| read(f, "allowed_models", allowset))
            .flatten(),
        deny_models: fields
            .keep(|f| read(f, "deny_models", plain_names))
            .unwrap_or_default(),
        allowed_efforts: fields.keep(|f| read(f, "allowed_efforts", |n| effort_list(&n))),
        preferred_models: fields
            .keep(|f| read(f, "preferred_models", plain_names))
            .unwrap_or_default(),
        discouraged_models: fields
            .keep(|f| read(f, "discouraged_models", plain_names))
            .unwrap_or_default(),
        preferred_efforts: fields
            .keep(|f| read(f, "preferred_efforts", |n| effort_list(&n)))
            .unwrap_or_default(),
    };
    let restrict = fields
        .keep(|f| f.bool("restrict_models_to_menu"))
        .unwrap_or(false);
    (lists, restrict)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use kigi_model::ReasoningEffort;

    use crate::{AgentDefinition, ModelChoice};

    fn parse(frontmatter: &str) -> Result<AgentDefinition, crate::AgentBuildError> {
        AgentDefinition::parse(
            &format!("---\nname: r\ndescription: d\n{frontmatter}---\nbody\n"),
            None,
        )
    }

    #[test]
    fn lists_are_read_from_yaml_lists_or_comma_separated_text() {
        let def = parse(
            "model: fast\nallowed_models: [fast, review]\ndeny_models: heavy, huge\n\
             allowed_efforts: [high]\nrestrict_models_to_menu: true\n\
             preferred_models: [fast]\ndiscouraged_models: review\npreferred_efforts: high\n",
        )
        .unwrap();
        let lists = &def.model_lists;
        assert_eq!(
            lists.allowed_models.as_deref(),
            Some(&["fast".to_owned(), "review".to_owned()][..])
        );
        assert_eq!(lists.deny_models, ["heavy", "huge"]);
        assert_eq!(
            lists.allowed_efforts.as_deref(),
            Some(&[ReasoningEffort::High][..])
        );
        assert_eq!(lists.preferred_models, ["fast"]);
        assert_eq!(lists.discouraged_models, ["review"]);
        assert_eq!(lists.preferred_efforts, [ReasoningEffort::High]);
        assert!(def.restrict_models_to_menu);
        assert_eq!(def.model, ModelChoice::Named("fast".into()));
        assert!(def.warnings.is_empty(), "{:?}", def.warnings);
    }

    #[test]
    fn a_lone_star_or_null_restricts_nothing_and_an_empty_list_everything() {
        assert_eq!(
            parse("allowed_models: \"*\"\n")
                .unwrap()
                .model_lists
                .allowed_models,
            None
        );
        assert_eq!(
            parse("allowed_models: null\n")
                .unwrap()
                .model_lists
                .allowed_models,
            None
        );
        assert_eq!(
            parse("allowed_models: []\n")
                .unwrap()
                .model_lists
                .allowed_models,
            Some(Vec::new())
        );
    }

    #[test]
    fn bad_lists_are_errors_naming_their_field() {
        let err = parse(
            "allowed_models: [\"*\", fast]\ndeny_models: [gpt-*]\nallowed_efforts: [max]\n\
             restrict_models_to_menu: true\n",
        )
        .unwrap_err();
        let fields: Vec<_> = err
            .to_diagnostics()
            .into_iter()
            .filter_map(|d| d.field)
            .collect();
        assert_eq!(
            fields,
            [
                "allowed_models",
                "deny_models",
                "allowed_efforts",
                "restrict_models_to_menu"
            ]
        );
        assert!(err.to_string().contains("effort `max` is unknown"), "{err}");
    }
}
