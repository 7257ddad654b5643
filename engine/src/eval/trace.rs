//! The recording sink: which weights entered an evaluation and with what
//! coefficient, the input of Texel tuning. A [`Trace`] reproduces the score
//! for any weight set, so a tuner can re-score positions without the board.

use cozy_chess::{Board, Color};

use super::sink::EvalSink;
use super::taper::{king_danger_penalty, taper, winnable};
use super::terms::evaluate_terms;
use super::weights::{EvalWeights, NUM_WEIGHTS, S};

/// The evaluation of one position broken down by weight.
///
/// Score reconstruction, from White's view, with `w[i]` the pair at flat
/// index `i`: `s = sum(coef * w[idx])` over [`Self::coefs`]
/// `+ king_danger_penalty(sum(coef * w[idx]) over danger[0])` (the White
/// king's danger; the penalty is <= 0)
/// `- king_danger_penalty(sum(coef * w[idx]) over danger[1])`, then
/// `taper(winnable(s, sum(coef * w[idx]) over winnable), phase, eg_scale)`,
/// negated when Black is to move.
/// [`Self::score`] does exactly this and equals [`super::evaluate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Game phase, 0 (pawn endgame) ..= 24 (all pieces on).
    pub phase: i32,
    /// Endgame scale out of 128 when White, resp. Black, is ahead (drawish
    /// material such as opposite bishops or a lone minor); depends only on
    /// the material, applied non-linearly by [`taper`].
    pub eg_scale: [i32; 2],
    /// Side to move (the sign of [`Self::score`]).
    pub white_to_move: bool,
    /// Linear terms: (flat weight index, White count minus Black count),
    /// sorted by index, zero coefficients left out.
    pub coefs: Vec<(u16, i16)>,
    /// Inner linear parts of the king danger of the White, resp. Black, king
    /// (coefficients count the attacker's pieces, not signed by colour);
    /// empty when the attack is too weak to count.
    pub danger: [Vec<(u16, i16)>; 2],
    /// Parts of the winnability sum (see [`winnable`]).
    pub winnable: Vec<(u16, i16)>,
    /// The non-linear king-safety total (White's view) at the traced weights,
    /// for tuners that keep it fixed.
    pub nonlinear: S,
}

#[derive(Default)]
struct TraceSink {
    coefs: Vec<i32>,
    danger: [Vec<i32>; 2],
    winnable: Vec<i32>,
    nonlinear: S,
}

impl EvalSink for TraceSink {
    fn add(&mut self, idx: usize, _w: S, coef: i32) {
        self.coefs[idx] += coef;
    }
    fn add_danger(&mut self, king: Color, idx: usize, coef: i32) {
        self.danger[king as usize][idx] += coef;
    }
    fn add_nonlinear(&mut self, v: S) {
        self.nonlinear += v;
    }
    fn add_winnable(&mut self, idx: usize, _w: S, coef: i32) {
        self.winnable[idx] += coef;
    }
}

fn sum(list: &[(u16, i16)], pair: impl Fn(usize) -> S) -> S {
    let mut s = S(0, 0);
    for &(i, c) in list {
        s += pair(i as usize) * c as i32;
    }
    s
}

fn sparse(dense: &[i32]) -> Vec<(u16, i16)> {
    dense
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c != 0)
        .map(|(i, &c)| (i as u16, c as i16))
        .collect()
}

/// The coefficients of every weight in `board`'s evaluation (see [`Trace`]).
pub fn trace(board: &Board, w: &EvalWeights) -> Trace {
    let mut sink = TraceSink {
        coefs: vec![0; NUM_WEIGHTS],
        danger: [vec![0; NUM_WEIGHTS], vec![0; NUM_WEIGHTS]],
        winnable: vec![0; NUM_WEIGHTS],
        nonlinear: S(0, 0),
    };
    let shape = evaluate_terms(board, w, &mut sink);
    Trace {
        phase: shape.phase,
        eg_scale: shape.eg_scale,
        white_to_move: board.side_to_move() == Color::White,
        coefs: sparse(&sink.coefs),
        danger: [sparse(&sink.danger[0]), sparse(&sink.danger[1])],
        winnable: sparse(&sink.winnable),
        nonlinear: sink.nonlinear,
    }
}

impl Trace {
    /// Sum of the linear terms under `w` (White's view, before tapering).
    pub fn linear(&self, w: &EvalWeights) -> S {
        self.linear_with(|i| w.pair(i))
    }

    /// The non-linear king-safety total under `w` (White's view).
    pub fn king_safety(&self, w: &EvalWeights) -> S {
        self.king_safety_with(|i| w.pair(i))
    }

    /// Score under `w` from White's view; equals
    /// [`super::evaluate_white`] for the traced position.
    pub fn score_white(&self, w: &EvalWeights) -> i32 {
        self.score_white_flat(&w.to_flat())
    }

    /// Score under `w` from the side to move's view; equals
    /// [`super::evaluate`] for the traced position.
    pub fn score(&self, w: &EvalWeights) -> i32 {
        self.score_flat(&w.to_flat())
    }

    /// Like [`Self::score`] with the weights in flat-index order
    /// ([`EvalWeights::to_flat`]), the fast path for tuners.
    pub fn score_flat(&self, flat: &[S]) -> i32 {
        let s = self.score_white_flat(flat);
        if self.white_to_move {
            s
        } else {
            -s
        }
    }

    /// Like [`Self::score_white`] with the weights in flat-index order.
    pub fn score_white_flat(&self, flat: &[S]) -> i32 {
        let s = self.linear_with(|i| flat[i]) + self.king_safety_with(|i| flat[i]);
        let c = sum(&self.winnable, |i| flat[i]);
        taper(winnable(s, c), self.phase, self.eg_scale)
    }

    fn linear_with(&self, pair: impl Fn(usize) -> S) -> S {
        sum(&self.coefs, pair)
    }

    fn king_safety_with(&self, pair: impl Fn(usize) -> S) -> S {
        let mut total = S(0, 0);
        for (k, list) in self.danger.iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            let p = king_danger_penalty(sum(list, &pair));
            total += if k == 0 { p } else { -p };
        }
        total
    }
}
