//! The match summary: counts, Elo estimates, termination breakdown, SPRT
//! state, per-pairing tables and a combined rating list, computed from the
//! ledger's pairs ([`Tally`]) and written to `summary.json` atomically
//! (temporary file + rename) after every pair and at the end. Every figure
//! is from the first engine's point of view, and the file says so.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::config::{MatchConfig, TournamentKind};
use crate::game::Termination;
use crate::ledger::PairEntry;
use crate::stats::{Estimate, Pentanomial, SprtDecision, SprtParams, SprtResult, Trinomial};

/// Who plays whom: `first` is the point of view of the pairing's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Pairing {
    pub first: usize,
    pub second: usize,
}

/// Two decimals, without the "-0.00" that rounding a tiny negative gives.
pub fn two_decimals(x: f64) -> String {
    let s = format!("{x:.2}");
    if s == "-0.00" {
        "0.00".to_string()
    } else {
        s
    }
}

/// The pairings of a tournament over `n` engines.
pub fn pairings(kind: TournamentKind, n: usize) -> Vec<Pairing> {
    match kind {
        TournamentKind::Match => vec![Pairing {
            first: 0,
            second: 1,
        }],
        TournamentKind::Gauntlet => (1..n)
            .map(|s| Pairing {
                first: 0,
                second: s,
            })
            .collect(),
        TournamentKind::RoundRobin => (0..n)
            .flat_map(|a| {
                (a + 1..n).map(move |b| Pairing {
                    first: a,
                    second: b,
                })
            })
            .collect(),
    }
}

/// Running counts of one pairing.
#[derive(Clone, Debug, Default)]
pub struct PairingTally {
    pub penta: Pentanomial,
    pub wdl: Trinomial,
    pub terminations: BTreeMap<Termination, u64>,
}

impl PairingTally {
    fn add(&mut self, e: &PairEntry) {
        self.penta.add(e.first_points());
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

/// SPRT state after the pairs counted so far.
#[derive(Clone, Debug, Serialize)]
pub struct SprtSummary {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: crate::stats::EloModel,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `H0`, `H1`, `continue` (still running), `inconclusive` (the game
    /// cap or the caller's budget ran out first) or `interrupted` (stopped
    /// by a signal; `--resume` continues the test).
    pub decision: String,
    /// Pairs the LLR was computed from.
    pub pairs: u64,
}

/// Everything counted so far, in the order pairs finished.
#[derive(Clone, Debug)]
pub struct Tally {
    pub pairings: Vec<Pairing>,
    pub per_pairing: Vec<PairingTally>,
    pub pairs: u64,
    /// The SPRT and its test of the first pairing's counts, updated with
    /// every pair until a bound is crossed (no pair is counted after that).
    sprt: Option<(SprtParams, SprtResult)>,
}

impl Tally {
    pub fn new(pairings: Vec<Pairing>, sprt: Option<SprtParams>) -> Tally {
        Tally {
            per_pairing: vec![PairingTally::default(); pairings.len()],
            pairings,
            pairs: 0,
            sprt: sprt.map(|s| (s, s.test_penta(&Pentanomial::default()))),
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
        self.per_pairing[e.pairing].add(e);
        self.pairs += 1;
        if let Some((s, r)) = &mut self.sprt {
            *r = s.test_penta(&self.per_pairing[0].penta);
        }
        self.decision()
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.pairs * 2
    }

    /// Counts of the first engine over all its pairings.
    fn first_engine(&self) -> PairingTally {
        let mut t = PairingTally::default();
        for (p, pt) in self.pairings.iter().zip(&self.per_pairing) {
            if p.first == 0 {
                t.penta.merge(&pt.penta);
                t.wdl.merge(&pt.wdl);
            }
        }
        t
    }

    /// SPRT figures, if configured, for a run in `status` (see
    /// [`Summary::status`]): undecided, a running test continues, an
    /// interrupted one is `interrupted`, any other is `inconclusive`.
    pub fn sprt(&self, status: &str) -> Option<SprtSummary> {
        let (s, r) = self.sprt.as_ref()?;
        let decision = match (self.decision(), status) {
            (Some(d), _) => d.as_str(),
            (None, "running") => "continue",
            (None, "interrupted") => "interrupted",
            (None, _) => "inconclusive",
        }
        .to_string();
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
            pairs: self.per_pairing[0].penta.pairs(),
        })
    }
}

/// One pairing's table row.
#[derive(Clone, Debug, Serialize)]
pub struct PairingSummary {
    pub first: String,
    pub second: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub pentanomial: [u64; 5],
    pub estimate: Estimate,
}

/// One line of the combined rating list.
#[derive(Clone, Debug, Serialize)]
pub struct Rating {
    pub name: String,
    pub games: u64,
    /// Points scored (a draw is half a point).
    pub points: f64,
    /// Elo relative to the first engine (which is 0), by maximum likelihood
    /// over all games (Bradley-Terry; draws count half).
    pub elo: f64,
}

/// The content of `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub name: String,
    /// `running`, `finished` (all games played), `stopped` (SPRT decided),
    /// `interrupted` (Ctrl-C or SIGTERM; `--resume` continues) or `halted`
    /// (the caller's budget, e.g. `gate.max_minutes`, ran out).
    pub status: String,
    /// Whose view the W/D/L, Elo, LOS and SPRT figures take.
    pub point_of_view: String,
    pub engines: Vec<String>,
    pub tournament: TournamentKind,
    pub time_control: String,
    pub seed: u64,
    /// Games counted over all pairings (every game in `games.pgn` and in
    /// the ledger). With more than two engines this is more than the first
    /// engine played: see `first_engine_games`.
    pub games: u64,
    /// Game pairs counted over all pairings.
    pub pairs: u64,
    /// Games of the first engine: what `wins`, `draws`, `losses`,
    /// `pentanomial` and the Elo figures count (equal to `games` in a match
    /// between two engines).
    pub first_engine_games: u64,
    /// Games per pairing planned (with SPRT: the cap).
    pub max_games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// `[LL, LD, DD+WL, DW, WW]` game pairs.
    pub pentanomial: [u64; 5],
    pub score: f64,
    pub elo: f64,
    /// Symmetric 95% half-width.
    pub elo_error: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    pub los: f64,
    pub nelo: f64,
    pub nelo_error: f64,
    /// Fraction of drawn games.
    pub draw_ratio: f64,
    /// How games ended, every kind listed.
    pub terminations: BTreeMap<String, u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSummary>,
    pub pairings: Vec<PairingSummary>,
    pub ratings: Vec<Rating>,
}

/// Ratings by Bradley-Terry maximum likelihood (minorisation-maximisation),
/// with one virtual draw against every opponent met so that a perfect or
/// zero score stays finite.
fn ratings(names: &[String], t: &Tally) -> Vec<Rating> {
    let n = names.len();
    let mut games = vec![vec![0f64; n]; n];
    let mut points = vec![0f64; n];
    let mut played = vec![0u64; n];
    for (p, pt) in t.pairings.iter().zip(&t.per_pairing) {
        let g = pt.wdl.games() as f64;
        if g == 0.0 {
            continue;
        }
        let first_pts = pt.wdl.points();
        points[p.first] += first_pts;
        points[p.second] += g - first_pts;
        played[p.first] += pt.wdl.games();
        played[p.second] += pt.wdl.games();
        games[p.first][p.second] += g + 1.0;
        games[p.second][p.first] += g + 1.0;
    }
    let mut strength = vec![1f64; n];
    for _ in 0..2000 {
        let mut next = strength.clone();
        for i in 0..n {
            let denom: f64 = (0..n)
                .filter(|&j| games[i][j] > 0.0)
                .map(|j| games[i][j] / (strength[i] + strength[j]))
                .sum();
            if denom > 0.0 {
                // Virtual draws: half a point per opponent met.
                let virt = (0..n).filter(|&j| games[i][j] > 0.0).count() as f64 * 0.5;
                next[i] = (points[i] + virt) / denom;
            }
        }
        strength = next;
    }
    let anchor = strength[0];
    names
        .iter()
        .enumerate()
        .map(|(i, name)| Rating {
            name: name.clone(),
            games: played[i],
            points: points[i],
            elo: 400.0 * (strength[i] / anchor).log10(),
        })
        .collect()
}

impl Summary {
    /// Build the summary of `tally` for `cfg`. `status` as documented on the
    /// field.
    pub fn build(cfg: &MatchConfig, tally: &Tally, status: &str) -> Summary {
        let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
        let first = tally.first_engine();
        let est = first.penta.estimate();
        let mut terminations: BTreeMap<String, u64> = Termination::ALL
            .iter()
            .map(|t| (t.key().to_string(), 0))
            .collect();
        for pt in &tally.per_pairing {
            for (t, n) in &pt.terminations {
                *terminations.entry(t.key().to_string()).or_default() += n;
            }
        }
        let pairings = tally
            .pairings
            .iter()
            .zip(&tally.per_pairing)
            .map(|(p, pt)| PairingSummary {
                first: names[p.first].clone(),
                second: names[p.second].clone(),
                games: pt.wdl.games(),
                wins: pt.wdl.wins,
                draws: pt.wdl.draws,
                losses: pt.wdl.losses,
                pentanomial: pt.penta.0,
                estimate: pt.penta.estimate(),
            })
            .collect();
        let view = match cfg.tournament {
            TournamentKind::Match => format!(
                "{} (first engine) against {}: wins, Elo and LOS above 0 favour {}",
                names[0], names[1], names[0]
            ),
            _ => format!(
                "wins, draws, losses, pentanomial, Elo, LOS: {} (first engine) over its \
                 first_engine_games games; games and pairs: all pairings; each pairing: its first engine",
                names[0]
            ),
        };
        Summary {
            name: cfg.name.clone(),
            status: status.to_string(),
            point_of_view: view,
            engines: names.clone(),
            tournament: cfg.tournament,
            time_control: cfg.settings.tc.to_string(),
            seed: cfg.seed,
            games: tally.games(),
            pairs: tally.pairs,
            first_engine_games: first.wdl.games(),
            max_games: cfg.games,
            wins: first.wdl.wins,
            draws: first.wdl.draws,
            losses: first.wdl.losses,
            pentanomial: first.penta.0,
            score: est.score,
            elo: est.elo,
            elo_error: est.elo_error,
            elo_low: est.elo_low,
            elo_high: est.elo_high,
            los: est.los,
            nelo: est.nelo,
            nelo_error: est.nelo_error,
            // Drawn games over all games: the counts are exact here, unlike
            // the pentanomial bound, which counts WL pairs as draws.
            draw_ratio: first.wdl.draw_ratio(),
            terminations,
            sprt: tally.sprt(status),
            pairings,
            ratings: ratings(&names, tally),
        }
    }

    /// Write as pretty JSON to `path` atomically (temporary file, fsync,
    /// rename), so a reader never sees half a summary.
    pub fn write_atomic(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("json.tmp");
        let mut f = std::fs::File::create(&tmp)?;
        let mut text = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        text.push(b'\n');
        f.write_all(&text)?;
        f.sync_data()?;
        drop(f);
        std::fs::rename(&tmp, path)
    }

    /// The one-line progress message.
    pub fn progress_line(&self) -> String {
        let mut s = format!(
            "W {} D {} L {}  Elo {:+.1} +- {:.1}",
            self.wins, self.draws, self.losses, self.elo, self.elo_error
        );
        if let Some(sp) = &self.sprt {
            let _ = write!(s, "  LLR {:.2} ({:.2}, {:.2})", sp.llr, sp.lower, sp.upper);
        }
        s
    }

    /// The result block for a terminal or a commit message.
    pub fn text_block(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "Match | {} ({})", self.name, self.point_of_view);
        let _ = writeln!(
            s,
            "Elo   | {:.2} +- {:.2} (95%)  nElo {:.2} +- {:.2}  LOS {:.1}%",
            self.elo,
            self.elo_error,
            self.nelo,
            self.nelo_error,
            self.los * 100.0
        );
        if let Some(sp) = &self.sprt {
            let _ = writeln!(
                s,
                "SPRT  | {} [{:.2}, {:.2}] {} alpha={} beta={}",
                self.time_control,
                sp.elo0,
                sp.elo1,
                sp.model.name(),
                sp.alpha,
                sp.beta
            );
            let verdict = match sp.decision.as_str() {
                "H0" | "H1" => format!("{} accepted", sp.decision),
                other => other.to_string(),
            };
            let _ = writeln!(
                s,
                "LLR   | {:.2} ({:.2}, {:.2}) {verdict}",
                sp.llr, sp.lower, sp.upper
            );
        } else {
            let _ = writeln!(s, "TC    | {}", self.time_control);
        }
        let _ = writeln!(
            s,
            "Games | N: {} W: {} L: {} D: {}  draw ratio {:.1}%",
            self.first_engine_games,
            self.wins,
            self.losses,
            self.draws,
            self.draw_ratio * 100.0
        );
        if self.first_engine_games != self.games {
            let _ = writeln!(
                s,
                "      | counts above: {}'s games only; {} games in all pairings",
                self.engines[0], self.games
            );
        }
        let p = self.pentanomial;
        let _ = writeln!(
            s,
            "Penta | [{}, {}, {}, {}, {}]",
            p[0], p[1], p[2], p[3], p[4]
        );
        let ends: Vec<String> = self
            .terminations
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(s, "Ends  | {}", ends.join(", "));
        if self.pairings.len() > 1 {
            let _ = writeln!(s, "Pairings (first engine's view):");
            for p in &self.pairings {
                let _ = writeln!(
                    s,
                    "  {:>16} vs {:<16} N {:>6}  W {:>5} D {:>5} L {:>5}  Elo {:+7.1} +- {:.1}",
                    p.first,
                    p.second,
                    p.games,
                    p.wins,
                    p.draws,
                    p.losses,
                    p.estimate.elo,
                    p.estimate.elo_error
                );
            }
            let mut r = self.ratings.clone();
            r.sort_by(|a, b| b.elo.total_cmp(&a.elo));
            let _ = writeln!(s, "Ratings (relative to {}):", self.engines[0]);
            for (i, x) in r.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "  {:>2}. {:<16} {:+7.1}  {:>7.1}/{}",
                    i + 1,
                    x.name,
                    x.elo,
                    x.points,
                    x.games
                );
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameResult;
    use crate::ledger::GameEntry;

    fn pair(pairing: usize, first: usize, second: usize, r: [GameResult; 2]) -> PairEntry {
        let g = |white, black, result| GameEntry {
            white,
            black,
            result,
            termination: Termination::Mate,
            plies: 10,
        };
        PairEntry {
            pair: 0,
            pairing,
            first,
            second,
            opening: None,
            games: [g(first, second, r[0]), g(second, first, r[1])],
        }
    }

    #[test]
    fn pairings_shapes() {
        assert_eq!(pairings(TournamentKind::Match, 2).len(), 1);
        assert_eq!(pairings(TournamentKind::Gauntlet, 4).len(), 3);
        let rr = pairings(TournamentKind::RoundRobin, 4);
        assert_eq!(rr.len(), 6);
        assert!(rr.contains(&Pairing {
            first: 2,
            second: 3
        }));
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
        assert_eq!(t.sprt("stopped").unwrap().decision, "H1");
        // Counting stops at the decision.
        let pairs = t.pairs;
        t.add(&pair(0, 0, 1, [BlackWins, WhiteWins]));
        assert_eq!(t.pairs, pairs);
    }

    #[test]
    fn undecided_sprt_reads_by_status() {
        let sprt = SprtParams::new(0.0, 5.0, 0.05, 0.05, crate::stats::EloModel::Normalized);
        let mut t = Tally::new(pairings(TournamentKind::Match, 2), Some(sprt.unwrap()));
        t.add(&pair(0, 0, 1, [GameResult::Draw, GameResult::Draw]));
        let decision = |status| t.sprt(status).unwrap().decision;
        assert_eq!(decision("running"), "continue");
        assert_eq!(decision("interrupted"), "interrupted");
        assert_eq!(decision("finished"), "inconclusive");
        assert_eq!(decision("halted"), "inconclusive");
    }

    #[test]
    fn ratings_order_engines() {
        use GameResult::*;
        let mut t = Tally::new(pairings(TournamentKind::RoundRobin, 3), None);
        // 0 beats 1, 1 beats 2, 0 beats 2 (mostly).
        for _ in 0..10 {
            t.add(&pair(0, 0, 1, [WhiteWins, Draw]));
            t.add(&pair(1, 0, 2, [WhiteWins, BlackWins]));
            t.add(&pair(2, 1, 2, [WhiteWins, Draw]));
        }
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        let r = ratings(&names, &t);
        assert_eq!(r[0].elo, 0.0);
        assert!(r[1].elo < 0.0 && r[2].elo < r[1].elo, "{r:?}");
        assert_eq!(r[0].games, 40);
        assert_eq!(r[0].points, 35.0);
    }
}
