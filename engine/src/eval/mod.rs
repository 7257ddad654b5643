//! Static evaluation: a tapered (middlegame, endgame) sum of the weights in
//! [`weights`], written once in `terms.rs` and generic over an [`EvalSink`]
//! that decides where each term goes. [`evaluate`] sums a score (no
//! allocation, the bookkeeping compiles away; [`evaluate_cached`] is the
//! same sum with the pawn structure and the material imbalance looked up in
//! an [`EvalCache`], what the search calls); [`trace`] records the
//! coefficient of every weight for Texel tuning (see [`Trace`]), which
//! [`TraceView`] scores in floating point with an analytic gradient.
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
//! attacks on pieces, rook on queen, hanging pieces); tempo.
//!
//! Score shape: `linear terms + king-safety (non-linear)`, then the endgame
//! half is multiplied by a drawishness scale (out of 128, from the material
//! configuration), then tapered by the game phase
//! (`(mg * phase + eg * (24 - phase)) / 24`, phase 24 = all pieces on,
//! knight/bishop 1, rook 2, queen 4). Everything is computed from White's view
//! and negated for Black to move, so colour-flipped positions score the same.

mod cache;
mod gradient;
mod masks;
mod terms;
mod trace;
pub mod weights;

use cozy_chess::{Board, BoardBuilder, Color, Square};

pub use cache::{pawn_hash, EvalCache};
pub use gradient::{
    flat_f64, king_danger_penalty_f, taper_f, winnable_f, FloatEval, TraceView, MAX_ROUNDING_CP,
};
/// Set-wise pawn attacks, for move ordering's threat maps too.
pub(crate) use masks::pawn_attacks;
pub use trace::Trace;
use weights::{EvalWeights, S};

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

/// Receiver of evaluation terms. Every term of the evaluation is reported
/// through these calls, so one implementation can sum the score and another
/// record coefficients.
pub trait EvalSink {
    /// A linear term: weight `w` (at flat index `idx` of the weight table)
    /// entering with coefficient `coef`, counted White minus Black.
    fn add(&mut self, idx: usize, w: S, coef: i32);
    /// An inner linear part of the king danger of `king`'s side (its weight
    /// is summed by the caller before the non-linear step).
    fn add_danger(&mut self, king: Color, idx: usize, coef: i32);
    /// A non-linear contribution, from White's view.
    fn add_nonlinear(&mut self, v: S);
    /// A part of the winnability sum (not signed by colour), which
    /// [`winnable`] applies to the total.
    fn add_winnable(&mut self, idx: usize, w: S, coef: i32);
    /// The pawn-structure terms of `pawns` (White's, Black's): `terms`
    /// reports them to the sink and returns the passed pawns. They depend
    /// on the pawns alone, so a summing sink may answer from a cache.
    #[inline(always)]
    fn pawn_structure(
        &mut self,
        pawns: [u64; 2],
        terms: impl FnOnce(&mut Self) -> [u64; 2],
    ) -> [u64; 2]
    where
        Self: Sized,
    {
        let _ = pawns;
        terms(self)
    }
    /// The material-imbalance terms of `key`, both sides' piece counts
    /// packed: `terms` reports them to the sink. They depend on the counts
    /// alone, so a summing sink may answer from a cache.
    #[inline(always)]
    fn material(&mut self, key: u64, terms: impl FnOnce(&mut Self))
    where
        Self: Sized,
    {
        let _ = key;
        terms(self)
    }
}

/// The summing sink behind [`evaluate`]: indices are ignored.
struct ScoreSink<'c> {
    total: S,
    winnable: S,
    cache: Option<&'c mut EvalCache>,
}

impl EvalSink for ScoreSink<'_> {
    #[inline(always)]
    fn add(&mut self, _idx: usize, w: S, coef: i32) {
        self.total += w * coef;
    }
    #[inline(always)]
    fn add_danger(&mut self, _king: Color, _idx: usize, _coef: i32) {}
    #[inline(always)]
    fn add_nonlinear(&mut self, v: S) {
        self.total += v;
    }
    #[inline(always)]
    fn add_winnable(&mut self, _idx: usize, w: S, coef: i32) {
        self.winnable += w * coef;
    }
    #[inline(always)]
    fn pawn_structure(
        &mut self,
        pawns: [u64; 2],
        terms: impl FnOnce(&mut Self) -> [u64; 2],
    ) -> [u64; 2] {
        if let Some((score, passed)) = self.cache.as_ref().and_then(|c| c.get_pawns(pawns)) {
            self.total += score;
            return passed;
        }
        let (score, passed) = self.share(terms);
        if let Some(cache) = self.cache.as_mut() {
            cache.put_pawns(pawns, score, passed);
        }
        passed
    }
    #[inline(always)]
    fn material(&mut self, key: u64, terms: impl FnOnce(&mut Self)) {
        if let Some(score) = self.cache.as_ref().and_then(|c| c.get_material(key)) {
            self.total += score;
            return;
        }
        let (score, ()) = self.share(terms);
        if let Some(cache) = self.cache.as_mut() {
            cache.put_material(key, score);
        }
    }
}

impl ScoreSink<'_> {
    /// Run `terms` and return what they added to the total (integer sums,
    /// so the share is exact) beside their result: what a cache stores.
    #[inline(always)]
    fn share<T>(&mut self, terms: impl FnOnce(&mut Self) -> T) -> (S, T) {
        let before = self.total;
        let out = terms(self);
        (self.total - before, out)
    }
}

/// Static evaluation of `board` in centipawns from the side to move's view.
pub fn evaluate(board: &Board, w: &EvalWeights) -> i32 {
    from_side_to_move(board, evaluate_white_with(board, w, None))
}

/// [`evaluate`] answering the pawn structure and the imbalance from `cache`
/// (which must hold only entries made with `w`): the same score, faster.
pub fn evaluate_cached(board: &Board, w: &EvalWeights, cache: &mut EvalCache) -> i32 {
    from_side_to_move(board, evaluate_white_with(board, w, Some(cache)))
}

fn from_side_to_move(board: &Board, white: i32) -> i32 {
    if board.side_to_move() == Color::White {
        white
    } else {
        -white
    }
}

/// Static evaluation of `board` in centipawns from White's view.
pub fn evaluate_white(board: &Board, w: &EvalWeights) -> i32 {
    evaluate_white_with(board, w, None)
}

fn evaluate_white_with(board: &Board, w: &EvalWeights, cache: Option<&mut EvalCache>) -> i32 {
    crate::lowlevel::with_popcnt(
        #[inline(always)]
        || {
            let mut sink = ScoreSink {
                total: S(0, 0),
                winnable: S(0, 0),
                cache,
            };
            let shape = terms::evaluate_terms(board, w, &mut sink);
            taper(
                winnable(sink.total, sink.winnable),
                shape.phase,
                shape.eg_scale,
            )
        },
    )
}

/// The coefficients of every weight in `board`'s evaluation (see [`Trace`]).
pub fn trace(board: &Board, w: &EvalWeights) -> Trace {
    trace::trace(board, w)
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

/// Final step shared by [`evaluate`] and [`Trace::score`]: scale the endgame
/// half by the stronger side's scale factor, then taper; a scale of 0 (the
/// stronger side cannot win) makes the whole score 0. The stronger side is
/// the sign of the endgame half, ties broken by the middlegame half. The
/// result is clamped to `+-EVAL_LIMIT`.
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

/// The colour-flipped mirror of `board`: ranks flipped, colours swapped, the
/// other side to move, castling rights and en passant carried over. A correct
/// evaluation gives both the same score from the side to move's view.
pub fn colour_flipped(board: &Board) -> Board {
    let mut b = BoardBuilder::empty();
    for s in Square::ALL {
        b.board[s.flip_rank() as usize] = board
            .piece_on(s)
            .zip(board.color_on(s))
            .map(|(p, c)| (p, !c));
    }
    b.side_to_move = !board.side_to_move();
    for c in Color::ALL {
        b.castle_rights[(!c) as usize] = *board.castle_rights(c);
    }
    b.en_passant = board.en_passant().map(|f| {
        // The en passant target square is behind the pawn that just moved.
        let rank = if board.side_to_move() == Color::White {
            cozy_chess::Rank::Third
        } else {
            cozy_chess::Rank::Sixth
        };
        Square::new(f, rank)
    });
    b.halfmove_clock = board.halfmove_clock();
    b.fullmove_number = board.fullmove_number();
    b.build().expect("the mirror of a valid position is valid")
}

#[cfg(test)]
mod tests;
