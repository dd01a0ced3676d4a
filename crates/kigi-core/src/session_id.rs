//! Session ids: `YYYYMMDD-HHMMSS-xxxxxx`, sortable by start time, random in the last part, and
//! safe to use as a folder name. Anything else is refused before it touches a path.

use std::hash::{BuildHasher, RandomState};

/// A new id for a session starting now.
pub fn new_session_id() -> String {
    let now = chrono::Utc::now();
    let random =
        RandomState::new().hash_one(now.timestamp_nanos_opt().unwrap_or_default()) & 0xff_ffff;
    format!("{}-{random:06x}", now.format("%Y%m%d-%H%M%S"))
}

/// Whether `id` has the session-id shape (so it can never climb out of the sessions folder).
pub fn is_session_id(id: &str) -> bool {
    let parts: Vec<&str> = id.split('-').collect();
    matches!(parts.as_slice(), [date, time, random]
        if date.len() == 8 && time.len() == 6 && random.len() == 6
            && date.bytes().all(|b| b.is_ascii_digit())
            && time.bytes().all(|b| b.is_ascii_digit())
            && random.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether `id` is a subagent id (`sub-` and a number): never a path.
pub fn is_subagent_id(id: &str) -> bool {
    id.strip_prefix("sub-")
        .is_some_and(|n| !n.is_empty() && n.len() <= 6 && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_have_the_checked_shape_and_paths_are_refused() {
        assert!(is_session_id(&new_session_id()));
        assert!(!is_session_id("../../etc"));
        assert!(!is_session_id("20261130-124501-1a2b3c/.."));
        assert!(is_session_id("20261130-124501-1a2b3c"));
        assert!(is_subagent_id("sub-12") && !is_subagent_id("sub-../x") && !is_subagent_id("sub-"));
    }
}
