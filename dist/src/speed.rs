//! A machine's speed and the clock it plays: the engine's bench run
//! several times (median nodes per second, and the spread that marks a
//! noisy machine), and a clock scaled by `reference_nps / nps` so that a
//! test at "10+0.1" is the same search on a fast and a slow machine
//! (fishtest and OpenBench scale the same way). Node and depth limits are
//! never scaled: fixed-node games stay exactly reproducible.

use std::time::Duration;

use karsinta_engine::bench::{run_bench, DEFAULT_BENCH_DEPTH};
use karsinta_engine::Params;
use karsinta_harness::play::clock::{TimeControl, Timed};

/// Bench runs a worker makes when it starts.
pub const DEFAULT_RUNS: usize = 5;

/// Spread (max - min over the median) above which a machine is noisy:
/// its clock games would not be the search the test means.
pub const DEFAULT_NOISY_SPREAD: f64 = 0.10;

/// A measured (or assumed) speed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Speed {
    /// Median nodes per second of the runs.
    pub nps: u64,
    /// (max - min) / median of the runs' nodes per second.
    pub spread: f64,
}

impl Speed {
    /// The speed of `samples` (nodes per second of each run).
    pub fn of_samples(samples: &[u64]) -> Speed {
        let mut s = samples.to_vec();
        s.sort_unstable();
        let Some(&max) = s.last() else {
            return Speed {
                nps: 0,
                spread: 0.0,
            };
        };
        let median = if s.len() % 2 == 1 {
            s[s.len() / 2]
        } else {
            (s[s.len() / 2 - 1] + s[s.len() / 2]) / 2
        };
        let spread = if median > 0 {
            (max - s[0]) as f64 / median as f64
        } else {
            0.0
        };
        Speed {
            nps: median,
            spread,
        }
    }

    /// Whether the spread is over `threshold`.
    pub fn noisy(&self, threshold: f64) -> bool {
        self.spread > threshold
    }
}

/// This machine's speed: Karsinta's bench (default parameters, the bench
/// depth) `runs` times, one thread, as `karsinta-engine bench` measures.
pub fn measure(runs: usize) -> Speed {
    let params = Params::default();
    let samples: Vec<u64> = (0..runs.max(1))
        .map(|_| run_bench(&params, DEFAULT_BENCH_DEPTH).nps)
        .collect();
    Speed::of_samples(&samples)
}

/// Whether `tc` limits nodes or depth (never scaled; a noisy machine may
/// play it).
pub fn is_fixed_limit(tc: &TimeControl) -> bool {
    matches!(tc, TimeControl::Nodes(_) | TimeControl::Depth(_))
}

/// `tc` for a machine of `nps` when the test's clock is meant for
/// `reference` nodes per second: times times `reference / nps`, node and
/// depth limits unchanged. Without either speed, the nominal clock.
pub fn scaled(tc: &TimeControl, reference: Option<u64>, nps: u64) -> TimeControl {
    let Some(factor) = reference
        .filter(|&r| r > 0 && nps > 0)
        .map(|r| r as f64 / nps as f64)
    else {
        return *tc;
    };
    // Whole milliseconds: the clock's text form (and the engines') keeps
    // no finer.
    let scale = |d: Duration| {
        Duration::from_millis((d.as_secs_f64() * factor * 1000.0).round().max(1.0) as u64)
    };
    match *tc {
        TimeControl::Nodes(_) | TimeControl::Depth(_) => *tc,
        TimeControl::MoveTime(t) => TimeControl::MoveTime(scale(t)),
        TimeControl::Clock { moves, base, inc } => TimeControl::Clock {
            moves,
            base: if base.is_zero() { base } else { scale(base) },
            inc: if inc.is_zero() { inc } else { scale(inc) },
        },
        // The time part scales; node and depth limits do not.
        TimeControl::Combined { nodes, depth, time } => TimeControl::Combined {
            nodes,
            depth,
            time: time.map(|t| match t {
                Timed::MoveTime(d) => Timed::MoveTime(scale(d)),
                Timed::Clock { moves, base, inc } => Timed::Clock {
                    moves,
                    base: if base.is_zero() { base } else { scale(base) },
                    inc: if inc.is_zero() { inc } else { scale(inc) },
                },
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_spread_of_the_runs() {
        let s = Speed::of_samples(&[1000, 900, 1100, 1000, 1000]);
        assert_eq!(s.nps, 1000);
        assert!((s.spread - 0.2).abs() < 1e-9);
        assert!(s.noisy(0.1) && !s.noisy(0.25));
        assert_eq!(Speed::of_samples(&[10, 20]).nps, 15);
        assert_eq!(Speed::of_samples(&[]).nps, 0);
    }

    #[test]
    fn clocks_scale_and_fixed_limits_do_not() {
        let tc: TimeControl = "10+0.1".parse().unwrap();
        assert_eq!(scaled(&tc, Some(1_000_000), 500_000).to_string(), "20+0.2");
        assert_eq!(
            scaled(&tc, Some(1_000_000), 2_000_000).to_string(),
            "5+0.05"
        );
        assert_eq!(scaled(&tc, None, 500_000), tc);
        let tc: TimeControl = "40/60".parse().unwrap();
        assert_eq!(scaled(&tc, Some(2), 1).to_string(), "40/120");
        for fixed in ["nodes=400", "depth=6"] {
            let tc: TimeControl = fixed.parse().unwrap();
            assert!(is_fixed_limit(&tc));
            assert_eq!(scaled(&tc, Some(1_000_000), 1), tc);
        }
        assert!(!is_fixed_limit(&"movetime=0.1".parse().unwrap()));
    }
}
