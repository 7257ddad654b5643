//! The evaluation's non-linear last steps, shared by the integer score
//! ([`crate::eval::evaluate`]), the trace's reconstruction
//! ([`crate::eval::Trace::score`]) and, without truncation, the tuner's
//! gradient: the king-danger penalty, the winnability adjustment, the
//! endgame scale and the taper by game phase, with their constants.

use super::weights::S;

/// Phase of a position with all pieces on the board.
pub const MAX_PHASE: i32 = 24;
/// Denominator of the endgame scale factor (128 = no scaling).
pub const SCALE_ONE: i32 = 128;
/// Bound on the static evaluation, far below the search's mate scores, so
/// that no weight set (each scalar is within +-5000) can fake a mate.
pub const EVAL_LIMIT: i32 = 20_000;
/// Cap on the middlegame king danger before squaring (keeps the penalty in
/// range for extreme weights; default weights stay far below it).
pub const DANGER_CAP: i32 = 4_000;

/// What the final tapering step needs besides the summed terms.
pub(crate) struct Shape {
    /// Game phase, 0 (pawn endgame) ..= [`MAX_PHASE`].
    pub phase: i32,
    /// Endgame scale (out of [`SCALE_ONE`]) if White, resp. Black, is ahead.
    pub eg_scale: [i32; 2],
}

/// King-safety penalty (from the king owner's view, so <= 0) for a summed
/// danger `d`: quadratic in the middlegame, linear in the endgame, and zero
/// while the danger is negative.
#[inline]
pub fn king_danger_penalty(d: S) -> S {
    let mg = d.0.clamp(0, DANGER_CAP);
    let eg = d.1.clamp(0, 20 * EVAL_LIMIT);
    S(-(mg * mg) / 720, -eg / 20)
}

/// Stockfish's winnability adjustment of the total `s` by the sum `c` of
/// the winnability terms: the endgame half moves by `c` away from zero (a
/// negative `c`, a drawish position, toward it, but never past it); the
/// middlegame half only toward zero, by the negative part of `c`. A side
/// that is ahead stays ahead or level, so `c` cannot flip the verdict.
#[inline]
pub fn winnable(s: S, c: S) -> S {
    let mg = s.0.signum() * c.0.clamp(-s.0.abs(), 0);
    let eg = s.1.signum() * c.1.max(-s.1.abs());
    S(s.0 + mg, s.1 + eg)
}

/// Final step shared by [`crate::eval::evaluate`] and
/// [`crate::eval::Trace::score`]: scale the endgame half by the stronger
/// side's scale factor, then taper; a scale of 0 (the stronger side cannot
/// win) makes the whole score 0. The stronger side is the sign of the
/// endgame half, ties broken by the middlegame half. The result is clamped
/// to `+-EVAL_LIMIT`.
/// Divisions truncate toward zero, so the result is odd-symmetric in `s`
/// (colour-flip safe).
#[inline]
pub fn taper(s: S, phase: i32, eg_scale: [i32; 2]) -> i32 {
    let white_ahead = s.1 > 0 || (s.1 == 0 && s.0 > 0);
    let scale = if white_ahead {
        eg_scale[0]
    } else {
        eg_scale[1]
    };
    if scale == 0 {
        return 0;
    }
    let eg = s.1 * scale / SCALE_ONE;
    ((s.0 * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}
