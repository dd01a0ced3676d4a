//! `${VAR}` and `${VAR:-default}` in server entries, as Claude Code expands them.
//!
//! The rule: expansion is a pure function of the text and an environment lookup; only the
//! braced forms are variables (`$VAR` stays literal), `:-` takes the default when the variable
//! is unset or empty (as in a shell), and a `${` that does not close, or whose name is not a
//! variable name, is kept as written.

/// The variable a `${VAR}` named that the lookup did not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsetVariable(pub String);

/// Expands every `${VAR}` / `${VAR:-default}` in `text`.
pub fn expand_vars(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, UnsetVariable> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let body = &after[..end];
        let (name, default) = match body.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (body, None),
        };
        if is_variable_name(name) {
            match (lookup(name), default) {
                (Some(value), Some(default)) if value.is_empty() => out.push_str(default),
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => return Err(UnsetVariable(name.to_owned())),
            }
        } else {
            out.push_str(&rest[start..start + 2 + end + 1]);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn expands_set_variables_and_defaults() {
        assert_eq!(expand_vars("${HOME}/x", &env).unwrap(), "/home/u/x");
        assert_eq!(expand_vars("a${NOPE:-d}b", &env).unwrap(), "adb");
        assert_eq!(expand_vars("${HOME:-d}", &env).unwrap(), "/home/u");
        assert_eq!(expand_vars("${EMPTY:-d}", &env).unwrap(), "d");
        assert_eq!(expand_vars("${EMPTY}", &env).unwrap(), "");
        assert_eq!(expand_vars("${NOPE:-}", &env).unwrap(), "");
        assert_eq!(
            expand_vars("${HOME}${HOME}", &env).unwrap(),
            "/home/u/home/u"
        );
    }

    #[test]
    fn an_unset_variable_without_default_is_an_error_naming_it() {
        assert_eq!(
            expand_vars("x ${API_KEY} y", &env),
            Err(UnsetVariable("API_KEY".into()))
        );
    }

    #[test]
    fn non_variables_stay_literal() {
        assert_eq!(expand_vars("$HOME ${", &env).unwrap(), "$HOME ${");
        assert_eq!(expand_vars("${1X} ${a b}", &env).unwrap(), "${1X} ${a b}");
        assert_eq!(expand_vars("${HOME", &env).unwrap(), "${HOME");
    }

    proptest! {
        #[test]
        fn text_without_a_variable_is_unchanged(text in "[^$]*") {
            prop_assert_eq!(expand_vars(&text, &env).unwrap(), text);
        }

        #[test]
        fn never_panics_and_defaults_never_fail(text in ".*") {
            let everything_set = |_: &str| Some("v".to_owned());
            prop_assert!(expand_vars(&text, &everything_set).is_ok());
        }
    }
}
