//! The Texel optimisation: mean squared error between the label and
//! `sigmoid(K * eval)` over a [`Positions`] set, its analytic gradient from
//! the sparse traces ([`karsinta_engine::eval::TraceView`]), the fit of K,
//! and full-batch Adam / AdaGrad steps within the parameter ranges.
//!
//! Determinism: positions are cut into fixed chunks of [`CHUNK`]; rayon
//! works on the chunks in any order, but their sums are added in chunk
//! order, so a run gives bit-identical results for any thread count.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::dataset::{view_of, Positions};

/// Positions per parallel work item.
pub const CHUNK: usize = 8192;

#[inline]
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean loss over `p` under flat weights `w` (see
/// [`karsinta_engine::eval::TraceView`] for the layout) and scale `k`.
pub fn loss(p: &Positions, w: &[f64], k: f64) -> f64 {
    if p.is_empty() {
        return 0.0;
    }
    let sums: Vec<f64> = p
        .meta
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut sum = 0.0;
            for m in chunk {
                let e = view_of(m, &p.coefs).score_white(w);
                let d = sigmoid(k * e) - f64::from(m.label);
                sum += d * d;
            }
            sum
        })
        .collect();
    sums.iter().sum::<f64>() / p.len() as f64
}

/// Mean loss and its gradient with respect to every scalar of `w`.
pub fn loss_and_gradient(p: &Positions, w: &[f64], k: f64) -> (f64, Vec<f64>) {
    let n = w.len();
    if p.is_empty() {
        return (0.0, vec![0.0; n]);
    }
    let parts: Vec<(f64, Vec<f64>)> = p
        .meta
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut sum = 0.0;
            let mut grad = vec![0.0; n];
            for m in chunk {
                let v = view_of(m, &p.coefs);
                let f = v.forward(w);
                let s = sigmoid(k * f.score);
                let d = s - f64::from(m.label);
                sum += d * d;
                // d(d^2)/dE = 2 d s (1 - s) k
                v.add_gradient(&f, 2.0 * d * s * (1.0 - s) * k, &mut grad);
            }
            (sum, grad)
        })
        .collect();
    let mut total = 0.0;
    let mut grad = vec![0.0; n];
    for (s, g) in parts {
        total += s;
        for (a, b) in grad.iter_mut().zip(g) {
            *a += b;
        }
    }
    let inv = 1.0 / p.len() as f64;
    grad.iter_mut().for_each(|g| *g *= inv);
    (total * inv, grad)
}

/// The K that minimises the loss of `p` under `w`: a log-spaced scan of
/// 1e-4 ..= 0.1, then golden-section search around the best point.
pub fn fit_k(p: &Positions, w: &[f64]) -> f64 {
    let grid: Vec<f64> = (0..=24)
        .map(|i| 1e-4 * 10f64.powf(3.0 * i as f64 / 24.0))
        .collect();
    let losses: Vec<f64> = grid.iter().map(|&k| loss(p, w, k)).collect();
    let best = (0..grid.len())
        .min_by(|&a, &b| losses[a].total_cmp(&losses[b]))
        .unwrap_or(0);
    let (mut lo, mut hi) = (
        grid[best.saturating_sub(1)],
        grid[(best + 1).min(grid.len() - 1)],
    );
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    let mut a = hi - phi * (hi - lo);
    let mut b = lo + phi * (hi - lo);
    let (mut fa, mut fb) = (loss(p, w, a), loss(p, w, b));
    for _ in 0..40 {
        if fa < fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - phi * (hi - lo);
            fa = loss(p, w, a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + phi * (hi - lo);
            fb = loss(p, w, b);
        }
    }
    (lo + hi) / 2.0
}

/// The update rule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    /// Adam with bias correction (beta1 0.9, beta2 0.999, eps 1e-8): the
    /// learning rate is roughly the step in centipawns.
    Adam,
    /// AdaGrad (Ethereal's choice): steps shrink with the summed squared
    /// gradient; the learning rate is the first step in centipawns.
    Adagrad,
}

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-8;

/// Everything an optimisation needs to continue exactly: the checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TunerState {
    /// Epochs done.
    pub epoch: usize,
    /// Sigmoid scale: an eval `e` (centipawns, White's view) predicts the score `sigmoid(k * e)`.
    pub k: f64,
    /// Flat scalars (middlegame, endgame per pair).
    pub weights: Vec<f64>,
    /// Adam's first moment (unused by AdaGrad).
    pub m: Vec<f64>,
    /// Adam's second moment, AdaGrad's sum of squared gradients.
    pub v: Vec<f64>,
}

/// Which scalars move and within which ranges.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// Per scalar: whether it is tuned (`false` keeps it at its start).
    pub tuned: Vec<bool>,
    /// Per scalar: the lowest value it may take.
    pub min: Vec<f64>,
    /// Per scalar: the highest value it may take.
    pub max: Vec<f64>,
}

impl TunerState {
    /// Epoch 0 at `weights`, with zeroed optimiser moments and scale `k`.
    pub fn new(weights: Vec<f64>, k: f64) -> TunerState {
        let n = weights.len();
        TunerState {
            epoch: 0,
            k,
            weights,
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }

    /// One optimiser step along `grad` (the mean-loss gradient); untuned
    /// scalars stay, tuned ones are clamped to their range.
    pub fn step(&mut self, grad: &[f64], opt: Optimizer, lr: f64, bounds: &Bounds) {
        self.epoch += 1;
        let t = self.epoch as i32;
        for (i, &g) in grad.iter().enumerate().take(self.weights.len()) {
            if !bounds.tuned[i] {
                continue;
            }
            let delta = match opt {
                Optimizer::Adam => {
                    self.m[i] = BETA1 * self.m[i] + (1.0 - BETA1) * g;
                    self.v[i] = BETA2 * self.v[i] + (1.0 - BETA2) * g * g;
                    let m_hat = self.m[i] / (1.0 - BETA1.powi(t));
                    let v_hat = self.v[i] / (1.0 - BETA2.powi(t));
                    lr * m_hat / (v_hat.sqrt() + EPS)
                }
                Optimizer::Adagrad => {
                    self.v[i] += g * g;
                    lr * g / (self.v[i].sqrt() + EPS)
                }
            };
            self.weights[i] = (self.weights[i] - delta).clamp(bounds.min[i], bounds.max[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use karsinta_engine::eval::weights::EvalWeights;
    use karsinta_engine::eval::{flat_f64, trace};

    fn small_set() -> Positions {
        let w = EvalWeights::default();
        let mut p = Positions::default();
        for (i, f) in [
            "r1b2rk1/pp3ppp/2n1p3/3p3q/3P2n1/2PBP3/PP3P2/R2Q1RK1 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "8/5k2/3b2p1/1p1P4/1P3P2/3B2K1/8/8 b - - 0 1",
            "4k3/8/8/3q4/8/8/8/3RK3 b - - 0 1",
        ]
        .iter()
        .enumerate()
        {
            p.push_trace(&trace(&f.parse().unwrap(), &w), [0.0, 0.5, 1.0, 0.0][i]);
        }
        p
    }

    #[test]
    fn loss_gradient_matches_finite_differences() {
        let p = small_set();
        let mut w = flat_f64(&EvalWeights::default());
        for (i, x) in w.iter_mut().enumerate() {
            *x += (i % 7) as f64 * 0.13;
        }
        let k = 0.006;
        let (l, g) = loss_and_gradient(&p, &w, k);
        assert!((l - loss(&p, &w, k)).abs() < 1e-15);
        let h = 1e-4;
        for j in (0..w.len()).step_by(3) {
            let mut a = w.clone();
            let mut b = w.clone();
            a[j] += h;
            b[j] -= h;
            let fd = (loss(&p, &a, k) - loss(&p, &b, k)) / (2.0 * h);
            assert!(
                (fd - g[j]).abs() < 1e-9 + 1e-5 * fd.abs(),
                "{j}: {fd} vs {}",
                g[j]
            );
        }
    }

    #[test]
    fn steps_respect_mask_and_range() {
        let mut s = TunerState::new(vec![0.0, 0.0, 9.5], 1.0);
        let b = Bounds {
            tuned: vec![true, false, true],
            min: vec![-10.0; 3],
            max: vec![10.0; 3],
        };
        for _ in 0..5 {
            s.step(&[1.0, 1.0, -1.0], Optimizer::Adam, 1.0, &b);
        }
        assert!(s.weights[0] < -4.0, "{:?}", s.weights);
        assert_eq!(s.weights[1], 0.0, "untuned");
        assert_eq!(s.weights[2], 10.0, "clamped");
        let mut a = TunerState::new(vec![0.0], 1.0);
        let one = Bounds {
            tuned: vec![true],
            min: vec![-100.0],
            max: vec![100.0],
        };
        a.step(&[0.5], Optimizer::Adagrad, 2.0, &one);
        assert!((a.weights[0] + 2.0).abs() < 1e-6, "{:?}", a.weights);
    }
}
