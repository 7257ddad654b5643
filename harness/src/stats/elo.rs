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
///
/// A figure that the counts cannot support is `None` (JSON `null`, printed
/// `n/a`) instead of a number that looks meaningful: nothing at all without
/// games; no Elo when every game was won (or lost), since the score sits at
/// the edge where Elo is infinite; no interval, LOS or nElo while every game
/// (pair) had the same result, since the spread is then unknown, not zero.
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    /// Games played (twice the pairs for pentanomial counts).
    pub games: u64,
    /// Points per game.
    pub score: Option<f64>,
    /// Logistic Elo of the (regularised) mean score.
    pub elo: Option<f64>,
    /// Symmetric half-width `(elo_high - elo_low) / 2`, as fishtest and
    /// fastchess print after "+-".
    pub elo_error: Option<f64>,
    /// Elo of the lower end of the score's confidence interval.
    pub elo_low: Option<f64>,
    /// Elo of the upper end of the score's confidence interval.
    pub elo_high: Option<f64>,
    /// Likelihood of superiority: P(true score > 1/2).
    pub los: Option<f64>,
    /// Normalized Elo: `(score - 1/2) / sigma_game * 800 / ln 10`.
    pub nelo: Option<f64>,
    /// Half-width of nElo's interval (delta method, as fishtest's page).
    pub nelo_error: Option<f64>,
    /// Fraction of drawn games. From pentanomial counts every DD+WL pair
    /// counts as two draws (exact without WL pairs, an upper bound
    /// otherwise); see [`Pentanomial::draw_ratio`]. A match summary replaces
    /// it with the exact figure from its W/D/L counts.
    pub draw_ratio: Option<f64>,
}

/// Two decimals, without the "-0.00" that rounding a tiny negative gives.
pub fn two_decimals(x: f64) -> String {
    fmt_opt(Some(x), 2)
}

/// A figure for people: two decimals, or `n/a` where the estimate does not
/// exist (see [`Estimate`]).
pub fn fmt_opt(x: Option<f64>, decimals: usize) -> String {
    match x {
        Some(v) => {
            let s = format!("{v:.decimals$}");
            // Rounding a tiny negative gives "-0.00".
            if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
                s[1..].to_string()
            } else {
                s
            }
        }
        None => "n/a".to_string(),
    }
}

/// The shared computation. `games_per_unit` is 1 (trinomial) or 2
/// (pentanomial, where a unit is a pair and its score the pair average).
fn estimate(
    counts: &[u64],
    games: u64,
    points: f64,
    draw_ratio: f64,
    games_per_unit: f64,
) -> Estimate {
    let pdf = Pdf::from_counts(counts);
    let (mu, var) = pdf.mean_var();
    // What the raw counts can support (the regularised pdf always has spread).
    let observed = counts.iter().filter(|&&c| c > 0).count();
    let score = (games > 0).then(|| points / games as f64);
    let has_elo = score.is_some_and(|s| s > 0.0 && s < 1.0);
    let has_spread = observed >= 2;
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

    let spread = |x: f64| (has_spread && x.is_finite()).then_some(x);
    Estimate {
        games,
        score,
        elo: has_elo.then(|| score_to_elo(mu)),
        elo_error: spread((elo_high - elo_low) / 2.0).filter(|_| has_elo),
        elo_low: spread(elo_low).filter(|_| has_elo),
        elo_high: spread(elo_high).filter(|_| has_elo),
        los: spread(phi((mu - 0.5) / se)),
        nelo: spread(coeff * t),
        nelo_error: spread(coeff * z * (var_t / pdf.n).sqrt()),
        draw_ratio: score.map(|_| draw_ratio),
    }
}

impl Pentanomial {
    /// Elo, LOS and nElo from the pair counts (fishtest's pentanomial
    /// estimates: the variance of pair averages, not of single games).
    pub fn estimate(&self) -> Estimate {
        estimate(&self.0, self.games(), self.points(), self.draw_ratio(), 2.0)
    }
}

impl Trinomial {
    /// Elo, LOS and nElo from per-game counts.
    pub fn estimate(&self) -> Estimate {
        estimate(
            &self.ascending(),
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
        assert_close(e.score.unwrap(), 0.55, 1e-15);
        assert_close(e.draw_ratio.unwrap(), 0.5, 1e-15);
        let (elo, lo, hi) = (e.elo.unwrap(), e.elo_low.unwrap(), e.elo_high.unwrap());
        assert!(elo > 0.0 && lo < elo && elo < hi);
        let empty = Trinomial::default().estimate();
        assert_eq!(empty.games, 0);
        // No games: no score and no draw ratio, not a 50% that looks measured.
        assert_eq!((empty.score, empty.draw_ratio), (None, None));
        assert_eq!((empty.elo, empty.elo_error, empty.los), (None, None, None));
        let empty = Pentanomial::default().estimate();
        assert_eq!((empty.score, empty.draw_ratio), (None, None));
    }

    #[test]
    fn degenerate_counts_have_no_estimates() {
        // 294-0: every pair won twice. No Elo (infinite), no spread.
        let all = Pentanomial([0, 0, 0, 0, 147]).estimate();
        assert_eq!(all.score, Some(1.0));
        assert_eq!(
            (all.elo, all.elo_error, all.nelo, all.los),
            (None, None, None, None)
        );
        // 10-0 over single games: the same.
        let t = Trinomial::new(10, 0, 0).estimate();
        assert_eq!((t.elo, t.nelo, t.nelo_error), (None, None, None));
        // Only draws: Elo 0 is the estimate, but its spread is unknown.
        let d = Pentanomial([0, 0, 20, 0, 0]).estimate();
        assert_eq!(d.elo, Some(0.0));
        assert_eq!((d.elo_error, d.nelo, d.los), (None, None, None));
        // Two kinds of pair results: everything exists.
        let ok = Pentanomial([0, 0, 0, 3, 7]).estimate();
        assert!(ok.elo.is_some() && ok.elo_error.is_some() && ok.nelo.is_some());
        assert_eq!(fmt_opt(all.elo, 2), "n/a");
        assert_eq!(fmt_opt(Some(-0.001), 2), "0.00");
    }

    #[test]
    fn symmetric_results_mirror() {
        let a = Pentanomial([5, 20, 40, 30, 7]).estimate();
        let b = Pentanomial([7, 30, 40, 20, 5]).estimate();
        let v = |x: Option<f64>| x.unwrap();
        assert_close(v(a.elo), -v(b.elo), 1e-9);
        assert_close(v(a.nelo), -v(b.nelo), 1e-9);
        assert_close(v(a.los), 1.0 - v(b.los), 1e-9);
        assert_close(v(a.elo_error), v(b.elo_error), 1e-9);
    }
}
