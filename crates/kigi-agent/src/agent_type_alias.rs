//! The legacy agent-type prefix (seed 001): types named before the rename, `grok-build*`,
//! resolve to `kigi*`, so sessions and spawns that recorded the old name keep resolving.
//!
//! The rule: only the prefix is rewritten, only when a name is resolved, and an agent that
//! really has the old name still wins (the alias applies when the exact name finds nothing).

use std::borrow::Cow;

/// The prefix agent types had before the rename.
pub const LEGACY_TYPE_PREFIX: &str = "grok-build";
/// What it stands for now.
const CURRENT_TYPE_PREFIX: &str = "kigi";

/// `name` with a legacy prefix rewritten (`grok-build-concise` → `kigi-concise`); any other
/// name unchanged.
pub fn canonical_agent_type(name: &str) -> Cow<'_, str> {
    match name.strip_prefix(LEGACY_TYPE_PREFIX) {
        Some(rest) => Cow::Owned(format!("{CURRENT_TYPE_PREFIX}{rest}")),
        None => Cow::Borrowed(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_prefixed_types_resolve_to_kigi_and_others_are_unchanged() {
        assert_eq!(canonical_agent_type("grok-build"), "kigi");
        assert_eq!(canonical_agent_type("grok-build-concise"), "kigi-concise");
        assert_eq!(canonical_agent_type("explore"), "explore");
        assert!(matches!(canonical_agent_type("kigi"), Cow::Borrowed(_)));
    }
}
