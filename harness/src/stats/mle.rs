//! Maximum-likelihood distributions under a hypothesis, the core of the
//! generalized SPRT: given the empirical distribution `p` on fixed scores,
//! find the distribution `q` on the same support that maximises
//! `sum p_i ln q_i` subject to the hypothesis (a fixed mean score, or a fixed
//! t-value `(mu - 1/2) / sigma`). Both reduce to the "secular equation"
//! `sum p_i v_i / (1 + x v_i) = 0`, after which `q_i = p_i / (1 + x v_i)`
//! (Van den Bergh, "support_MLE_multinomial" and "normalized_elo_practical").

use super::counts::Pdf;

/// Solves `f(x) = sum p_i v_i / (1 + x v_i) = 0` on the interval where every
/// `1 + x v_i > 0`, i.e. `(-1 / max v, -1 / min v)`. `f` decreases strictly
/// from +inf to -inf there, so the root is unique; it is found by Newton's
/// method safeguarded with bisection, to full double precision.
///
/// Returns `None` when all `v_i` with `p_i > 0` have the same sign (no root).
fn secular(v: &[f64], p: &[f64]) -> Option<f64> {
    let vmin = v.iter().copied().fold(f64::INFINITY, f64::min);
    let vmax = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(vmin < 0.0 && vmax > 0.0) {
        return None;
    }
    // Open bracket: f(lo) > 0 > f(hi) in the limit.
    let mut lo = -1.0 / vmax;
    let mut hi = -1.0 / vmin;
    let f_df = |x: f64| {
        let mut f = 0.0;
        let mut df = 0.0;
        for (&vi, &pi) in v.iter().zip(p) {
            let r = vi / (1.0 + x * vi);
            f += pi * r;
            df -= pi * r * r;
        }
        (f, df)
    };
    let mut x = 0.0; // always inside the interval: all denominators are 1.
    for _ in 0..200 {
        let (f, df) = f_df(x);
        if f == 0.0 {
            return Some(x);
        }
        if f > 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - f / df;
        let next = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - x).abs() <= 4.0 * f64::EPSILON * (1.0 + x.abs()) || next == lo || next == hi {
            return Some(next);
        }
        x = next;
    }
    Some(x)
}

/// Solves the secular equation for the pdf's probabilities and shifts `v`,
/// and returns the resulting `q_i = p_i / (1 + x v_i)`.
fn reweight(pdf: &Pdf, v: &[f64; 5]) -> Option<[f64; 5]> {
    let n = pdf.len;
    let x = secular(&v[..n], &pdf.p[..n])?;
    let mut q = [0.0; 5];
    for i in 0..n {
        q[i] = pdf.p[i] / (1.0 + x * v[i]);
    }
    Some(q)
}

/// The log-likelihood ratio per observation between two fitted
/// distributions: `sum p_i (ln q1_i - ln q0_i)`.
pub(crate) fn llr_per_unit(pdf: &Pdf, q0: &[f64; 5], q1: &[f64; 5]) -> f64 {
    (0..pdf.len)
        .map(|i| pdf.p[i] * (q1[i].ln() - q0[i].ln()))
        .sum()
}

/// MLE of a distribution with mean score `s` (0 < s < 1).
pub(crate) fn mle_mean(pdf: &Pdf, s: f64) -> Option<[f64; 5]> {
    let mut v = [0.0; 5];
    for (vi, ai) in v.iter_mut().zip(&pdf.a[..pdf.len]) {
        *vi = ai - s;
    }
    reweight(pdf, &v)
}

/// MLE of a distribution with t-value `(mu - 1/2) / sigma = t`. Fixed-point
/// iteration from the uniform distribution: linearise the constraint around
/// the current `q`, solve, repeat until `q` stops moving. fishtest stops at a
/// change below 1e-9 or after 10 rounds; we iterate to 1e-14 (at most 100
/// rounds; the hard cases we found converge within 50). Where fishtest's 10
/// rounds suffice the LLRs agree to ~1e-11; where they do not (wide bounds,
/// lopsided data) ours is the converged value and fishtest's is not.
pub(crate) fn mle_t_value(pdf: &Pdf, t: f64) -> Option<[f64; 5]> {
    let n = pdf.len;
    let mut q = [0.0; 5];
    for qi in q.iter_mut().take(n) {
        *qi = 1.0 / n as f64;
    }
    for _ in 0..100 {
        let (mu, var) = pdf.mean_var_with(&q);
        let sigma = var.sqrt();
        let mut v = [0.0; 5];
        for (vi, &ai) in v.iter_mut().zip(&pdf.a[..n]) {
            let z = (ai - mu) / sigma;
            *vi = ai - 0.5 - t * sigma * (1.0 + z * z) / 2.0;
        }
        let next = reweight(pdf, &v)?;
        let change = (0..n).map(|i| (next[i] - q[i]).abs()).fold(0.0, f64::max);
        q = next;
        if change < 1e-14 {
            break;
        }
    }
    Some(q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::counts::{Pentanomial, Trinomial};
    use crate::stats::tests::assert_close;

    #[test]
    fn secular_root_is_accurate() {
        let v = [-0.5, 0.1, 0.4];
        let p = [0.2, 0.5, 0.3];
        let x = secular(&v, &p).unwrap();
        let f: f64 = v.iter().zip(&p).map(|(v, p)| p * v / (1.0 + x * v)).sum();
        assert!(f.abs() < 1e-15, "f(x) = {f}");
        assert!(secular(&[0.1, 0.2], &[0.5, 0.5]).is_none());
    }

    #[test]
    fn mle_mean_hits_the_constraint() {
        let pdf = Pentanomial([3, 40, 100, 50, 7]).pdf();
        for s in [0.3, 0.5, 0.52, 0.9] {
            let q = mle_mean(&pdf, s).unwrap();
            let (mu, _) = pdf.mean_var_with(&q);
            assert_close(mu, s, 1e-12);
            assert_close(q.iter().sum::<f64>(), 1.0, 1e-12);
        }
    }

    #[test]
    fn mle_t_value_hits_the_constraint() {
        let pdf = Trinomial::new(120, 10, 2).pdf();
        for t in [-0.3, 0.0, 0.05, 0.4] {
            let q = mle_t_value(&pdf, t).unwrap();
            let (mu, var) = pdf.mean_var_with(&q);
            assert!(((mu - 0.5) / var.sqrt() - t).abs() < 1e-10);
        }
    }

    #[test]
    fn mle_of_the_data_itself_is_the_data() {
        // A hypothesis the data already satisfies leaves p unchanged.
        let pdf = Pentanomial([5, 20, 50, 20, 5]).pdf();
        let q = mle_mean(&pdf, 0.5).unwrap();
        for (qi, pi) in q.iter().zip(pdf.p) {
            assert_close(*qi, pi, 1e-12);
        }
    }
}
