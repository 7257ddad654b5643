//! Static evaluation: a tapered (middlegame, endgame) sum of the weights in
//! [`weights`], written once in `terms/` (one file per term family) and
//! generic over an [`EvalSink`] that decides where each term goes.
//! [`evaluate`] sums a score (no allocation, the bookkeeping compiles away;
//! [`evaluate_cached`] is the same sum with the pawn structure and the
//! material imbalance looked up in an [`EvalCache`], what the search
//! calls); [`trace`] records the coefficient of every weight for Texel
//! tuning (see [`Trace`]), which [`TraceView`] scores in floating point
//! with an analytic gradient.
//!
//! Terms (weights named in [`weights`]): material and its imbalance
//! (products of piece counts); piece-square tables;
//! mobility by safe squares per piece type; pawn structure (doubled, isolated,
//! backward, phalanx and supported by rank, passed by rank with free-path and
//! king-distance terms); bishop pair; rooks and queens on open and half-open
//! files, rook on the seventh; knight and bishop outposts; king shelter (pawn
//! shield and storm) and king danger (attackers by type, attacked zone
//! squares, weak squares, safe and unsafe checks, flank attacks, pinned
//! blockers, mobility; non-linear); threats (pawn and minor
//! attacks on pieces, rook on queen, hanging pieces); space; winnability;
//! tempo.
//!
//! Score shape: `linear terms + king-safety (non-linear)`, then the endgame
//! half is multiplied by a drawishness scale (out of 128, from the material
//! configuration), then tapered by the game phase
//! (`(mg * phase + eg * (24 - phase)) / 24`, phase 24 = all pieces on,
//! knight/bishop 1, rook 2, queen 4); see [`taper`]. Everything is computed
//! from White's view and negated for Black to move, so colour-flipped
//! positions score the same.
//!
//! Files: `sink` (the sink trait), `terms/` (the terms), `score` (the
//! summing sink), `trace` (the recording sink), `taper` (the non-linear
//! last steps), `gradient` (the tuner's floating-point view), `cache`
//! (pawn and imbalance caches), `masks` (bitboard masks), [`weights`] (the
//! weight table).

mod cache;
mod gradient;
mod masks;
mod score;
mod sink;
mod taper;
mod terms;
mod trace;
pub mod weights;

pub use cache::{pawn_hash, EvalCache};
pub use gradient::{
    flat_f64, king_danger_penalty_f, taper_f, winnable_f, FloatEval, TraceView, MAX_ROUNDING_CP,
};
/// Set-wise pawn attacks, for move ordering's threat maps too.
pub(crate) use masks::pawn_attacks;
pub use score::{evaluate, evaluate_cached, evaluate_white};
pub use sink::EvalSink;
pub use taper::{
    king_danger_penalty, taper, winnable, DANGER_CAP, EVAL_LIMIT, MAX_PHASE, SCALE_ONE,
};
pub use trace::{trace, Trace};

#[cfg(test)]
mod tests;
