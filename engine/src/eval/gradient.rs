//! Floating-point scoring of a traced evaluation and its analytic gradient
//! with respect to every weight, for Texel tuning. The integer path
//! ([`super::Trace::score`]) truncates at each division; this path does not,
//! so the two agree within a few centipawns (see [`MAX_ROUNDING_CP`]).
//!
//! The score is not linear in the weights: the king danger sum `d` enters
//! through [`super::king_danger_penalty`] (quadratic middlegame, linear
//! endgame), the total is moved toward or away from zero by the
//! winnability sum ([`super::winnable`]), and the endgame half is scaled by
//! the material's drawishness before the phase taper. The gradient follows
//! the chain rule through all three, as Ethereal's tuner does for its safety
//! terms.
//!
//! Weights are a flat `f64` slice in scalar order: `w[2 * i]` is the
//! middlegame and `w[2 * i + 1]` the endgame value of pair `i`
//! ([`super::weights::EvalWeights::to_flat`] order), the same order as the
//! scalar parameter specs.

use super::taper::{DANGER_CAP, EVAL_LIMIT, MAX_PHASE, SCALE_ONE};
use super::trace::Trace;

/// Largest difference between [`TraceView::score_white`] and the integer
/// score of the same trace: the integer path truncates the two danger
/// penalties (< 1 each per half), the endgame scale (< 1) and the taper
/// (< 1), and a truncated endgame half can pick the other side's scale only
/// when that half is below 2 in magnitude.
pub const MAX_ROUNDING_CP: f64 = 4.0;

/// One position's coefficients as borrowed slices: what a tuner keeps in a
/// flat array per position, and what a [`Trace`] holds in its vectors.
#[derive(Clone, Copy, Debug)]
pub struct TraceView<'a> {
    /// Linear terms: (pair index, White count minus Black count).
    pub linear: &'a [(u16, i16)],
    /// Inner danger sums of the White, resp. Black, king.
    pub danger: [&'a [(u16, i16)]; 2],
    /// Parts of the winnability sum.
    pub winnable: &'a [(u16, i16)],
    /// Game phase, as in [`Trace::phase`].
    pub phase: i32,
    /// Endgame scales, as in [`Trace::eg_scale`].
    pub eg_scale: [i32; 2],
}

/// The forward pass: the score and the partial derivatives the backward pass
/// ([`TraceView::add_gradient`]) needs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FloatEval {
    /// Score from White's view, centipawns.
    pub score: f64,
    /// d score / d (middlegame, endgame) sum of all terms.
    pub d_sum: [f64; 2],
    /// d score / d (middlegame, endgame) danger sum, per king (White, Black).
    pub d_danger: [[f64; 2]; 2],
    /// d score / d (middlegame, endgame) winnability sum.
    pub d_winnable: [f64; 2],
}

impl Trace {
    /// The borrowed form of this trace.
    pub fn view(&self) -> TraceView<'_> {
        TraceView {
            linear: &self.coefs,
            danger: [&self.danger[0], &self.danger[1]],
            winnable: &self.winnable,
            phase: self.phase,
            eg_scale: self.eg_scale,
        }
    }
}

// Weights and gradients are viewed as (mg, eg) pairs: one bounds check per
// coefficient instead of two, which the tuner's inner loop feels.
#[inline(always)]
fn dot(list: &[(u16, i16)], w: &[f64]) -> (f64, f64) {
    let (pairs, _) = w.as_chunks::<2>();
    let (mut mg, mut eg) = (0.0, 0.0);
    for &(i, c) in list {
        let [wm, we] = pairs[i as usize];
        let c = f64::from(c);
        mg += wm * c;
        eg += we * c;
    }
    (mg, eg)
}

#[inline(always)]
fn scatter(list: &[(u16, i16)], g: (f64, f64), grad: &mut [f64]) {
    let (pairs, _) = grad.as_chunks_mut::<2>();
    for &(i, c) in list {
        let p = &mut pairs[i as usize];
        let c = f64::from(c);
        p[0] += g.0 * c;
        p[1] += g.1 * c;
    }
}

/// The king danger penalty of [`super::king_danger_penalty`] without
/// truncation, from the king owner's view, and its derivative.
#[inline]
pub fn king_danger_penalty_f(d: (f64, f64)) -> ((f64, f64), (f64, f64)) {
    let cap = f64::from(DANGER_CAP);
    let eg_cap = 20.0 * f64::from(EVAL_LIMIT);
    let mg = d.0.clamp(0.0, cap);
    let eg = d.1.clamp(0.0, eg_cap);
    let dmg = if d.0 > 0.0 && d.0 < cap {
        -2.0 * d.0 / 720.0
    } else {
        0.0
    };
    let deg = if d.1 > 0.0 && d.1 < eg_cap {
        -1.0 / 20.0
    } else {
        0.0
    };
    ((-(mg * mg) / 720.0, -eg / 20.0), (dmg, deg))
}

/// [`super::winnable`] on one half: the adjusted value and its derivatives
/// with respect to the half and to the winnability sum. `mg` selects the
/// middlegame rule (only toward zero).
#[inline]
pub fn winnable_f(v: f64, c: f64, mg: bool) -> (f64, f64, f64) {
    let sign = if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        return (v, 1.0, 0.0);
    };
    if mg && c >= 0.0 {
        (v, 1.0, 0.0)
    } else if c > -v.abs() {
        (v + sign * c, 1.0, sign)
    } else {
        (0.0, 0.0, 0.0)
    }
}

/// [`super::taper`] without truncation: the score and its derivatives with
/// respect to the middlegame and endgame sums.
#[inline]
pub fn taper_f(s: (f64, f64), phase: i32, eg_scale: [i32; 2]) -> (f64, f64, f64) {
    let white_ahead = s.1 > 0.0 || (s.1 == 0.0 && s.0 > 0.0);
    let scale = if white_ahead {
        eg_scale[0]
    } else {
        eg_scale[1]
    };
    if scale == 0 {
        return (0.0, 0.0, 0.0);
    }
    let mg_share = f64::from(phase) / f64::from(MAX_PHASE);
    let eg_share = f64::from(MAX_PHASE - phase) / f64::from(MAX_PHASE) * f64::from(scale)
        / f64::from(SCALE_ONE);
    let e = s.0 * mg_share + s.1 * eg_share;
    let limit = f64::from(EVAL_LIMIT);
    if e.abs() > limit {
        (e.clamp(-limit, limit), 0.0, 0.0)
    } else {
        (e, mg_share, eg_share)
    }
}

impl TraceView<'_> {
    /// Score from White's view under `w` (flat scalars, see the module doc).
    #[inline]
    pub fn score_white(&self, w: &[f64]) -> f64 {
        self.forward(w).score
    }

    /// The forward pass: score and partial derivatives under `w`.
    #[inline]
    pub fn forward(&self, w: &[f64]) -> FloatEval {
        let (mut mg, mut eg) = dot(self.linear, w);
        let mut d_pen = [[0.0; 2]; 2];
        for (k, list) in self.danger.iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            let (p, dp) = king_danger_penalty_f(dot(list, w));
            // The penalty is the king owner's; Black's counts for White.
            let sign = if k == 0 { 1.0 } else { -1.0 };
            mg += sign * p.0;
            eg += sign * p.1;
            d_pen[k] = [sign * dp.0, sign * dp.1];
        }
        let c = dot(self.winnable, w);
        let (mg, mg_ds, mg_dc) = winnable_f(mg, c.0, true);
        let (eg, eg_ds, eg_dc) = winnable_f(eg, c.1, false);
        let (score, d_mg, d_eg) = taper_f((mg, eg), self.phase, self.eg_scale);
        let (d_mg, d_eg, d_winnable) = (d_mg * mg_ds, d_eg * eg_ds, [d_mg * mg_dc, d_eg * eg_dc]);
        FloatEval {
            score,
            d_sum: [d_mg, d_eg],
            d_winnable,
            d_danger: [
                [d_mg * d_pen[0][0], d_eg * d_pen[0][1]],
                [d_mg * d_pen[1][0], d_eg * d_pen[1][1]],
            ],
        }
    }

    /// The backward pass: add `factor * d score / d w` to `grad` (same layout
    /// as `w`), given the forward pass `f` of this view.
    #[inline]
    pub fn add_gradient(&self, f: &FloatEval, factor: f64, grad: &mut [f64]) {
        scatter(
            self.linear,
            (factor * f.d_sum[0], factor * f.d_sum[1]),
            grad,
        );
        for (k, list) in self.danger.iter().enumerate() {
            let g = (factor * f.d_danger[k][0], factor * f.d_danger[k][1]);
            if g != (0.0, 0.0) {
                scatter(list, g, grad);
            }
        }
        let g = (factor * f.d_winnable[0], factor * f.d_winnable[1]);
        if g != (0.0, 0.0) {
            scatter(self.winnable, g, grad);
        }
    }
}

/// Flat `f64` scalars of integer weights (the layout of this module).
pub fn flat_f64(w: &super::weights::EvalWeights) -> Vec<f64> {
    w.to_flat()
        .iter()
        .flat_map(|p| [f64::from(p.0), f64::from(p.1)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::tests::FENS;
    use crate::eval::weights::{EvalWeights, IDX, NUM_WEIGHTS};
    use crate::eval::{evaluate_white, trace};
    use cozy_chess::Board;

    /// The test FENs plus attacked-king positions, where the non-linear
    /// danger term is live.
    fn boards() -> Vec<Board> {
        let extra = [
            "r1b2rk1/pp3ppp/2n1p3/3p3q/3P2n1/2PBP3/PP3P2/R2Q1RK1 w - - 0 1",
            "r4rk1/ppp2ppp/8/3q4/3n4/5N1P/PPb2PP1/R1BQ1RK1 w - - 0 1",
            "2kr3r/pp3ppp/2n5/4q3/2B5/2N1b3/PPPQ1PPP/2KR3R w - - 0 1",
        ];
        FENS.iter()
            .chain(extra.iter())
            .map(|f| f.parse().unwrap())
            .collect()
    }

    #[test]
    fn float_score_matches_the_integer_score() {
        let w = EvalWeights::default();
        let flat = flat_f64(&w);
        for b in boards() {
            let t = trace(&b, &w);
            let f = t.view().score_white(&flat);
            let i = evaluate_white(&b, &w);
            assert!(
                (f - f64::from(i)).abs() <= MAX_ROUNDING_CP,
                "{b}: float {f} vs integer {i}"
            );
        }
    }

    #[test]
    fn danger_positions_are_in_the_set() {
        let w = EvalWeights::default();
        let live = boards()
            .iter()
            .filter(|b| {
                let t = trace(b, &w);
                let f = t.view().forward(&flat_f64(&w));
                f.d_danger[0][0] != 0.0 || f.d_danger[1][0] != 0.0
            })
            .count();
        assert!(live >= 3, "only {live} positions exercise king danger");
    }

    #[test]
    fn gradient_matches_finite_differences() {
        // Perturbed weights so that no term sits on a kink.
        let base = EvalWeights::default();
        let mut flat = flat_f64(&base);
        for (i, x) in flat.iter_mut().enumerate() {
            *x += ((i * 37 % 11) as f64 - 5.0) * 0.31;
        }
        let h = 1e-3;
        for b in boards() {
            let t = trace(&b, &base);
            let v = t.view();
            let f = v.forward(&flat);
            let mut grad = vec![0.0; flat.len()];
            v.add_gradient(&f, 1.0, &mut grad);
            for j in 0..flat.len() {
                let mut plus = flat.clone();
                let mut minus = flat.clone();
                plus[j] += h;
                minus[j] -= h;
                let fd = (v.score_white(&plus) - v.score_white(&minus)) / (2.0 * h);
                assert!(
                    (fd - grad[j]).abs() <= 1e-6 * (1.0 + fd.abs()),
                    "{b}: scalar {j} ({}): analytic {} vs numeric {fd}",
                    EvalWeights::specs()[j].name,
                    grad[j]
                );
            }
        }
    }

    #[test]
    fn gradient_of_a_linear_term_is_its_tapered_coefficient() {
        // Bare kings and a pawn each: no danger, no scaling, phase 0.
        let b: Board = "4k3/4p3/8/8/8/8/3PP3/4K3 w - - 0 1".parse().unwrap();
        let w = EvalWeights::default();
        let v = trace(&b, &w);
        let flat = flat_f64(&w);
        let f = v.view().forward(&flat);
        let mut grad = vec![0.0; 2 * NUM_WEIGHTS];
        v.view().add_gradient(&f, 1.0, &mut grad);
        assert_eq!(
            grad[2 * IDX.material_pawn],
            0.0,
            "middlegame share at phase 0"
        );
        assert_eq!(grad[2 * IDX.material_pawn + 1], 1.0, "one pawn up");
        assert_eq!(grad[2 * IDX.tempo + 1], 1.0, "White to move");
    }

    #[test]
    fn clamped_terms_have_no_gradient() {
        assert_eq!(king_danger_penalty_f((-5.0, -5.0)).1, (0.0, 0.0));
        assert_eq!(king_danger_penalty_f((5000.0, 10.0)).1 .0, 0.0);
        assert_eq!(taper_f((1e6, 1e6), 12, [128, 128]).1, 0.0);
        assert_eq!(taper_f((10.0, 10.0), 12, [0, 128]), (0.0, 0.0, 0.0));
    }
}
