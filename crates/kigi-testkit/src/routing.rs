//! Which script and step answer a request: pure functions of the request, so many
//! conversations hitting the server at once each get their own script's answers in their own
//! order, whatever order the requests arrive in.
//!
//! The rule: never route by global arrival order. The script comes from a marker in the
//! conversation, the step from its assistant-turn count, and the fault-or-answer choice from a
//! per-conversation attempt counter.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

use crate::script::Script;
use crate::wire::Conversation;

/// The script whose marker appears in the system prompt or first user message, the longest
/// marker winning (so `#task-1` does not capture `#task-10`; on a tie the first script wins);
/// else the first script without a marker.
pub fn route(scripts: &[Script], conversation: &Conversation) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (index, script) in scripts.iter().enumerate() {
        let Some(marker) = script.marker.as_deref() else {
            continue;
        };
        let found =
            conversation.system.contains(marker) || conversation.first_user.contains(marker);
        if found && best.is_none_or(|(_, len)| marker.len() > len) {
            best = Some((index, marker.len()));
        }
    }
    best.map(|(index, _)| index)
        .or_else(|| scripts.iter().position(|script| script.marker.is_none()))
}

/// Counts attempts at each (script, conversation, step), so faults are served on the first
/// attempts and the answer after them.
#[derive(Debug, Default)]
pub struct AttemptCounter {
    seen: Mutex<HashMap<(usize, u64, usize), u32>>,
}

impl AttemptCounter {
    /// The 0-based attempt number of this request.
    pub fn next(&self, script: usize, conversation: &Conversation) -> u32 {
        let mut hasher = DefaultHasher::new();
        conversation.system.hash(&mut hasher);
        conversation.first_user.hash(&mut hasher);
        let key = (script, hasher.finish(), conversation.assistant_turns);
        let mut seen = match self.seen.lock() {
            Ok(seen) => seen,
            Err(poisoned) => poisoned.into_inner(),
        };
        let count = seen.entry(key).or_insert(0);
        let attempt = *count;
        *count += 1;
        attempt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Step;

    fn conversation(system: &str, user: &str, turns: usize) -> Conversation {
        Conversation {
            system: system.into(),
            first_user: user.into(),
            assistant_turns: turns,
        }
    }

    #[test]
    fn markers_win_over_the_fallback_script() {
        let scripts = vec![
            Script {
                name: "fallback".into(),
                marker: None,
                steps: vec![Step::text("f")],
            },
            Script::matching("#alpha", vec![Step::text("a")]),
        ];
        assert_eq!(route(&scripts, &conversation("", "do #alpha", 0)), Some(1));
        assert_eq!(route(&scripts, &conversation("x #alpha", "", 0)), Some(1));
        assert_eq!(route(&scripts, &conversation("", "other", 0)), Some(0));
        assert_eq!(route(&scripts[1..], &conversation("", "other", 0)), None);
    }

    #[test]
    fn the_longest_matching_marker_wins() {
        let scripts = vec![
            Script::matching("#task-1", vec![]),
            Script::matching("#task-10", vec![]),
        ];
        assert_eq!(
            route(&scripts, &conversation("", "do #task-10", 0)),
            Some(1)
        );
        assert_eq!(
            route(&scripts, &conversation("", "do #task-1 now", 0)),
            Some(0)
        );
    }

    #[test]
    fn attempts_are_counted_per_conversation_and_step() {
        let counter = AttemptCounter::default();
        let a = conversation("s", "a", 0);
        let b = conversation("s", "b", 0);
        assert_eq!(counter.next(0, &a), 0);
        assert_eq!(counter.next(0, &b), 0);
        assert_eq!(counter.next(0, &a), 1);
        assert_eq!(counter.next(0, &conversation("s", "a", 1)), 0);
    }
}
