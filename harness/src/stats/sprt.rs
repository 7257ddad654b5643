//! The generalized sequential probability ratio test (GSPRT) exactly as
//! fishtest runs it: the log-likelihood ratio of the maximum-likelihood
//! distributions under H0 (Elo = elo0) and H1 (Elo = elo1), with bounds in
//! logistic or normalized Elo, against Wald's thresholds.

use serde::{Deserialize, Serialize};

use super::counts::{Pdf, Pentanomial, Trinomial};
use super::elo::{elo_to_score, NELO_PER_T};
use super::mle::{llr_per_unit, mle_mean, mle_t_value};
use super::StatsError;

/// How `elo0` / `elo1` are expressed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Classic logistic Elo: the hypothesis fixes the expected score.
    Logistic,
    /// Normalized Elo: the hypothesis fixes `(score - 1/2) / sigma_game`,
    /// which makes the test's cost independent of the draw ratio. fishtest's
    /// default.
    Normalized,
    /// BayesElo, as fastchess's `model=bayesian` (and fishtest's first
    /// SPRTs): the bounds are BayesElo differences, turned into expected
    /// scores with the draw Elo the W/D/L counts show. A model of single
    /// games, so the test counts W/D/L even when games come in pairs.
    Bayesian,
}

impl EloModel {
    /// Lower-case name, as in configs and JSON.
    pub fn name(self) -> &'static str {
        match self {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
            EloModel::Bayesian => "bayesian",
        }
    }

    /// Does the test count single games (W/D/L) whatever the schedule?
    pub fn counts_games(self) -> bool {
        self == EloModel::Bayesian
    }

    /// Largest |bound| accepted: logistic scores stay inside fishtest's Elo
    /// clamp; the normalized fixed-point iteration is verified to converge on
    /// every kind of data up to +-200 nElo (it starts to fail near 300). Far
    /// from 0, fishtest's 10-round fit has not converged, so its LLR differs
    /// from ours there (see the module docs).
    fn bound_limit(self) -> f64 {
        match self {
            EloModel::Logistic | EloModel::Bayesian => 1000.0,
            EloModel::Normalized => 200.0,
        }
    }
}

impl std::str::FromStr for EloModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "logistic" => Ok(EloModel::Logistic),
            "normalized" | "normalised" => Ok(EloModel::Normalized),
            "bayesian" | "bayeselo" => Ok(EloModel::Bayesian),
            _ => Err(format!(
                "unknown Elo model '{s}' (expected 'normalized', 'logistic' or 'bayesian')"
            )),
        }
    }
}

fn default_error_rate() -> f64 {
    0.05
}

fn default_model() -> EloModel {
    EloModel::Normalized
}

/// SPRT design: H0 Elo = `elo0` against H1 Elo = `elo1`, false positive rate
/// `alpha` (reached at elo0), false negative rate `beta` (reached at elo1).
/// In configs `alpha` and `beta` default to 0.05 and `model` to normalized.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtParams {
    /// Elo of H0 (the strength difference to reject).
    pub elo0: f64,
    /// Elo of H1 (the strength difference to detect); above `elo0`.
    pub elo1: f64,
    /// False positive rate: chance of accepting H1 at Elo `elo0` (default 0.05).
    #[serde(default = "default_error_rate")]
    pub alpha: f64,
    /// False negative rate: chance of accepting H0 at Elo `elo1` (default 0.05).
    #[serde(default = "default_error_rate")]
    pub beta: f64,
    /// The Elo scale of `elo0` and `elo1`: normalized (default) or logistic.
    #[serde(default = "default_model")]
    pub model: EloModel,
}

/// The SPRT's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SprtDecision {
    /// LLR reached the lower bound: H0 (Elo <= elo0) accepted.
    #[serde(rename = "H0")]
    H0,
    /// LLR reached the upper bound: H1 (Elo >= elo1) accepted.
    #[serde(rename = "H1")]
    H1,
    /// Neither bound reached yet.
    #[serde(rename = "continue")]
    Continue,
}

impl SprtDecision {
    /// The JSON spelling: "H0", "H1" or "continue".
    pub fn as_str(self) -> &'static str {
        match self {
            SprtDecision::H0 => "H0",
            SprtDecision::H1 => "H1",
            SprtDecision::Continue => "continue",
        }
    }
}

/// LLR, the bounds it is compared with, and the verdict.
#[derive(Clone, Debug, Serialize)]
pub struct SprtResult {
    /// Log-likelihood ratio of H1 against H0 for the counts tested.
    pub llr: f64,
    /// LLR at or below which H0 is accepted: ln(beta / (1 - alpha)).
    pub lower: f64,
    /// LLR at or above which H1 is accepted: ln((1 - beta) / alpha).
    pub upper: f64,
    /// Where the LLR stands against the bounds.
    pub decision: SprtDecision,
}

impl SprtParams {
    /// Checked constructor.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: EloModel,
    ) -> Result<SprtParams, StatsError> {
        let p = SprtParams {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        };
        p.validate()?;
        Ok(p)
    }

    /// Rejects bounds that are not ordered or finite, bounds outside the
    /// model's supported range, and error rates outside (0, 1).
    pub fn validate(&self) -> Result<(), StatsError> {
        for (name, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value > 0.0 && value < 1.0) {
                return Err(StatsError::Probability { name, value });
            }
        }
        if self.alpha + self.beta >= 1.0 {
            return Err(StatsError::ErrorSum(self.alpha + self.beta));
        }
        let limit = self.model.bound_limit();
        for (name, value) in [("elo0", self.elo0), ("elo1", self.elo1)] {
            // Written so that NaN fails too.
            if value.is_nan() || value.abs() > limit {
                return Err(StatsError::BoundOutOfRange {
                    name,
                    value,
                    limit,
                    model: self.model.name(),
                });
            }
        }
        if self.elo0 >= self.elo1 {
            return Err(StatsError::BoundsOrder {
                elo0: self.elo0,
                elo1: self.elo1,
            });
        }
        Ok(())
    }

    /// Wald's thresholds `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Generalized LLR of the pentanomial counts (pairs are the observations).
    /// NaN if the parameters fail [`SprtParams::validate`], and for the
    /// BayesElo model, which has no pentanomial form (count W/D/L, see
    /// [`EloModel::counts_games`]).
    pub fn llr_penta(&self, p: &Pentanomial) -> f64 {
        if self.model == EloModel::Bayesian {
            return f64::NAN;
        }
        self.llr_pdf(&p.pdf(), 2.0)
    }

    /// Generalized LLR of the trinomial counts (games are the observations).
    /// NaN only if the parameters fail [`SprtParams::validate`].
    pub fn llr_wdl(&self, t: &Trinomial) -> f64 {
        if self.model == EloModel::Bayesian {
            return self.llr_bayeselo(t);
        }
        self.llr_pdf(&t.pdf(), 1.0)
    }

    /// fastchess's BayesElo LLR: the draw Elo estimated from the win and
    /// loss rates, the bounds turned into scores with it, then the
    /// logistic GSPRT at those scores. 0 until there is a win and a loss
    /// (the draw Elo is infinite before).
    fn llr_bayeselo(&self, t: &Trinomial) -> f64 {
        if t.wins == 0 || t.losses == 0 {
            return 0.0;
        }
        let pdf = t.pdf();
        let (loss, win) = (pdf.p[0], pdf.p[2]);
        let drawelo = 200.0 * ((1.0 - loss) / loss * (1.0 - win) / win).log10();
        let s0 = bayeselo_to_score(self.elo0, drawelo);
        let s1 = bayeselo_to_score(self.elo1, drawelo);
        match mle_mean(&pdf, s0).zip(mle_mean(&pdf, s1)) {
            Some((q0, q1)) => pdf.n * llr_per_unit(&pdf, &q0, &q1),
            None => f64::NAN,
        }
    }

    /// LLR, bounds and decision for pentanomial counts.
    pub fn test_penta(&self, p: &Pentanomial) -> SprtResult {
        self.decide(self.llr_penta(p))
    }

    /// LLR, bounds and decision for trinomial counts.
    pub fn test_wdl(&self, t: &Trinomial) -> SprtResult {
        self.decide(self.llr_wdl(t))
    }

    /// Compares an LLR with the bounds: H1 once `llr >= upper`, H0 once
    /// `llr <= lower`. Unlike fishtest there is no overshoot correction (it
    /// moves its bounds inwards by an estimate of the overshoot and compares
    /// strictly), so the error rates are Wald's, slightly below alpha and beta.
    pub fn decide(&self, llr: f64) -> SprtResult {
        let (lower, upper) = self.bounds();
        let decision = if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        };
        SprtResult {
            llr,
            lower,
            upper,
            decision,
        }
    }

    /// `games_per_unit`: 1 for games, 2 for pairs. For normalized bounds the
    /// t-value of a pair average is sqrt(2) times the per-game one.
    fn llr_pdf(&self, pdf: &Pdf, games_per_unit: f64) -> f64 {
        let fitted = match self.model {
            EloModel::Logistic => {
                mle_mean(pdf, elo_to_score(self.elo0)).zip(mle_mean(pdf, elo_to_score(self.elo1)))
            }
            EloModel::Normalized => {
                let scale = games_per_unit.sqrt() / NELO_PER_T;
                mle_t_value(pdf, self.elo0 * scale).zip(mle_t_value(pdf, self.elo1 * scale))
            }
            // Only through llr_bayeselo.
            EloModel::Bayesian => None,
        };
        match fitted {
            Some((q0, q1)) => pdf.n * llr_per_unit(pdf, &q0, &q1),
            None => f64::NAN,
        }
    }
}

/// The expected score of a BayesElo difference `elo` at draw Elo
/// `drawelo` (Rémi Coulom's model: win and loss are logistic in
/// `elo -+ drawelo`, the draw takes the rest).
pub fn bayeselo_to_score(elo: f64, drawelo: f64) -> f64 {
    let win = 1.0 / (1.0 + 10f64.powf((drawelo - elo) / 400.0));
    let loss = 1.0 / (1.0 + 10f64.powf((drawelo + elo) / 400.0));
    win + 0.5 * (1.0 - win - loss)
}

/// The draw Elo at which two equal players draw `draw_ratio` of their
/// games.
pub fn drawelo_of_draw_ratio(draw_ratio: f64) -> f64 {
    400.0 * ((1.0 + draw_ratio) / (1.0 - draw_ratio)).log10()
}
