//! Time management (search step 13): turns the UCI clock into a soft limit
//! (do not start another iteration after it) and a hard limit (abort the
//! search), both from the parameters `time_soft_pct`, `time_hard_pct` and
//! `move_overhead_ms`. Only these limits ever look at the wall clock, so
//! fixed-depth and fixed-node searches stay deterministic.

use cozy_chess::Color;

use crate::params::SearchParams;
use crate::search::Limits;

/// Time budget of one search, in milliseconds from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimeBudget {
    /// Do not start a new iteration once this has passed.
    pub soft_ms: Option<u64>,
    /// Abort the search when this has passed.
    pub hard_ms: Option<u64>,
}

/// Compute the budget for the side `us` from `limits`.
pub fn budget(limits: &Limits, us: Color, p: &SearchParams) -> TimeBudget {
    let overhead = p.move_overhead_ms.max(0) as u64;
    if let Some(mt) = limits.movetime_ms {
        let t = mt.saturating_sub(overhead).max(1);
        return TimeBudget {
            soft_ms: Some(t),
            hard_ms: Some(t),
        };
    }
    if limits.infinite {
        return TimeBudget::default();
    }
    let (time, inc) = match us {
        Color::White => (limits.wtime_ms, limits.winc_ms),
        Color::Black => (limits.btime_ms, limits.binc_ms),
    };
    let Some(time) = time else {
        return TimeBudget::default();
    };
    let inc = inc.unwrap_or(0);
    // Never plan to use the overhead, and keep a sliver even when the clock
    // reads less than the overhead.
    let avail = time.saturating_sub(overhead).max(1);
    let inc_share = inc * 3 / 4;
    let mut soft = avail * p.time_soft_pct as u64 / 100 + inc_share;
    let mut hard = avail * p.time_hard_pct as u64 / 100 + inc_share;
    if let Some(mtg) = limits.movestogo {
        // With a fixed number of moves to the control, spread the time evenly
        // but keep the percentage caps.
        let per_move = avail / mtg.max(1) as u64 + inc_share;
        soft = soft.max(per_move / 2).min(per_move);
        hard = hard.min(per_move * 3);
    }
    // Keep a quarter of what is left even when the increment share would
    // allow more: on a nearly empty clock the increment then refills it
    // instead of every move running into the overhead.
    let hard = hard.min(avail * 3 / 4).max(1);
    let soft = soft.min(hard).max(1);
    TimeBudget {
        soft_ms: Some(soft),
        hard_ms: Some(hard),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_budgets_stay_within_the_clock() {
        let p = SearchParams::default();
        let l = Limits {
            wtime_ms: Some(1000),
            winc_ms: Some(10),
            ..Limits::default()
        };
        let b = budget(&l, Color::White, &p);
        let (soft, hard) = (b.soft_ms.unwrap(), b.hard_ms.unwrap());
        assert!(
            soft <= hard && hard < 1000 - p.move_overhead_ms as u64,
            "{b:?}"
        );
        assert_eq!(
            hard,
            (1000 - p.move_overhead_ms as u64) * p.time_hard_pct as u64 / 100 + 7
        );
        // Black's clock is used for black.
        let l = Limits {
            wtime_ms: Some(1000),
            btime_ms: Some(60_000),
            ..Limits::default()
        };
        assert!(budget(&l, Color::Black, &p).soft_ms.unwrap() > 1000);
        // Nearly flagged: still a positive budget below the remaining time.
        let l = Limits {
            wtime_ms: Some(15),
            ..Limits::default()
        };
        assert_eq!(budget(&l, Color::White, &p).hard_ms, Some(1));
    }

    #[test]
    fn parameters_move_the_limits() {
        let l = Limits {
            wtime_ms: Some(10_000),
            winc_ms: Some(100),
            ..Limits::default()
        };
        let base = budget(&l, Color::White, &SearchParams::default());
        let d = SearchParams::default();
        let p = SearchParams {
            time_soft_pct: d.time_soft_pct * 2,
            ..d.clone()
        };
        assert!(budget(&l, Color::White, &p).soft_ms > base.soft_ms);
        let p = SearchParams {
            time_hard_pct: d.time_hard_pct / 2,
            ..d.clone()
        };
        assert!(budget(&l, Color::White, &p).hard_ms < base.hard_ms);
        let p = SearchParams {
            move_overhead_ms: 1000,
            ..d
        };
        assert!(budget(&l, Color::White, &p).hard_ms < base.hard_ms);
    }

    #[test]
    fn movetime_and_infinite() {
        let p = SearchParams::default();
        let l = Limits {
            movetime_ms: Some(500),
            ..Limits::default()
        };
        let b = budget(&l, Color::White, &p);
        assert_eq!(b.hard_ms, Some(500 - p.move_overhead_ms as u64));
        let l = Limits {
            infinite: true,
            wtime_ms: Some(100),
            ..Limits::default()
        };
        assert_eq!(budget(&l, Color::White, &p), TimeBudget::default());
        assert_eq!(
            budget(&Limits::default(), Color::White, &p),
            TimeBudget::default()
        );
    }
}
