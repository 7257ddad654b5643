//! Counting finished game pairs: pentanomial and W/D/L counts per pairing,
//! the termination breakdown and the SPRT state. Games that do not come in
//! colour-swapped pairs (one game per opening, `-noswap`) are counted
//! W/D/L only and their SPRT is the trinomial one, as fastchess counts them. The tally knows nothing of
//! configs or files: the match runner, the tuners and the distributed
//! coordinator all count with it, and the summary is built from it.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::schedule::Pairing;
use crate::play::game::Termination;
use crate::run::ledger::PairEntry;
use crate::stats::{Counting, Pentanomial, SprtDecision, SprtParams, SprtResult, Trinomial};

/// Where a run stands; serialised as the lowercase name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Games are being played.
    Running,
    /// Every planned game was played.
    Finished,
    /// The SPRT decided.
    Stopped,
    /// Ctrl-C or SIGTERM; `--resume` continues.
    Interrupted,
    /// The caller stopped it (a budget such as `gate.max_minutes`, a tuner).
    Halted,
}

impl RunStatus {
    /// The status's name in `summary.json` and status lines.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Finished => "finished",
            RunStatus::Stopped => "stopped",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Halted => "halted",
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for RunStatus {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// The SPRT's state as a summary reports it; serialised as `H0`, `H1`,
/// `continue`, `inconclusive` or `interrupted`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtVerdict {
    /// H0 accepted (Elo `elo0` rather than `elo1`: the test fails).
    H0,
    /// H1 accepted (Elo `elo1` rather than `elo0`: the test passes).
    H1,
    /// Neither bound crossed yet; the run goes on.
    #[serde(rename = "continue")]
    Continue,
    /// The game cap or the caller's budget ran out before a bound was crossed.
    #[serde(rename = "inconclusive")]
    Inconclusive,
    /// Stopped by a signal before a verdict; `--resume` continues the test.
    #[serde(rename = "interrupted")]
    Interrupted,
}

impl SprtVerdict {
    /// The verdict's name in `summary.json` (`H0`, `H1`, `continue`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            SprtVerdict::H0 => "H0",
            SprtVerdict::H1 => "H1",
            SprtVerdict::Continue => "continue",
            SprtVerdict::Inconclusive => "inconclusive",
            SprtVerdict::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for SprtVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Running counts of one pairing.
#[derive(Clone, Debug, Default)]
pub struct PairingTally {
    /// Ledger entries (pairs, or single games) counted.
    pub pairs: u64,
    /// Pair outcomes from `first`'s point of view (empty when counting trinomially).
    pub penta: Pentanomial,
    /// Game wins, draws and losses of `first`.
    pub wdl: Trinomial,
    /// Pairs of one win and one loss (counted with the drawn pairs in the
    /// pentanomial's middle cell; fastchess's WL/DD ratio tells them apart).
    pub win_loss_pairs: u64,
    /// How many of the pairing's games ended each way.
    pub terminations: BTreeMap<Termination, u64>,
}

impl PairingTally {
    /// Count `e`'s games, and its pentanomial cell when `counting` says so.
    pub fn add(&mut self, e: &PairEntry, counting: Counting) {
        self.pairs += 1;
        if counting == Counting::Pentanomial {
            self.penta.add(e.first_points());
            if e.games.iter().any(|g| g.half_points(e.first) == 2) && e.first_points() == 2 {
                self.win_loss_pairs += 1;
            }
        }
        for g in &e.games {
            match g.half_points(e.first) {
                2 => self.wdl.wins += 1,
                1 => self.wdl.draws += 1,
                _ => self.wdl.losses += 1,
            }
            *self.terminations.entry(g.termination).or_default() += 1;
        }
    }
}

/// Level of the median-unbiased interval (fishtest's).
const UNBIASED_CONFIDENCE: f64 = 0.95;

/// SPRT state after the pairs counted so far.
#[derive(Clone, Debug, Serialize)]
pub struct SprtSummary {
    /// Elo of H0 (`sprt.elo0`).
    pub elo0: f64,
    /// Elo of H1 (`sprt.elo1`).
    pub elo1: f64,
    /// Type I error rate (`sprt.alpha`).
    pub alpha: f64,
    /// Type II error rate (`sprt.beta`).
    pub beta: f64,
    /// The Elo model the bounds are in (normalized or logistic).
    pub model: crate::stats::EloModel,
    /// Log-likelihood ratio of H1 against H0 for the counts so far.
    pub llr: f64,
    /// LLR at or below which H0 is accepted: ln(beta / (1 - alpha)).
    pub lower: f64,
    /// LLR at or above which H1 is accepted: ln((1 - beta) / alpha).
    pub upper: f64,
    /// `H0`, `H1`, `continue` (still running), `inconclusive` (the game
    /// cap or the caller's budget ran out first) or `interrupted` (stopped
    /// by a signal; `--resume` continues the test).
    pub decision: SprtVerdict,
    /// Pairs the LLR was computed from.
    pub pairs: u64,
    /// What the LLR counts: `pentanomial` (pairs) or `trinomial` (games).
    pub counting: Counting,
    /// Games the LLR was computed from.
    pub games: u64,
    /// fishtest's median-unbiased Elo and 95% interval, once a bound was
    /// crossed (the plain estimate overstates a test that stopped early).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unbiased: Option<crate::stats::UnbiasedElo>,
}

/// Everything counted so far, in the order pairs finished.
#[derive(Clone, Debug)]
pub struct Tally {
    /// The tournament's pairings; `per_pairing` is indexed alike.
    pub pairings: Vec<Pairing>,
    /// The counts of each pairing.
    pub per_pairing: Vec<PairingTally>,
    /// Ledger entries counted (pairs, or single games when trinomial), all pairings.
    pub pairs: u64,
    /// Games in the counted pairs.
    games: u64,
    /// Pentanomial (colour-swapped pairs) or trinomial.
    counting: Counting,
    /// The SPRT and its test of the first pairing's counts, updated with
    /// every pair until a bound is crossed (no pair is counted after that).
    sprt: Option<(SprtParams, SprtResult)>,
    /// PV warnings per engine index (engines without any are absent).
    pub warnings: BTreeMap<usize, u64>,
}

impl Tally {
    /// A pentanomial tally (see [`Tally::counting`]).
    pub fn new(pairings: Vec<Pairing>, sprt: Option<SprtParams>) -> Tally {
        Tally {
            per_pairing: vec![PairingTally::default(); pairings.len()],
            pairings,
            pairs: 0,
            games: 0,
            counting: Counting::Pentanomial,
            warnings: BTreeMap::new(),
            sprt: sprt.map(|s| {
                let r = Self::test(&s, Counting::Pentanomial, &PairingTally::default());
                (s, r)
            }),
        }
    }

    /// The same empty tally counting as `counting` says (a schedule's
    /// [`crate::config::ColourSchedule::counting`]).
    pub fn counting(mut self, counting: Counting) -> Tally {
        self.counting = counting;
        if let Some((s, r)) = &mut self.sprt {
            *r = Self::test(s, counting, &PairingTally::default());
        }
        self
    }

    /// How this tally counts.
    pub fn counts(&self) -> Counting {
        self.counting
    }

    /// How the SPRT counts: as the tally, but BayesElo always W/D/L (the
    /// Elo estimates stay pentanomial).
    fn sprt_counting(s: &SprtParams, counting: Counting) -> Counting {
        if s.model.counts_games() {
            Counting::Trinomial
        } else {
            counting
        }
    }

    fn test(s: &SprtParams, counting: Counting, t: &PairingTally) -> SprtResult {
        match Self::sprt_counting(s, counting) {
            Counting::Pentanomial => s.test_penta(&t.penta),
            Counting::Trinomial => s.test_wdl(&t.wdl),
        }
    }

    /// The SPRT decision, once a bound has been crossed.
    pub fn decision(&self) -> Option<SprtDecision> {
        let (_, r) = self.sprt.as_ref()?;
        (r.decision != SprtDecision::Continue).then_some(r.decision)
    }

    /// Count one finished pair; returns the SPRT decision once a bound is
    /// crossed (the LLR is updated pair by pair in finishing order).
    pub fn add(&mut self, e: &PairEntry) -> Option<SprtDecision> {
        if let Some(d) = self.decision() {
            return Some(d);
        }
        self.per_pairing[e.pairing].add(e, self.counting);
        for g in &e.games {
            for (engine, n) in [(g.white, g.warnings[0]), (g.black, g.warnings[1])] {
                if n > 0 {
                    *self.warnings.entry(engine).or_default() += u64::from(n);
                }
            }
        }
        self.pairs += 1;
        self.games += e.games.len() as u64;
        if let Some((s, r)) = &mut self.sprt {
            *r = Self::test(s, self.counting, &self.per_pairing[0]);
        }
        self.decision()
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Counts of the first engine over all its pairings.
    pub fn first_engine(&self) -> PairingTally {
        let mut t = PairingTally::default();
        for (p, pt) in self.pairings.iter().zip(&self.per_pairing) {
            if p.first == 0 {
                t.pairs += pt.pairs;
                t.penta.merge(&pt.penta);
                t.wdl.merge(&pt.wdl);
                t.win_loss_pairs += pt.win_loss_pairs;
            }
        }
        t
    }

    /// SPRT figures, if configured, for a run in `status`: undecided, a
    /// running test continues, an interrupted one is `interrupted`, any
    /// other is `inconclusive`.
    pub fn sprt(&self, status: RunStatus) -> Option<SprtSummary> {
        let (s, r) = self.sprt.as_ref()?;
        let decision = match (self.decision(), status) {
            (Some(SprtDecision::H0), _) => SprtVerdict::H0,
            (Some(_), _) => SprtVerdict::H1,
            (None, RunStatus::Running) => SprtVerdict::Continue,
            (None, RunStatus::Interrupted) => SprtVerdict::Interrupted,
            (None, _) => SprtVerdict::Inconclusive,
        };
        let stopped = matches!(decision, SprtVerdict::H0 | SprtVerdict::H1);
        let first = &self.per_pairing[0];
        let counting = Self::sprt_counting(s, self.counting);
        Some(SprtSummary {
            elo0: s.elo0,
            elo1: s.elo1,
            alpha: s.alpha,
            beta: s.beta,
            model: s.model,
            llr: r.llr,
            lower: r.lower,
            upper: r.upper,
            decision,
            pairs: self.per_pairing[0].pairs,
            counting,
            games: self.per_pairing[0].wdl.games(),
            unbiased: stopped
                .then(|| match counting {
                    Counting::Pentanomial => s.unbiased_penta(&first.penta, UNBIASED_CONFIDENCE),
                    Counting::Trinomial => s.unbiased_wdl(&first.wdl, UNBIASED_CONFIDENCE),
                })
                .flatten(),
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::config::TournamentKind;
    use crate::play::game::GameResult;
    use crate::run::ledger::GameEntry;
    use crate::run::pairings;

    pub(crate) fn pair(
        pairing: usize,
        first: usize,
        second: usize,
        r: [GameResult; 2],
    ) -> PairEntry {
        let g = |white, black, result| GameEntry {
            white,
            black,
            result,
            termination: Termination::Mate,
            plies: 10,
            warnings: [0, 0],
        };
        PairEntry {
            pair: 0,
            pairing,
            first,
            second,
            opening: None,
            games: vec![g(first, second, r[0]), g(second, first, r[1])],
        }
    }

    #[test]
    fn statuses_serialise_as_before() {
        for (s, text) in [
            (RunStatus::Running, "running"),
            (RunStatus::Finished, "finished"),
            (RunStatus::Stopped, "stopped"),
            (RunStatus::Interrupted, "interrupted"),
            (RunStatus::Halted, "halted"),
        ] {
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{text}\""));
            assert_eq!(s.as_str(), text);
        }
        for (v, text) in [
            (SprtVerdict::H0, "H0"),
            (SprtVerdict::H1, "H1"),
            (SprtVerdict::Continue, "continue"),
            (SprtVerdict::Inconclusive, "inconclusive"),
            (SprtVerdict::Interrupted, "interrupted"),
        ] {
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{text}\""));
        }
    }

    #[test]
    fn sprt_stops_on_lopsided_results() {
        use GameResult::*;
        let sprt = SprtParams {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
            model: crate::stats::EloModel::Logistic,
        };
        let mut t = Tally::new(pairings(TournamentKind::Match, 2), Some(sprt));
        let mut decided_at = None;
        for i in 0..1000 {
            // First engine wins every pair 2-0 or 1.5-0.5.
            let r = if i % 2 == 0 {
                [WhiteWins, BlackWins]
            } else {
                [Draw, BlackWins]
            };
            if let Some(d) = t.add(&pair(0, 0, 1, r)) {
                decided_at = Some((i, d));
                break;
            }
        }
        let (i, d) = decided_at.expect("decides");
        assert_eq!(d, SprtDecision::H1);
        assert!(i < 500, "{i}");
        assert_eq!(
            t.sprt(RunStatus::Stopped).unwrap().decision,
            SprtVerdict::H1
        );
        // Counting stops at the decision.
        let pairs = t.pairs;
        t.add(&pair(0, 0, 1, [BlackWins, WhiteWins]));
        assert_eq!(t.pairs, pairs);
    }

    #[test]
    fn bayeselo_sprt_counts_games_and_estimates_stay_pentanomial() {
        use GameResult::*;
        let sprt = SprtParams::new(0.0, 5.0, 0.05, 0.05, crate::stats::EloModel::Bayesian).unwrap();
        let mut t = Tally::new(pairings(TournamentKind::Match, 2), Some(sprt));
        let results = [
            [WhiteWins, Draw],
            [Draw, Draw],
            [BlackWins, BlackWins],
            [WhiteWins, WhiteWins],
        ];
        for i in 0..40 {
            assert!(t.add(&pair(0, 0, 1, results[i % 4])).is_none());
            let s = t.sprt(RunStatus::Running).unwrap();
            let first = &t.per_pairing[0];
            assert_eq!(s.counting, Counting::Trinomial);
            assert_eq!(s.llr, sprt.llr_wdl(&first.wdl), "pair {i}");
            assert_eq!(first.penta.pairs(), i as u64 + 1);
        }
        assert!(t.sprt(RunStatus::Running).unwrap().llr > 0.0);
        assert_eq!(t.counts(), Counting::Pentanomial);
    }

    #[test]
    fn undecided_sprt_reads_by_status() {
        let sprt = SprtParams::new(0.0, 5.0, 0.05, 0.05, crate::stats::EloModel::Normalized);
        let mut t = Tally::new(pairings(TournamentKind::Match, 2), Some(sprt.unwrap()));
        t.add(&pair(0, 0, 1, [GameResult::Draw, GameResult::Draw]));
        let decision = |status| t.sprt(status).unwrap().decision;
        assert_eq!(decision(RunStatus::Running), SprtVerdict::Continue);
        assert_eq!(decision(RunStatus::Interrupted), SprtVerdict::Interrupted);
        assert_eq!(decision(RunStatus::Finished), SprtVerdict::Inconclusive);
        assert_eq!(decision(RunStatus::Halted), SprtVerdict::Inconclusive);
    }
}
