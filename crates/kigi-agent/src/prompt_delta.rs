//! Joining a prompt delta to a base prompt, as routes (`prompt_mode`) and `model_profiles`
//! entries (`prompt_mode` + `prompt`) do: before it, after it, or around it, where the delta
//! names the base with `${parent_prompt}` (or `${base_prompt}`) exactly once.
//!
//! The rule: the base prompt is always kept, once, verbatim; a placeholder inside the base
//! itself is text, never replaced.

use serde::Serialize;

/// How a delta joins its base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptDeltaMode {
    Prepend,
    Append,
    /// The delta holds the placeholder where the base goes.
    Wrap,
}

/// The spellings of the placeholder for the base prompt.
pub const PARENT_PLACEHOLDERS: [&str; 2] = ["${parent_prompt}", "${base_prompt}"];

/// How often `text` names the base prompt.
pub fn placeholder_count(text: &str) -> usize {
    PARENT_PLACEHOLDERS
        .iter()
        .map(|p| text.matches(p).count())
        .sum()
}

/// Why a delta cannot be used in `mode`, if it cannot.
pub fn check(mode: PromptDeltaMode, delta: &str) -> Result<(), &'static str> {
    let placeholders = placeholder_count(delta);
    match mode {
        PromptDeltaMode::Wrap if placeholders != 1 => {
            Err("`wrap` needs `${parent_prompt}` (or `${base_prompt}`) exactly once")
        }
        PromptDeltaMode::Prepend | PromptDeltaMode::Append if placeholders > 0 => {
            Err("`${parent_prompt}` belongs in `wrap` only")
        }
        _ => Ok(()),
    }
}

/// `base` with `delta` joined in `mode`.
pub fn compose(mode: PromptDeltaMode, base: &str, delta: &str) -> String {
    let delta = delta.trim();
    match mode {
        PromptDeltaMode::Prepend => format!("{delta}\n\n{base}"),
        PromptDeltaMode::Append => format!("{}\n\n{delta}", base.trim_end()),
        PromptDeltaMode::Wrap => {
            // The one placeholder the delta holds is replaced, once: the base is not scanned.
            match PARENT_PLACEHOLDERS
                .iter()
                .find_map(|p| delta.find(p).map(|at| (at, p.len())))
            {
                Some((at, len)) => format!("{}{base}{}", &delta[..at], &delta[at + len..]),
                None => delta.to_owned(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_keeps_the_base_once() {
        assert_eq!(compose(PromptDeltaMode::Prepend, "B", " D "), "D\n\nB");
        assert_eq!(compose(PromptDeltaMode::Append, "B\n", "D"), "B\n\nD");
        assert_eq!(
            compose(PromptDeltaMode::Wrap, "B", "x ${base_prompt} y"),
            "x B y"
        );
    }

    #[test]
    fn a_placeholder_inside_the_base_is_left_alone() {
        let base = "uses ${base_prompt} and ${parent_prompt} literally";
        assert_eq!(
            compose(PromptDeltaMode::Wrap, base, "<${parent_prompt}>"),
            format!("<{base}>")
        );
    }

    #[test]
    fn placeholders_belong_to_wrap_exactly_once() {
        assert!(check(PromptDeltaMode::Wrap, "no slot").is_err());
        assert!(check(PromptDeltaMode::Wrap, "${parent_prompt}${base_prompt}").is_err());
        assert!(check(PromptDeltaMode::Prepend, "${parent_prompt}").is_err());
        assert!(check(PromptDeltaMode::Append, "plain").is_ok());
    }
}
