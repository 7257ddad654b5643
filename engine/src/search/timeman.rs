//! Time management (between iterations and in the abort check, see
//! [`super`]): turns the UCI clock into a soft limit
//! (do not start another iteration after it) and a hard limit (abort the
//! search), both from the parameters `time_soft_pct`, `time_hard_pct` and
//! `move_overhead_ms`. Only these limits ever look at the wall clock, so
//! fixed-depth and fixed-node searches stay deterministic.

use cozy_chess::Color;

use crate::params::SearchParams;
use crate::search::types::Limits;

/// Time budget of one search, in milliseconds from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimeBudget {
    /// Do not start a new iteration once this has passed.
    pub soft_ms: Option<u64>,
    /// Abort the search when this has passed.
    pub hard_ms: Option<u64>,
}

impl TimeBudget {
    /// The soft limit after an iteration, scaled by how settled the choice
    /// is, never past the hard limit; a fixed budget (soft = hard, `go
    /// movetime`) is not scaled.
    /// - `time_stability`, from `stable`, the completed iterations in a row
    ///   that kept the same best move: `time_unstable_pct` of the limit right
    ///   after a change, falling linearly to `time_stable_pct` at four.
    /// - `time_node_fraction`, from `best_permille`, the share (per mille)
    ///   of the search's nodes spent below the best root move: a move that
    ///   took nearly all of them is rarely overturned by one more iteration,
    ///   one that took few is contested. The limit is multiplied by
    ///   `(time_node_base_pct - share) * time_node_scale_pct`, in percent.
    /// - `time_score_trend`, from `score_drop_cp`, how far the score fell
    ///   over the last iterations (negative: it rose): a falling score is
    ///   a position going wrong, where more search may still find the
    ///   defence; `time_score_flat_pct` of the limit while it holds or
    ///   rises, `time_score_per_cp` percent more per cp it fell, at most
    ///   `time_score_max_pct` (Ethereal's score factor).
    pub fn scaled_soft_ms(
        &self,
        stable: u32,
        best_permille: u32,
        score_drop_cp: i32,
        p: &SearchParams,
    ) -> Option<u64> {
        let soft = self.soft_ms?;
        let Some(hard) = self.hard_ms.filter(|&hard| soft < hard) else {
            return Some(soft);
        };
        // The product of the factors, in millionths.
        let mut scale: u128 = 1_000_000;
        if p.time_stability {
            let (hi, lo) = (p.time_unstable_pct, p.time_stable_pct);
            let pct = hi - (hi - lo) * stable.min(4) as i32 / 4;
            scale = scale * pct.max(1) as u128 / 100;
        }
        if p.time_node_fraction {
            let share = best_permille.min(1000) as i64;
            let base = p.time_node_base_pct as i64 * 10;
            let factor = (base - share).max(1) as u128 * p.time_node_scale_pct.max(1) as u128;
            scale = scale * factor / 100_000;
        }
        if p.time_score_trend {
            let flat = p.time_score_flat_pct.max(1);
            let pct = (flat + p.time_score_per_cp * score_drop_cp.clamp(0, 1000))
                .clamp(flat, p.time_score_max_pct.max(flat));
            scale = scale * pct as u128 / 100;
        }
        Some((soft as u128 * scale / 1_000_000).clamp(1, hard as u128) as u64)
    }
}

/// Compute the budget for the side `us` from `limits`. All arithmetic
/// saturates: a GUI may send any number.
pub fn budget(limits: &Limits, us: Color, p: &SearchParams) -> TimeBudget {
    let overhead = p.move_overhead_ms.max(0) as u64;
    // Percentages in u128: exact for any u64 and any percentage.
    let pct =
        |x: u64, pct: i32| (x as u128 * pct.max(0) as u128 / 100).min(u64::MAX as u128) as u64;
    if let Some(mt) = limits.movetime_ms {
        // Keep the overhead in reserve, but a movetime shorter than the
        // overhead still gets a share of itself rather than nothing.
        let t = mt
            .saturating_sub(overhead)
            .max(pct(mt, p.time_movetime_min_pct))
            .max(1);
        return fixed(t);
    }
    if limits.infinite {
        return TimeBudget::default();
    }
    let (time, inc) = match us {
        Color::White => (limits.wtime_ms, limits.winc_ms),
        Color::Black => (limits.btime_ms, limits.binc_ms),
    };
    let Some(time) = time else {
        // A clock is running but ours is unknown: searching until `stop`
        // could lose on time, so take a modest fixed amount.
        let any_clock = limits.wtime_ms.is_some()
            || limits.btime_ms.is_some()
            || limits.winc_ms.is_some()
            || limits.binc_ms.is_some()
            || limits.movestogo.is_some();
        return if any_clock {
            fixed(p.time_missing_clock_ms.max(1) as u64)
        } else {
            TimeBudget::default()
        };
    };
    let inc = inc.unwrap_or(0);
    // Never plan to use the overhead, and keep a sliver even when the clock
    // reads less than the overhead (the search always finishes depth 1).
    let avail = time.saturating_sub(overhead).max(1);
    let inc_share = pct(inc, p.time_inc_pct);
    let mut soft = pct(avail, p.time_soft_pct).saturating_add(inc_share);
    let mut hard = pct(avail, p.time_hard_pct).saturating_add(inc_share);
    if let Some(mtg) = limits.movestogo {
        // With a fixed number of moves to the control, spread the time evenly
        // but keep the percentage caps.
        let per_move = (avail / mtg.max(1) as u64).saturating_add(inc_share);
        soft = soft
            .max(pct(per_move, p.time_mtg_soft_min_pct))
            .min(pct(per_move, p.time_mtg_soft_max_pct));
        hard = hard.min(pct(per_move, p.time_mtg_hard_pct));
    }
    // Keep part of what is left even when the increment share would allow
    // more: on a nearly empty clock the increment then refills it instead of
    // every move running into the overhead.
    let hard = hard.min(pct(avail, p.time_max_pct)).max(1);
    let soft = soft.min(hard).max(1);
    TimeBudget {
        soft_ms: Some(soft),
        hard_ms: Some(hard),
    }
}

/// The same soft and hard limit.
fn fixed(ms: u64) -> TimeBudget {
    TimeBudget {
        soft_ms: Some(ms),
        hard_ms: Some(ms),
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
            (1000 - p.move_overhead_ms as u64) * p.time_hard_pct as u64 / 100
                + 10 * p.time_inc_pct as u64 / 100
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
    fn a_settled_best_move_shortens_the_soft_limit() {
        let b = TimeBudget {
            soft_ms: Some(1000),
            hard_ms: Some(4000),
        };
        let mut p = SearchParams::default();
        assert_eq!(b.scaled_soft_ms(0, 500, 0, &p), Some(1000), "off: unscaled");
        p.time_stability = true;
        p.time_unstable_pct = 200;
        p.time_stable_pct = 60;
        assert_eq!(b.scaled_soft_ms(0, 500, 0, &p), Some(2000));
        assert_eq!(b.scaled_soft_ms(2, 500, 0, &p), Some(1300));
        assert_eq!(b.scaled_soft_ms(4, 500, 0, &p), Some(600));
        assert_eq!(b.scaled_soft_ms(9, 500, 0, &p), Some(600));
        // Never past the hard limit; a fixed budget is left alone.
        p.time_unstable_pct = 300;
        let tight = TimeBudget {
            soft_ms: Some(1000),
            hard_ms: Some(1500),
        };
        assert_eq!(tight.scaled_soft_ms(0, 500, 0, &p), Some(1500));
        let fixed = TimeBudget {
            soft_ms: Some(700),
            hard_ms: Some(700),
        };
        assert_eq!(fixed.scaled_soft_ms(4, 500, 0, &p), Some(700));
        assert_eq!(TimeBudget::default().scaled_soft_ms(0, 500, 0, &p), None);
    }

    #[test]
    fn a_best_move_taking_most_nodes_shortens_the_soft_limit() {
        let b = TimeBudget {
            soft_ms: Some(1000),
            hard_ms: Some(4000),
        };
        let mut p = SearchParams {
            time_node_fraction: false,
            ..SearchParams::default()
        };
        assert_eq!(b.scaled_soft_ms(0, 100, 0, &p), Some(1000), "off: unscaled");
        p.time_node_fraction = true;
        p.time_node_base_pct = 150;
        p.time_node_scale_pct = 135;
        // (1.5 - share) * 1.35.
        assert_eq!(b.scaled_soft_ms(0, 1000, 0, &p), Some(675));
        assert_eq!(b.scaled_soft_ms(0, 500, 0, &p), Some(1350));
        assert_eq!(b.scaled_soft_ms(0, 100, 0, &p), Some(1890));
        assert_eq!(
            b.scaled_soft_ms(0, 5000, 0, &p),
            Some(675),
            "share capped at all"
        );
        // With stability the factors multiply; the hard limit still caps.
        p.time_stability = true;
        p.time_unstable_pct = 200;
        p.time_stable_pct = 60;
        assert_eq!(b.scaled_soft_ms(4, 1000, 0, &p), Some(405));
        assert_eq!(b.scaled_soft_ms(0, 0, 0, &p), Some(4000));
    }

    #[test]
    fn a_falling_score_lengthens_the_soft_limit() {
        let b = TimeBudget {
            soft_ms: Some(1000),
            hard_ms: Some(4000),
        };
        let mut p = SearchParams::default();
        assert_eq!(
            b.scaled_soft_ms(0, 500, 40, &p),
            Some(1000),
            "off: unscaled"
        );
        p.time_score_trend = true;
        p.time_score_flat_pct = 75;
        p.time_score_per_cp = 3;
        p.time_score_max_pct = 130;
        assert_eq!(b.scaled_soft_ms(0, 500, -50, &p), Some(750), "rising");
        assert_eq!(b.scaled_soft_ms(0, 500, 0, &p), Some(750), "steady");
        assert_eq!(b.scaled_soft_ms(0, 500, 10, &p), Some(1050));
        assert_eq!(b.scaled_soft_ms(0, 500, 400, &p), Some(1300), "capped");
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
        // Shorter than the overhead: half of it, not a single millisecond.
        let l = Limits {
            movetime_ms: Some(30),
            ..Limits::default()
        };
        assert_eq!(
            budget(&l, Color::White, &p).hard_ms,
            Some(30 * p.time_movetime_min_pct as u64 / 100)
        );
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

    #[test]
    fn missing_own_clock_gets_a_fixed_budget() {
        let p = SearchParams::default();
        let fallback = fixed(p.time_missing_clock_ms as u64);
        // White's clock only, black to move.
        let l = Limits {
            wtime_ms: Some(1000),
            movestogo: Some(1),
            ..Limits::default()
        };
        assert_eq!(budget(&l, Color::Black, &p), fallback);
        assert_ne!(budget(&l, Color::White, &p), fallback);
        // An increment or movestogo alone is still a clock.
        for l in [
            Limits {
                binc_ms: Some(100),
                ..Limits::default()
            },
            Limits {
                movestogo: Some(20),
                ..Limits::default()
            },
        ] {
            assert_eq!(budget(&l, Color::Black, &p), fallback, "{l:?}");
        }
    }

    #[test]
    fn huge_clock_values_saturate() {
        let p = SearchParams::default();
        let l = Limits {
            wtime_ms: Some(u64::MAX),
            winc_ms: Some(u64::MAX),
            movestogo: Some(1),
            ..Limits::default()
        };
        let b = budget(&l, Color::White, &p);
        let (soft, hard) = (b.soft_ms.unwrap(), b.hard_ms.unwrap());
        let avail = (u64::MAX - p.move_overhead_ms as u64) as u128;
        let cap = (avail * p.time_max_pct as u128 / 100) as u64;
        assert_eq!((soft, hard), (cap, cap));
        let l = Limits {
            movetime_ms: Some(u64::MAX),
            ..Limits::default()
        };
        assert_eq!(
            budget(&l, Color::White, &p).hard_ms,
            Some(u64::MAX - p.move_overhead_ms as u64)
        );
    }

    #[test]
    fn time_factors_are_parameters() {
        let d = SearchParams::default();
        let l = Limits {
            wtime_ms: Some(10_000),
            winc_ms: Some(1000),
            ..Limits::default()
        };
        let base = budget(&l, Color::White, &d);
        let p = SearchParams {
            time_inc_pct: 0,
            ..d.clone()
        };
        assert!(budget(&l, Color::White, &p).soft_ms < base.soft_ms);
        // A tiny clock with a big increment hits the cap of time_max_pct.
        let l = Limits {
            wtime_ms: Some(1050),
            winc_ms: Some(5000),
            ..Limits::default()
        };
        assert_eq!(
            budget(&l, Color::White, &d).hard_ms,
            Some(1000 * d.time_max_pct as u64 / 100)
        );
        let p = SearchParams {
            time_max_pct: 10,
            ..d.clone()
        };
        assert_eq!(budget(&l, Color::White, &p).hard_ms, Some(100));
        // movestogo: the per-move share bounds both limits.
        let l = Limits {
            wtime_ms: Some(10_050),
            movestogo: Some(10),
            ..Limits::default()
        };
        let b = budget(&l, Color::White, &d);
        assert_eq!(b.soft_ms, Some(500), "{b:?}");
        let p = SearchParams {
            time_mtg_soft_min_pct: 80,
            time_mtg_hard_pct: 100,
            ..d.clone()
        };
        let b = budget(&l, Color::White, &p);
        assert_eq!((b.soft_ms, b.hard_ms), (Some(800), Some(1000)), "{b:?}");
        let p = SearchParams {
            time_mtg_soft_max_pct: 20,
            ..d
        };
        assert_eq!(budget(&l, Color::White, &p).soft_ms, Some(200));
    }
}
