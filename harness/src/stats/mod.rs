//! Match statistics: Elo estimates with confidence intervals, LOS, normalized
//! Elo, the generalized SPRT (GSPRT) that Stockfish's fishtest uses, and
//! fishtest's expected-games calculator.
//!
//! Owns the maths only; nothing here plays games or parses command lines.
//! Results come in as [`Trinomial`] (per game) or [`Pentanomial`] (per
//! colour-swapped game pair) counts. Relies on `statrs` for the normal
//! distribution.
//!
//! Agreement with fishtest (`stat_util.py`, `LLRcalc.py`, `sprt.js`), as
//! this module's tests check it against an independent transcription
//! (`harness/tests/stats_reference.py`):
//! - Elo, its interval, LOS, nElo, logistic-bound LLRs and the calculator
//!   agree to ~1e-11 relative on every reference case.
//! - Normalized-bound LLRs are the converged maximum-likelihood value.
//!   fishtest stops that fit after 10 rounds; for fishtest-style designs
//!   (bounds within +-20 nElo) on ordinary data those 10 rounds have
//!   converged and the two agree to ~1e-11, but with wide bounds (about 50
//!   nElo and beyond) on lopsided or tiny samples fishtest's capped value is
//!   off by up to ~1e-3 in sampled cases (more on extreme data, where ours is
//!   the value the method defines).
//! - Decisions: H1 at LLR >= upper, H0 at LLR <= lower, with no overshoot
//!   correction; fishtest uses strict comparisons shifted by its dynamic
//!   overshoot estimate, so near a bound it may stop a pair later.
//! - A pentanomial draw ratio counts each DD+WL pair as two draws (the counts
//!   cannot tell them apart): exact without WL pairs, an upper bound otherwise.

mod calculator;
mod counts;
mod elo;
mod mle;
mod sprt;

pub use calculator::{expected_games, expected_games_checked};
pub use counts::{Pentanomial, Trinomial};
pub use elo::{elo_to_score, fmt_opt, score_to_elo, two_decimals, Estimate, NELO_PER_T};
pub use sprt::{EloModel, SprtDecision, SprtParams, SprtResult};

use thiserror::Error;

/// Bad statistical input: SPRT parameters or calculator settings a caller
/// can correct.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StatsError {
    /// `elo0` must be strictly below `elo1` and both finite.
    #[error("elo0 ({elo0}) must be less than elo1 ({elo1})")]
    BoundsOrder { elo0: f64, elo1: f64 },
    /// A bound outside the range where the model's maths is defined.
    #[error(
        "{name} = {value} is outside the supported range [-{limit}, {limit}] for the {model} model"
    )]
    BoundOutOfRange {
        name: &'static str,
        value: f64,
        limit: f64,
        model: &'static str,
    },
    /// `alpha` or `beta` outside (0, 1), or `alpha + beta >= 1`.
    #[error("{name} = {value} must lie strictly between 0 and 1")]
    Probability { name: &'static str, value: f64 },
    /// `alpha + beta >= 1` makes the SPRT bounds meaningless.
    #[error("alpha + beta = {0} must be less than 1")]
    ErrorSum(f64),
    /// Draw ratio outside [0, 1).
    #[error("draw ratio {0} must lie in [0, 1)")]
    DrawRatio(f64),
    /// The draw ratio and RMS bias leave no per-game variance.
    #[error(
        "draw ratio {draw_ratio} and RMS bias {rms_bias} are not compatible (no variance left)"
    )]
    NoVariance { draw_ratio: f64, rms_bias: f64 },
    /// RMS bias must be a finite, non-negative Elo value.
    #[error("RMS bias {0} must be finite and non-negative")]
    RmsBias(f64),
    /// A true Elo that is not a finite number.
    #[error("Elo {0} must be a finite number")]
    NotFinite(f64),
}

#[cfg(test)]
mod tests;
