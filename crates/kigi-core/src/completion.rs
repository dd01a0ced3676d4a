//! The completion requirement: an agent that must call a given tool before it ends its turn.
//! When the model stops without calling it, a reminder is injected and the loop goes on, a
//! bounded number of times, with backoff.

use std::time::Duration;

use kigi_agent::CompletionRequirement;

/// What to do when the model stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionCheck {
    /// No requirement, or it was met.
    Done,
    /// Inject `reminder` after `delay` and ask the model again.
    Remind { reminder: String, delay: Duration },
    /// The reminders are spent.
    GiveUp { tool: String, reminders: u32 },
}

/// Tracks one turn's requirement.
#[derive(Debug, Clone)]
pub struct CompletionTracker {
    requirement: Option<CompletionRequirement>,
    satisfied: bool,
    reminders: u32,
}

impl CompletionTracker {
    pub fn new(requirement: Option<CompletionRequirement>) -> Self {
        Self {
            requirement,
            satisfied: false,
            reminders: 0,
        }
    }

    /// Records a call (canonical name) that ran to completion.
    pub fn called(&mut self, tool: &str) {
        if self.requirement.as_ref().is_some_and(|r| r.tool == tool) {
            self.satisfied = true;
        }
    }

    /// The model stopped without tool calls.
    pub fn check(&mut self) -> CompletionCheck {
        let Some(requirement) = &self.requirement else {
            return CompletionCheck::Done;
        };
        if self.satisfied {
            return CompletionCheck::Done;
        }
        let policy = requirement.recovery.unwrap_or_default();
        if self.reminders >= policy.max_retries {
            return CompletionCheck::GiveUp {
                tool: requirement.tool.clone(),
                reminders: self.reminders,
            };
        }
        let delay = Duration::from_millis(
            policy
                .base_delay_ms
                .saturating_mul(1u64 << self.reminders.min(20))
                .min(policy.max_delay_ms),
        );
        self.reminders += 1;
        CompletionCheck::Remind {
            reminder: format!(
                "<system-reminder>\n{}\n</system-reminder>",
                requirement.reminder.trim()
            ),
            delay,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kigi_agent::RetryPolicy;

    fn requirement(max_retries: u32) -> CompletionRequirement {
        CompletionRequirement {
            tool: "complete_task".into(),
            reminder: "Call complete_task.".into(),
            recovery: Some(RetryPolicy {
                max_retries,
                base_delay_ms: 100,
                max_delay_ms: 250,
            }),
        }
    }

    #[test]
    fn reminds_with_capped_backoff_then_gives_up() {
        let mut tracker = CompletionTracker::new(Some(requirement(3)));
        let delays: Vec<Duration> = (0..3)
            .map(|_| match tracker.check() {
                CompletionCheck::Remind { delay, reminder } => {
                    assert!(reminder.starts_with("<system-reminder>\nCall complete_task."));
                    delay
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(delays, [100, 200, 250].map(Duration::from_millis));
        assert_eq!(
            tracker.check(),
            CompletionCheck::GiveUp {
                tool: "complete_task".into(),
                reminders: 3
            }
        );
    }

    #[test]
    fn calling_the_tool_satisfies_it() {
        let mut tracker = CompletionTracker::new(Some(requirement(3)));
        tracker.called("read_file");
        assert!(matches!(tracker.check(), CompletionCheck::Remind { .. }));
        tracker.called("complete_task");
        assert_eq!(tracker.check(), CompletionCheck::Done);
        assert_eq!(CompletionTracker::new(None).check(), CompletionCheck::Done);
    }
}
