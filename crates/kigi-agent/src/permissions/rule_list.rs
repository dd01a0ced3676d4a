//! Rules as a command line gives them (`--allowedTools "Bash(git log:*) Read,Edit(src/**)"`):
//! separated by commas or spaces, except inside a rule's parentheses, as Claude Code reads
//! them.

use super::rule_set::{PermissionRules, RuleEffect, RuleListError, RuleSource};

/// The rules in `values` (each may hold several), split.
pub fn split_rule_list(values: &[String]) -> Vec<String> {
    let mut rules = Vec::new();
    for value in values {
        let (mut current, mut depth) = (String::new(), 0usize);
        for c in value.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 && (c == ',' || c.is_whitespace()) {
                if !current.is_empty() {
                    rules.push(std::mem::take(&mut current));
                }
            } else {
                current.push(c);
            }
        }
        if !current.is_empty() {
            rules.push(current);
        }
    }
    rules
}

/// `--allowedTools` and `--disallowedTools` as rules; an unusable one is an error naming its
/// flag.
pub fn flag_rules(
    allowed: &[String],
    disallowed: &[String],
) -> Result<PermissionRules, RuleListError> {
    let mut rules = PermissionRules::default();
    for (effect, flag, values) in [
        (RuleEffect::Deny, "--disallowedTools", disallowed),
        (RuleEffect::Allow, "--allowedTools", allowed),
    ] {
        rules.add(
            effect,
            &split_rule_list(values),
            &RuleSource::Flag(flag),
            flag,
        )?;
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commas_and_spaces_separate_rules_except_inside_parentheses() {
        let values = vec![
            "Bash(git log:*) Read,Edit(src/**)".to_owned(),
            "Bash(git commit -m x, y)".to_owned(),
        ];
        assert_eq!(
            split_rule_list(&values),
            [
                "Bash(git log:*)",
                "Read",
                "Edit(src/**)",
                "Bash(git commit -m x, y)"
            ]
        );
    }

    #[test]
    fn a_bad_flag_rule_names_the_flag() {
        let error = flag_rules(&[], &["Nope".to_owned()])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("--disallowedTools") && error.contains("Nope"),
            "{error}"
        );
        let rules = flag_rules(&["Bash(cargo test:*)".to_owned()], &[]).unwrap();
        assert_eq!(rules.rules()[0].source, RuleSource::Flag("--allowedTools"));
    }
}
