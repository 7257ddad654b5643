//! fishtest's median-unbiased Elo estimate for a test stopped by its SPRT
//! (`server/fishtest/stats/sprt.py`, `brownian.py`).
//!
//! A test that stops when its LLR crosses a bound overstates the Elo it
//! measured: tests that got lucky early stop early. Treating the LLR as a
//! Brownian motion with drift, the estimate is the Elo at which a test would
//! end with a worse outcome than the observed one (a faster fail, a slower
//! pass) half of the time; the interval's ends are the Elo values with
//! probability `p/2` and `1 - p/2`. Like fishtest, the LLR here is the
//! Brownian approximation `N * (s - (s0 + s1)/2) (s1 - s0) / var` (its
//! `LLR_drift_variance_alt2`), clamped to the bound it crossed; the result is
//! in logistic Elo whatever the design's model. Only meaningful for small
//! Elo differences, as fishtest warns.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

use super::counts::{Pdf, Pentanomial, Trinomial};
use super::elo::{elo_to_score, NELO_PER_T};
use super::sprt::{EloModel, SprtParams};

/// The median-unbiased estimate and its interval, logistic Elo.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct UnbiasedElo {
    /// Median-unbiased Elo.
    pub elo: f64,
    /// Lower end of the interval at the requested confidence.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
    /// Probability that the true Elo is positive, by the same model.
    pub los: f64,
    /// The LLR overshot its bound by more than 3%, so the estimate is rough.
    pub clamped: bool,
}

impl UnbiasedElo {
    /// The result block's line: `MUE   | 5.99 [0.33, 11.47] (95%) ...`.
    pub fn line(&self) -> String {
        format!(
            "MUE   | {:.2} [{:.2}, {:.2}] (95%) median-unbiased for the SPRT's stop{}",
            self.elo,
            self.low,
            self.high,
            if self.clamped {
                ", rough: the LLR overshot"
            } else {
                ""
            }
        )
    }
}

/// Where the observed test ended, on the Brownian model of its LLR.
struct Stopped {
    lower: f64,
    upper: f64,
    /// Observations (games or pairs), rescaled to where a clamped LLR met
    /// its bound.
    t: f64,
    /// The LLR, clamped to the bounds.
    llr: f64,
    s0: f64,
    s1: f64,
    /// Variance of one observation's score.
    var: f64,
    clamped: bool,
}

impl SprtParams {
    /// Median-unbiased Elo of pentanomial counts; `None` without pairs.
    /// `confidence` is the interval's level (0.95 for fishtest's).
    pub fn unbiased_penta(&self, p: &Pentanomial, confidence: f64) -> Option<UnbiasedElo> {
        if p.checked_pairs()? == 0 {
            return None;
        }
        self.unbiased(&Pdf::from_counts(&p.0), 2.0, confidence)
    }

    /// Median-unbiased Elo of trinomial counts; `None` without games.
    pub fn unbiased_wdl(&self, t: &Trinomial, confidence: f64) -> Option<UnbiasedElo> {
        if t.games() == 0 {
            return None;
        }
        self.unbiased(
            &Pdf::from_counts(&[t.losses, t.draws, t.wins]),
            1.0,
            confidence,
        )
    }

    fn unbiased(&self, pdf: &Pdf, games_per_unit: f64, confidence: f64) -> Option<UnbiasedElo> {
        // fishtest's estimator has no BayesElo form (its scores depend on
        // the draw Elo, which the data estimates).
        if self.model == EloModel::Bayesian
            || self.validate().is_err()
            || !(confidence > 0.0 && confidence < 1.0)
        {
            return None;
        }
        let stopped = self.stopped(pdf, games_per_unit)?;
        let p = 1.0 - confidence;
        Some(UnbiasedElo {
            elo: stopped.lower_cb(self, 0.5),
            low: stopped.lower_cb(self, p / 2.0),
            high: stopped.lower_cb(self, 1.0 - p / 2.0),
            los: stopped.outcome_prob(0.0),
            clamped: stopped.clamped,
        })
    }

    fn stopped(&self, pdf: &Pdf, games_per_unit: f64) -> Option<Stopped> {
        let (mean, var) = pdf.mean_var();
        if var.is_nan() || var <= 0.0 {
            return None;
        }
        let score = |elo: f64| match self.model {
            EloModel::Logistic => elo_to_score(elo),
            // sigma per game: a pair's variance is half a game's.
            EloModel::Normalized => elo / NELO_PER_T * (games_per_unit * var).sqrt() + 0.5,
            EloModel::Bayesian => f64::NAN,
        };
        let (s0, s1) = (score(self.elo0), score(self.elo1));
        let (lower, upper) = self.bounds();
        let slope = (mean - (s0 + s1) / 2.0) * (s1 - s0) / var;
        let mut llr = pdf.n * slope;
        let mut t = pdf.n;
        let clamped = llr > 1.03 * upper || llr < 1.03 * lower;
        if llr < lower {
            t = lower / slope;
            llr = lower;
        } else if llr > upper {
            t = upper / slope;
            llr = upper;
        }
        Some(Stopped {
            lower,
            upper,
            t,
            llr,
            s0,
            s1,
            var,
            clamped,
        })
    }
}

impl Stopped {
    /// Probability that a test at true logistic `elo` ends worse than the
    /// observed one.
    fn outcome_prob(&self, elo: f64) -> f64 {
        let s = elo_to_score(elo);
        let mu = (s - (self.s0 + self.s1) / 2.0) * (self.s1 - self.s0) / self.var;
        let sigma2 = (self.s1 - self.s0).powi(2) / self.var;
        let b = Brownian {
            a: self.lower,
            b: self.upper,
            mu,
            sigma2,
        };
        b.outcome_cdf(self.t, self.llr)
    }

    /// The largest Elo whose probability of a worse outcome is below `p`:
    /// the root of `outcome_prob(elo) = 1 - p`, searched in a window around
    /// the bounds that widens until it brackets the root (fishtest's rule).
    fn lower_cb(&self, sprt: &SprtParams, p: f64) -> f64 {
        let avg = (sprt.elo0 + sprt.elo1) / 2.0;
        let delta = sprt.elo1 - sprt.elo0;
        let f = |elo: f64| self.outcome_prob(elo) - (1.0 - p);
        let mut width = 30.0;
        loop {
            let lo = (avg - width * delta).max(-1000.0);
            let hi = (avg + width * delta).min(1000.0);
            let (flo, fhi) = (f(lo), f(hi));
            if flo.signum() != fhi.signum() || flo == 0.0 || fhi == 0.0 {
                return bisect(f, lo, hi, flo);
            }
            if lo > -1000.0 || hi < 1000.0 {
                width *= 2.0;
                continue;
            }
            return if flo > 0.0 { hi } else { lo };
        }
    }
}

/// Bisection to the precision of f64 (brentq's default tolerance is about
/// 2e-12 absolute; bisection gets there in at most ~60 halvings).
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64, mut flo: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if hi - lo <= 1e-12 * mid.abs().max(1.0) {
            return mid;
        }
        let fm = f(mid);
        if fm == 0.0 {
            return mid;
        }
        if (fm > 0.0) == (flo > 0.0) {
            lo = mid;
            flo = fm;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Brownian motion with drift `mu` and variance `sigma2` per unit time,
/// started at 0 and absorbed at `a < 0 < b`.
struct Brownian {
    a: f64,
    b: f64,
    mu: f64,
    sigma2: f64,
}

impl Brownian {
    /// Probability that the path passes to the right of `(t, y)` (time
    /// vertical): exits at `b`, or is still inside at `t` above `y`, or
    /// exits at `a` after `t`. The exact series converges slowly for short
    /// times and strong drift; Siegmund's approximation covers those.
    fn outcome_cdf(&self, t: f64, y: f64) -> f64 {
        let gamma = self.mu / self.sigma2;
        let width = self.b - self.a;
        let v = if self.sigma2 * t / (width * width) < 1e-2 || (gamma * width).abs() > 15.0 {
            self.siegmund(t, y)
        } else {
            self.series(t, y)
        };
        v.clamp(0.0, 1.0)
    }

    fn series(&self, t: f64, y: f64) -> f64 {
        let (mu, sigma2) = (self.mu, self.sigma2);
        let width = self.b - self.a;
        let x = -self.a;
        let y = y - self.a;
        let gamma = mu / sigma2;
        let pi = std::f64::consts::PI;
        let lambda = |n: f64| (n * pi / width).powi(2) * sigma2 / 2.0 + (mu * mu / sigma2) / 2.0;
        let lambda_1 = lambda(1.0);
        let t0 = (-lambda_1 * t - x * gamma + y * gamma).exp();
        let mut sum = 0.0;
        // Terms fall off like exp(-n^2); 10_000 is a guard, never reached.
        for n in 1..10_000 {
            let n = n as f64;
            let t1 = (-(lambda(n) - lambda_1) * t).exp();
            let t3 = primitive(n, gamma, width, y);
            let t4 = (n * pi * x / width).sin();
            sum += t1 * t3 * t4;
            if (t0 * t1 * t3).abs() <= 1e-9 {
                break;
            }
        }
        let pre = if gamma * width > 30.0 {
            (-2.0 * gamma * x).exp()
        } else if (gamma * width).abs() < 1e-8 {
            (width - x) / width
        } else {
            (1.0 - (2.0 * gamma * (width - x)).exp()) / (1.0 - (2.0 * gamma * width).exp())
        };
        pre + t0 * sum
    }

    fn siegmund(&self, t: f64, y: f64) -> f64 {
        let phi = |z: f64| Normal::standard().cdf(z);
        let denom = (t * self.sigma2).sqrt();
        let offset = self.mu * t;
        let gamma = self.mu / self.sigma2;
        let (a, b) = (self.a, self.b);
        let z = (y - offset) / denom;
        let za = (-y + offset + 2.0 * a) / denom;
        let zb = (y - offset - 2.0 * b) / denom;
        // Far in the tail exp(2 gamma c) * Phi(z) is inf * 0; its asymptotic
        // expansion is finite.
        let tail = |zc: f64, c: f64| {
            if gamma * c >= 5.0 {
                -(-(zc * zc) / 2.0 + 2.0 * gamma * c).exp() / (2.0 * std::f64::consts::PI).sqrt()
                    * (1.0 / zc - 1.0 / zc.powi(3))
            } else {
                (2.0 * gamma * c).exp() * phi(zc)
            }
        };
        phi(z) + tail(za, a) - tail(zb, b)
    }
}

/// A primitive of `e^(gamma y) sin(n pi y / A)` times `2/A e^(-gamma y)`.
fn primitive(n: f64, gamma: f64, width: f64, y: f64) -> f64 {
    let pi = std::f64::consts::PI;
    (2.0 * width * gamma * (pi * n * y / width).sin() - 2.0 * pi * n * (pi * n * y / width).cos())
        / (width * width * gamma * gamma + pi * pi * n * n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(counts L..W, model, elo0, elo1, [elo, low, high, los], clamped)`.
    type Case = (&'static [u64], EloModel, f64, f64, [f64; 4], bool);

    /// From `python3 harness/tests/stats_reference.py mue` (our transcription
    /// of fishtest's sprt.py and brownian.py, scipy 1.17), which agreed with
    /// fishtest's own code to 1e-14 on every case. Stopped at H1, at H0 with
    /// an overshoot (clamped), still running, tiny, and trinomial.
    const CASES: &[Case] = &[
        (
            &[120, 1100, 2300, 1250, 168],
            EloModel::Normalized,
            0.0,
            2.0,
            [
                8.656017913773402,
                4.581270202755979,
                12.73314783104654,
                0.9999843820609925,
            ],
            false,
        ),
        (
            &[40, 900, 2100, 1000, 60],
            EloModel::Normalized,
            0.0,
            2.0,
            [
                5.93240353305901,
                1.9533358495724205,
                9.91302797562733,
                0.9982623833479131,
            ],
            false,
        ),
        (
            &[60, 1000, 2100, 900, 40],
            EloModel::Logistic,
            0.0,
            5.0,
            [
                -5.095811704500269,
                -12.656381401349647,
                2.556872300897695,
                0.09518503534268674,
            ],
            true,
        ),
        (
            &[10789, 19328, 33806, 19402, 10543],
            EloModel::Normalized,
            0.5,
            2.5,
            [
                -0.5029311711700558,
                -2.608920130996044,
                1.6455610226258304,
                0.3214077871621578,
            ],
            true,
        ),
        (
            &[1, 20, 80, 30, 5],
            EloModel::Normalized,
            0.0,
            2.0,
            [
                23.025712511607225,
                1.805367667710753,
                44.419213524143665,
                0.9832889392122567,
            ],
            false,
        ),
        (
            &[3000, 4000, 3200],
            EloModel::Logistic,
            0.0,
            5.0,
            [
                5.986601524258868,
                0.333612428084245,
                11.46569802137326,
                0.9808554569912546,
            ],
            false,
        ),
        (
            &[310, 700, 360],
            EloModel::Normalized,
            -5.0,
            0.0,
            [
                12.685765270882642,
                -0.16820832605686364,
                25.574560854850702,
                0.9734621475840364,
            ],
            false,
        ),
    ];

    #[test]
    fn agrees_with_fishtest() {
        for &(counts, model, elo0, elo1, want, clamped) in CASES {
            let sprt = SprtParams::new(elo0, elo1, 0.05, 0.05, model).unwrap();
            let got = if counts.len() == 5 {
                let p = Pentanomial([counts[0], counts[1], counts[2], counts[3], counts[4]]);
                sprt.unbiased_penta(&p, 0.95)
            } else {
                let t = Trinomial {
                    losses: counts[0],
                    draws: counts[1],
                    wins: counts[2],
                };
                sprt.unbiased_wdl(&t, 0.95)
            }
            .unwrap();
            let got4 = [got.elo, got.low, got.high, got.los];
            for (g, w) in got4.iter().zip(want) {
                assert!(
                    (g - w).abs() < 1e-7,
                    "{counts:?} {model:?}: {got4:?} vs {want:?}"
                );
            }
            assert_eq!(got.clamped, clamped, "{counts:?}");
        }
    }

    #[test]
    fn stopping_early_is_corrected_towards_zero() {
        // A pass at H1 overstates the Elo; the median-unbiased figure is
        // smaller than the plain one but inside the interval.
        let p = Pentanomial([120, 1100, 2300, 1250, 168]);
        let plain = p.estimate().elo.unwrap();
        let sprt = SprtParams::new(0.0, 2.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        let u = sprt.unbiased_penta(&p, 0.95).unwrap();
        assert!(u.elo < plain, "{} vs {plain}", u.elo);
        assert!(u.low < u.elo && u.elo < u.high);
    }

    #[test]
    fn no_games_or_bad_levels_give_none() {
        let sprt = SprtParams::new(0.0, 2.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        assert_eq!(sprt.unbiased_penta(&Pentanomial([0; 5]), 0.95), None);
        assert_eq!(sprt.unbiased_wdl(&Trinomial::default(), 0.95), None);
        let p = Pentanomial([1, 2, 3, 2, 1]);
        assert_eq!(sprt.unbiased_penta(&p, 1.0), None);
        assert_eq!(sprt.unbiased_penta(&p, f64::NAN), None);
        // All draws: fishtest's regularisation keeps the figures finite
        // (its sprt.py gives 0 [-0.6809076337852064, 0.6809076337852431]).
        let u = sprt
            .unbiased_penta(&Pentanomial([0, 0, 50, 0, 0]), 0.95)
            .unwrap();
        assert!(u.elo.abs() < 1e-9, "{u:?}");
        assert!((u.high - 0.6809076337852431).abs() < 1e-7, "{u:?}");
        assert!((u.low + 0.6809076337852064).abs() < 1e-7, "{u:?}");
    }
}
