//! Match statistics: Elo estimates with confidence intervals, LOS, normalized
//! Elo, the generalized SPRT (GSPRT) that Stockfish's fishtest uses,
//! fishtest's expected-games calculator, its median-unbiased Elo of a test
//! stopped by the SPRT and its chi-squared test of a fleet's workers.
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
mod error;
mod mle;
mod residuals;
mod sprt;
mod unbiased;

pub use calculator::{expected_games, expected_games_checked};
pub use counts::{Counting, Pentanomial, Trinomial};
pub use elo::{elo_to_score, fmt_opt, score_to_elo, two_decimals, Estimate, NELO_PER_T};
pub use error::StatsError;
pub use residuals::{crash_or_time, worker_chi2, WorkerChi2, PURGE_P, PURGE_RESIDUAL};
pub use sprt::{
    bayeselo_to_score, drawelo_of_draw_ratio, EloModel, SprtDecision, SprtParams, SprtResult,
};
pub use unbiased::UnbiasedElo;

#[cfg(test)]
mod tests;
