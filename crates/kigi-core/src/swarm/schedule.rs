//! `schedule`: when members launch, as pure arithmetic. A launch ramp (an initial burst, then
//! one launch per interval) under a concurrency cap, and an adaptive capacity that shrinks
//! while members are rate-limited and recovers after. The engine drives it; these functions
//! are tested without a runtime.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

use kigi_agent::SwarmConfig;

/// The ramp and the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// Launched at once.
    pub initial_burst: usize,
    /// Then one launch per interval.
    pub interval: Duration,
    /// Members running at the same time, at most.
    pub max_concurrency: usize,
}

impl Default for Schedule {
    fn default() -> Self {
        // The defaults `[swarm]` documents (and `kigi config` shows).
        Self {
            initial_burst: SwarmConfig::DEFAULT_INITIAL_BURST,
            interval: Duration::from_millis(SwarmConfig::DEFAULT_LAUNCH_INTERVAL_MS),
            max_concurrency: SwarmConfig::DEFAULT_MAX_CONCURRENCY,
        }
    }
}

impl Schedule {
    /// The earliest time (from the swarm's start) the ramp lets launch `k` (0-based) go.
    pub fn ramp_time(&self, k: usize) -> Duration {
        let burst = self.initial_burst.max(1);
        if k < burst {
            Duration::ZERO
        } else {
            self.interval
                .saturating_mul(u32::try_from(k - burst + 1).unwrap_or(u32::MAX))
        }
    }

    /// The wall time `members` members take if each runs for `duration` and nothing fails:
    /// every member launches at the later of its ramp time and the moment a slot frees. This
    /// is the ideal the benchmark compares the engine against.
    pub fn ideal_makespan(&self, members: usize, duration: Duration) -> Duration {
        let cap = self.max_concurrency.max(1);
        let mut finishing: BinaryHeap<Reverse<Duration>> = BinaryHeap::new();
        let mut end = Duration::ZERO;
        for k in 0..members {
            let mut start = self.ramp_time(k);
            if finishing.len() >= cap
                && let Some(Reverse(free)) = finishing.pop()
            {
                start = start.max(free);
            }
            let done = start + duration;
            finishing.push(Reverse(done));
            end = end.max(done);
        }
        end
    }
}

/// Capacity that halves when a member is rate-limited and grows back by one after a run of
/// successes, within `[1, cap]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdaptiveCapacity {
    cap: usize,
    current: usize,
    successes: usize,
    /// Successes in a row before capacity grows by one.
    recover_after: usize,
}

impl AdaptiveCapacity {
    pub fn new(cap: usize) -> Self {
        let cap = cap.max(1);
        Self {
            cap,
            current: cap,
            successes: 0,
            recover_after: 2,
        }
    }

    pub fn current(&self) -> usize {
        self.current
    }

    /// A member was rate-limited.
    pub fn rate_limited(&mut self) {
        self.current = (self.current / 2).max(1);
        self.successes = 0;
    }

    /// A member finished without being rate-limited.
    pub fn succeeded(&mut self) {
        self.successes += 1;
        if self.successes >= self.recover_after && self.current < self.cap {
            self.current += 1;
            self.successes = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn the_ramp_bursts_then_spaces_launches() {
        let s = Schedule {
            initial_burst: 3,
            interval: MS(100),
            max_concurrency: 10,
        };
        let times: Vec<Duration> = (0..6).map(|k| s.ramp_time(k)).collect();
        assert_eq!(times, [MS(0), MS(0), MS(0), MS(100), MS(200), MS(300)]);
    }

    #[test]
    fn the_cap_bounds_the_ideal_makespan() {
        let s = Schedule {
            initial_burst: 128,
            interval: MS(0),
            max_concurrency: 16,
        };
        // 128 members of 200 ms, 16 at a time: 8 waves.
        assert_eq!(s.ideal_makespan(128, MS(200)), MS(1_600));
        let uncapped = Schedule {
            max_concurrency: 128,
            ..s
        };
        assert_eq!(uncapped.ideal_makespan(128, MS(200)), MS(200));
        let ramped = Schedule {
            initial_burst: 2,
            interval: MS(50),
            max_concurrency: 100,
        };
        // Launches at 0, 0, 50, 100: the last ends at 300.
        assert_eq!(ramped.ideal_makespan(4, MS(200)), MS(300));
    }

    #[test]
    fn capacity_halves_under_rate_limits_and_recovers() {
        let mut capacity = AdaptiveCapacity::new(16);
        capacity.rate_limited();
        assert_eq!(capacity.current(), 8);
        capacity.rate_limited();
        capacity.rate_limited();
        capacity.rate_limited();
        capacity.rate_limited();
        assert_eq!(capacity.current(), 1);
        for _ in 0..4 {
            capacity.succeeded();
        }
        assert_eq!(capacity.current(), 3);
        for _ in 0..100 {
            capacity.succeeded();
        }
        assert_eq!(capacity.current(), 16);
    }
}
