//! Point estimates: score, logistic Elo with its 95% interval, LOS and
//! normalized Elo, computed the way fishtest's `stat_util.get_elo` and its
//! statistics page do (regularised counts, normal approximation).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

use super::counts::{Pdf, Pentanomial, Trinomial};

/// Normalized Elo per unit of t-value (`800 / ln 10`): nElo = t * this.
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Scores are clamped to [SCORE_CLAMP, 1 - SCORE_CLAMP] before conversion to
/// Elo, as fishtest does, so a perfect score gives a large finite Elo.
const SCORE_CLAMP: f64 = 1e-3;

/// Logistic Elo difference for an expected score `s` (clamped to
/// [0.001, 0.999], i.e. at most about +-1200 Elo).
pub fn score_to_elo(s: f64) -> f64 {
    let s = s.clamp(SCORE_CLAMP, 1.0 - SCORE_CLAMP);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score for a logistic Elo difference.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Standard normal CDF.
pub(crate) fn phi(x: f64) -> f64 {
    Normal::standard().cdf(x)
}

/// Standard normal quantile.
pub(crate) fn phi_inv(p: f64) -> f64 {
    Normal::standard().inverse_cdf(p)
}

/// Everything a match summary shows about the strength difference, from the
/// first engine's point of view. All intervals are 95%.
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    /// Games played (twice the pairs for pentanomial counts).
    pub games: u64,
    /// Points per game (0.5 when no game was played).
    pub score: f64,
    /// Logistic Elo of the (regularised) mean score.
    pub elo: f64,
    /// Symmetric half-width `(elo_high - elo_low) / 2`, as fishtest and
    /// fastchess print after "+-".
    pub elo_error: f64,
    /// Elo of the lower end of the score's confidence interval.
    pub elo_low: f64,
    /// Elo of the upper end of the score's confidence interval.
    pub elo_high: f64,
    /// Likelihood of superiority: P(true score > 1/2).
    pub los: f64,
    /// Normalized Elo: `(score - 1/2) / sigma_game * 800 / ln 10`.
    pub nelo: f64,
    /// Half-width of nElo's interval (delta method, as fishtest's page).
    pub nelo_error: f64,
    /// Fraction of drawn games. From pentanomial counts every DD+WL pair
    /// counts as two draws (exact without WL pairs, an upper bound
    /// otherwise); see [`Pentanomial::draw_ratio`].
    pub draw_ratio: f64,
}

/// The shared computation. `games_per_unit` is 1 (trinomial) or 2
/// (pentanomial, where a unit is a pair and its score the pair average).
fn estimate(pdf: &Pdf, games: u64, points: f64, draw_ratio: f64, games_per_unit: f64) -> Estimate {
    let (mu, var) = pdf.mean_var();
    let sd = var.sqrt();
    // Standard error of the mean score per game: the unit variance already is
    // that of a pair average, so no further factor for pairs.
    let se = (var / pdf.n).sqrt();
    let z = phi_inv(0.975);
    let elo_low = score_to_elo(mu - z * se);
    let elo_high = score_to_elo(mu + z * se);

    // Normalized Elo: the per-game standard deviation is sqrt(2) times that of
    // a pair average. Its error uses the delta method on the t-value with the
    // skewness and excess kurtosis of the unit distribution.
    let coeff = NELO_PER_T / games_per_unit.sqrt();
    let t = (mu - 0.5) / sd;
    let m3: f64 = (0..pdf.len)
        .map(|i| pdf.p[i] * (pdf.a[i] - mu).powi(3))
        .sum();
    let m4: f64 = (0..pdf.len)
        .map(|i| pdf.p[i] * (pdf.a[i] - mu).powi(4))
        .sum();
    let skewness = m3 / var.powf(1.5);
    let excess_kurtosis = m4 / (var * var) - 3.0;
    // Clamped at zero against rounding, as fishtest does.
    let var_t = (1.0 - t * skewness + 0.25 * t * t * (excess_kurtosis + 2.0)).max(0.0);

    Estimate {
        games,
        score: if games == 0 {
            0.5
        } else {
            points / games as f64
        },
        elo: score_to_elo(mu),
        elo_error: (elo_high - elo_low) / 2.0,
        elo_low,
        elo_high,
        los: phi((mu - 0.5) / se),
        nelo: coeff * t,
        nelo_error: coeff * z * (var_t / pdf.n).sqrt(),
        draw_ratio,
    }
}

impl Pentanomial {
    /// Elo, LOS and nElo from the pair counts (fishtest's pentanomial
    /// estimates: the variance of pair averages, not of single games).
    pub fn estimate(&self) -> Estimate {
        estimate(
            &self.pdf(),
            self.games(),
            self.points(),
            self.draw_ratio(),
            2.0,
        )
    }
}

impl Trinomial {
    /// Elo, LOS and nElo from per-game counts.
    pub fn estimate(&self) -> Estimate {
        estimate(
            &self.pdf(),
            self.games(),
            self.points(),
            self.draw_ratio(),
            1.0,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tests::assert_close;

    #[test]
    fn elo_score_round_trip() {
        for e in [-800.0, -100.0, -3.0, 0.0, 0.5, 42.0, 700.0] {
            assert_close(score_to_elo(elo_to_score(e)), e, 1e-12);
        }
        assert_eq!(score_to_elo(0.5), 0.0);
        assert_close(score_to_elo(1.0), score_to_elo(0.999), 0.0);
        assert_close(score_to_elo(0.0), -score_to_elo(0.999), 1e-12);
    }

    #[test]
    fn normal_functions() {
        assert_close(phi_inv(0.975), 1.959963984540054, 1e-12);
        assert_close(phi(0.0), 0.5, 0.0);
        // statrs's erfc is good to ~1e-10 relative, far inside our 1e-6 target.
        assert_close(phi(-1.959963984540054), 0.025, 1e-9);
    }

    #[test]
    fn trinomial_counts_and_score() {
        let e = Trinomial::new(30, 50, 20).estimate();
        assert_eq!(e.games, 100);
        assert_close(e.score, 0.55, 1e-15);
        assert_close(e.draw_ratio, 0.5, 1e-15);
        assert!(e.elo > 0.0 && e.elo_low < e.elo && e.elo < e.elo_high);
        let empty = Trinomial::default().estimate();
        assert_eq!(empty.games, 0);
        assert_eq!(empty.score, 0.5);
        assert!(empty.elo.abs() < 1e-9 && (empty.los - 0.5).abs() < 1e-9);
    }

    #[test]
    fn symmetric_results_mirror() {
        let a = Pentanomial([5, 20, 40, 30, 7]).estimate();
        let b = Pentanomial([7, 30, 40, 20, 5]).estimate();
        assert_close(a.elo, -b.elo, 1e-9);
        assert_close(a.nelo, -b.nelo, 1e-9);
        assert_close(a.los, 1.0 - b.los, 1e-9);
        assert_close(a.elo_error, b.elo_error, 1e-9);
    }
}
