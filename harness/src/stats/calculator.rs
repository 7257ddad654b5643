//! fishtest's SPRT calculator: the probability that an SPRT passes and the
//! expected number of games it runs, for a given true Elo, from the Brownian
//! motion approximation of the LLR (Van den Bergh, "sprta.pdf"; fishtest's
//! `sprt.js`). Overshoot is ignored, so real tests run slightly longer.

use super::elo::{elo_to_score, NELO_PER_T};
use super::sprt::{bayeselo_to_score, drawelo_of_draw_ratio, EloModel, SprtParams};
use super::StatsError;

/// `(P(pass), E[games])` for a test with `params` when the true logistic Elo
/// difference is `true_elo`. `draw_ratio` is the per-game draw rate and
/// `rms_bias` the RMS of the opening bias in logistic Elo (0 for balanced
/// books); together they fix the per-game variance
/// `(1 - draw_ratio) / 4 - (L(rms_bias) - 1/2)^2`.
/// Returns NaNs for invalid input; see [`expected_games_checked`].
pub fn expected_games(
    params: &SprtParams,
    true_elo: f64,
    draw_ratio: f64,
    rms_bias: f64,
) -> (f64, f64) {
    expected_games_checked(params, true_elo, draw_ratio, rms_bias).unwrap_or((f64::NAN, f64::NAN))
}

/// [`expected_games`] with the reason when the input is unusable.
pub fn expected_games_checked(
    params: &SprtParams,
    true_elo: f64,
    draw_ratio: f64,
    rms_bias: f64,
) -> Result<(f64, f64), StatsError> {
    params.validate()?;
    if !(0.0..1.0).contains(&draw_ratio) {
        return Err(StatsError::DrawRatio(draw_ratio));
    }
    if !(rms_bias.is_finite() && rms_bias >= 0.0) {
        return Err(StatsError::RmsBias(rms_bias));
    }
    if !true_elo.is_finite() {
        return Err(StatsError::NotFinite(true_elo));
    }
    let bias_score = elo_to_score(rms_bias) - 0.5;
    let variance = (1.0 - draw_ratio) / 4.0 - bias_score * bias_score;
    if variance <= 0.0 {
        return Err(StatsError::NoVariance {
            draw_ratio,
            rms_bias,
        });
    }
    // Hypotheses as expected scores per game.
    let (s0, s1) = match params.model {
        EloModel::Logistic => (elo_to_score(params.elo0), elo_to_score(params.elo1)),
        EloModel::Bayesian => {
            let drawelo = drawelo_of_draw_ratio(draw_ratio);
            (
                bayeselo_to_score(params.elo0, drawelo),
                bayeselo_to_score(params.elo1, drawelo),
            )
        }
        EloModel::Normalized => {
            let sigma = variance.sqrt();
            (
                0.5 + params.elo0 / NELO_PER_T * sigma,
                0.5 + params.elo1 / NELO_PER_T * sigma,
            )
        }
    };
    // LLR drift per game is h * w2 / 2 and its variance w2 per game.
    let w2 = (s1 - s0).powi(2) / variance;
    let (a, b) = params.bounds();
    let h = (2.0 * elo_to_score(true_elo) - s0 - s1) / (s1 - s0);
    let (pass, llr_time) = if (h * (a - b)).abs() < 1e-6 {
        // Zero drift: the limit of the formulas below.
        (-a / (b - a), -a * b)
    } else {
        let ea = (-h * a).exp();
        let eb = (-h * b).exp();
        let pass = (1.0 - ea) / (eb - ea);
        (pass, 2.0 / h * (b * pass + a * (1.0 - pass)))
    };
    Ok((pass, llr_time / w2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tests::assert_close;

    fn params(elo0: f64, elo1: f64, model: EloModel) -> SprtParams {
        SprtParams::new(elo0, elo1, 0.05, 0.05, model).unwrap()
    }

    /// elo0, elo1, model, true Elo, draw ratio, RMS bias, P(pass), E[games].
    type Row = (f64, f64, EloModel, f64, f64, f64, f64, f64);

    // References from fishtest's sprt.js formulas, evaluated in Python by
    // harness/tests/stats_reference.py with the same inputs; fishtest's
    // calculator page plots these curves (its defaults: nElo [0, 2], draw
    // ratio 0.49, RMS bias 191).
    #[test]
    fn calculator_reference_values() {
        let cases: [Row; 7] = [
            // elo0, elo1, model, true elo, draw ratio, rms bias, P(pass), E[games]
            (
                0.0,
                2.0,
                EloModel::Normalized,
                0.0,
                0.49,
                191.0,
                0.05,
                159942.4221910198,
            ),
            (
                0.0,
                2.0,
                EloModel::Normalized,
                1.0,
                0.49,
                191.0,
                0.9444699990948261,
                164150.5038634856,
            ),
            (
                0.0,
                2.0,
                EloModel::Normalized,
                2.5,
                0.49,
                191.0,
                0.9999898771003067,
                45497.82537237855,
            ),
            (
                0.0,
                5.0,
                EloModel::Logistic,
                5.0,
                0.6,
                0.0,
                0.95,
                10237.728380205592,
            ),
            (
                0.0,
                5.0,
                EloModel::Logistic,
                0.0,
                0.6,
                0.0,
                0.05,
                10237.728380205588,
            ),
            (
                0.0,
                5.0,
                EloModel::Logistic,
                2.5,
                0.6,
                0.0,
                0.500038111759361,
                16746.870296950736,
            ),
            (
                -5.0,
                0.0,
                EloModel::Normalized,
                -10.0,
                0.3,
                50.0,
                1.190262100596779e-05,
                7383.606845610856,
            ),
        ];
        for (e0, e1, m, e, dr, bias, pass, games) in cases {
            let (p, g) = expected_games(&params(e0, e1, m), e, dr, bias);
            assert_close(p, pass, 1e-6);
            assert_close(g, games, 1e-6);
        }
    }

    #[test]
    fn pass_probability_is_alpha_and_one_minus_beta_at_the_bounds() {
        let p = SprtParams::new(0.0, 5.0, 0.05, 0.1, EloModel::Logistic).unwrap();
        assert_close(expected_games(&p, 0.0, 0.5, 0.0).0, 0.05, 1e-9);
        assert_close(expected_games(&p, 5.0, 0.5, 0.0).0, 0.9, 1e-9);
    }

    #[test]
    fn rejects_incompatible_inputs() {
        let p = params(0.0, 2.0, EloModel::Normalized);
        assert!(matches!(
            expected_games_checked(&p, 0.0, 0.99, 300.0),
            Err(StatsError::NoVariance { .. })
        ));
        assert!(matches!(
            expected_games_checked(&p, 0.0, 1.0, 0.0),
            Err(StatsError::DrawRatio(_))
        ));
        assert!(expected_games(&p, 0.0, -0.1, 0.0).0.is_nan());
    }
}
