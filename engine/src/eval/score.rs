//! The summing sink and the evaluation the search calls: [`evaluate`]
//! adds every term into one tapered score (no allocation, the bookkeeping
//! compiles away); [`evaluate_cached`] is the same sum with the pawn
//! structure and the material imbalance looked up in an [`EvalCache`].

use cozy_chess::{Board, Color};

use super::cache::EvalCache;
use super::sink::EvalSink;
use super::taper::{taper, winnable};
use super::terms::evaluate_terms;
use super::weights::{EvalWeights, S};

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
            let shape = evaluate_terms(board, w, &mut sink);
            taper(
                winnable(sink.total, sink.winnable),
                shape.phase,
                shape.eg_scale,
            )
        },
    )
}
