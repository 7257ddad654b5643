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
use crate::play::game::Termination;
use crate::run::tally::{PairingTally, RunStatus, SprtSummary, SprtVerdict, Tally};
use crate::stats::two_decimals;
use crate::stats::{fmt_opt, Counting, Estimate};

/// One pairing's table row.
#[derive(Clone, Debug, Serialize)]
pub struct PairingSummary {
    /// Name of the pairing's first engine, whose view the figures take.
    pub first: String,
    /// Name of its opponent.
    pub second: String,
    /// Games counted in the pairing.
    pub games: u64,
    /// Games `first` won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games `first` lost.
    pub losses: u64,
    /// `null` when the games are counted one by one (see [`Summary::counting`]).
    pub pentanomial: Option<[u64; 5]>,
    /// Elo, its error bars, LOS and nElo of `first` from these counts.
    pub estimate: Estimate,
}

/// One line of the combined rating list.
#[derive(Clone, Debug, Serialize)]
pub struct Rating {
    /// The engine's name in the config.
    pub name: String,
    /// Games it played, over all its pairings.
    pub games: u64,
    /// Points scored (a draw is half a point).
    pub points: f64,
    /// Elo relative to the first engine (which is 0), by maximum likelihood
    /// over all games (Bradley-Terry; draws count half).
    pub elo: f64,
}

/// `+12.3` / `-4.0` / `n/a`.
fn signed(x: Option<f64>, decimals: usize) -> String {
    match x {
        Some(v) if fmt_opt(Some(v), decimals).starts_with('-') => fmt_opt(Some(v), decimals),
        Some(v) => format!("+{}", fmt_opt(Some(v), decimals)),
        None => "n/a".to_string(),
    }
}

/// `55.0%`, or `n/a` for a figure that does not exist (no games).
pub fn percent(x: Option<f64>) -> String {
    x.map_or_else(
        || "n/a".to_string(),
        |v| format!("{}%", fmt_opt(Some(v * 100.0), 1)),
    )
}

/// The content of `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Run name (the config's `name`).
    pub name: String,
    /// `running`, `finished` (all games played), `stopped` (SPRT decided),
    /// `interrupted` (Ctrl-C or SIGTERM; `--resume` continues) or `halted`
    /// (the caller's budget, e.g. `gate.max_minutes`, ran out).
    pub status: RunStatus,
    /// Whose view the W/D/L, Elo, LOS and SPRT figures take.
    pub point_of_view: String,
    /// Engine names, in config order.
    pub engines: Vec<String>,
    /// How the engines were paired.
    pub tournament: TournamentKind,
    /// The time control as written in the config (`nodes=1000`, `10+0.1`, ...).
    pub time_control: String,
    /// The seed the run used (given or drawn).
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
    /// Games the first engine won, over all its pairings (the point of view).
    pub wins: u64,
    /// Games the first engine drew, over all its pairings.
    pub draws: u64,
    /// Games the first engine lost, over all its pairings.
    pub losses: u64,
    /// `pentanomial` (colour-swapped game pairs, the default) or
    /// `trinomial` (one game per opening, or pairs without the colour
    /// swap: W/D/L counts and estimates, as fastchess counts them).
    pub counting: Counting,
    /// `[LL, LD, DD+WL, DW, WW]` game pairs; `null` when `counting` is
    /// `trinomial`.
    pub pentanomial: Option<[u64; 5]>,
    /// The first engine's Elo, LOS, nElo and score from its pentanomial
    /// (or, trinomial, W/D/L) counts, as each pairing's `estimate`; its figures are `null` where
    /// the counts cannot support them (see [`Estimate`]). `draw_ratio` is
    /// exact here, drawn games over games, not the pentanomial bound.
    pub estimate: Estimate,
    /// How games ended, every kind listed.
    pub terminations: BTreeMap<String, u64>,
    /// The SPRT's state (`None` without an `sprt:` section).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSummary>,
    /// One row per pairing, in schedule order.
    pub pairings: Vec<PairingSummary>,
    /// The combined rating list, one line per engine.
    pub ratings: Vec<Rating>,
    /// PV warnings per engine name, engines with none left out (absent
    /// from `summary.json` when there are none): what `checks.strict`
    /// turns into exit status 1.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub warnings: BTreeMap<String, u64>,
    /// Pairs of one win and one loss among `pentanomial`'s middle cell
    /// (for fastchess's WL/DD ratio; not in `summary.json`).
    #[serde(skip)]
    pub win_loss_pairs: u64,
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
    pub fn build(cfg: &MatchConfig, tally: &Tally, status: RunStatus) -> Summary {
        let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
        let first = tally.first_engine();
        let counting = tally.counts();
        let penta = |pt: &PairingTally| (counting == Counting::Pentanomial).then_some(pt.penta.0);
        let estimate = |pt: &PairingTally| match counting {
            Counting::Pentanomial => pt.penta.estimate(),
            Counting::Trinomial => pt.wdl.estimate(),
        };
        let est = estimate(&first);
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
                pentanomial: penta(pt),
                estimate: Estimate {
                    // Exact from the games, not the pentanomial bound.
                    draw_ratio: (pt.wdl.games() > 0).then(|| pt.wdl.draw_ratio()),
                    ..estimate(pt)
                },
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
            status,
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
            counting,
            pentanomial: penta(&first),
            estimate: Estimate {
                // Drawn games over all games: the counts are exact here,
                // unlike the pentanomial bound, which counts WL pairs as draws.
                draw_ratio: (first.wdl.games() > 0).then(|| first.wdl.draw_ratio()),
                ..est
            },
            terminations,
            sprt: tally.sprt(status),
            pairings,
            ratings: ratings(&names, tally),
            warnings: tally
                .warnings
                .iter()
                .map(|(&i, &n)| (names[i].clone(), n))
                .collect(),
            win_loss_pairs: first.win_loss_pairs,
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
            "W {} D {} L {}  Score {}  Elo {} +- {}",
            self.wins,
            self.draws,
            self.losses,
            percent(self.estimate.score),
            signed(self.estimate.elo, 1),
            fmt_opt(self.estimate.elo_error, 1)
        );
        if let Some(sp) = &self.sprt {
            let _ = write!(
                s,
                "  LLR {} ({}, {})",
                two_decimals(sp.llr),
                two_decimals(sp.lower),
                two_decimals(sp.upper)
            );
        }
        s
    }

    /// The result block for a terminal or a commit message.
    pub fn text_block(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "Match | {} ({})", self.name, self.point_of_view);
        let _ = writeln!(
            s,
            "Elo   | {} +- {} (95%)  nElo {} +- {}  LOS {}",
            fmt_opt(self.estimate.elo, 2),
            fmt_opt(self.estimate.elo_error, 2),
            fmt_opt(self.estimate.nelo, 2),
            fmt_opt(self.estimate.nelo_error, 2),
            self.estimate
                .los
                .map_or_else(|| "n/a".to_string(), |l| format!("{:.1}%", l * 100.0))
        );
        if let Some(sp) = &self.sprt {
            let counts = match sp.counting {
                Counting::Pentanomial => "",
                Counting::Trinomial => " trinomial",
            };
            let _ = writeln!(
                s,
                "SPRT  | {} [{:.2}, {:.2}] {}{counts} alpha={} beta={}",
                self.time_control,
                sp.elo0,
                sp.elo1,
                sp.model.name(),
                sp.alpha,
                sp.beta
            );
            let verdict = match sp.decision {
                SprtVerdict::H0 | SprtVerdict::H1 => format!("{} accepted", sp.decision),
                other => other.to_string(),
            };
            let _ = writeln!(
                s,
                "LLR   | {} ({}, {}) {verdict}",
                two_decimals(sp.llr),
                two_decimals(sp.lower),
                two_decimals(sp.upper)
            );
            if let Some(u) = &sp.unbiased {
                let _ = writeln!(s, "{}", u.line());
            }
        } else {
            let _ = writeln!(s, "TC    | {}", self.time_control);
        }
        let _ = writeln!(
            s,
            "Games | N: {} W: {} L: {} D: {}  draw ratio {}",
            self.first_engine_games,
            self.wins,
            self.losses,
            self.draws,
            percent(self.estimate.draw_ratio)
        );
        if self.first_engine_games != self.games {
            let _ = writeln!(
                s,
                "      | counts above: {}'s games only; {} games in all pairings",
                self.engines[0], self.games
            );
        }
        match self.pentanomial {
            Some(p) => {
                let _ = writeln!(
                    s,
                    "Penta | [{}, {}, {}, {}, {}]",
                    p[0], p[1], p[2], p[3], p[4]
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "Penta | none: the games are not colour-swapped pairs; W/D/L (trinomial) counts"
                );
            }
        }
        let ends: Vec<String> = self
            .terminations
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(s, "Ends  | {}", ends.join(", "));
        if !self.warnings.is_empty() {
            let per: Vec<String> = self
                .warnings
                .iter()
                .map(|(name, n)| format!("{name} {n}"))
                .collect();
            let _ = writeln!(
                s,
                "Warns | {} (PV warnings, in warnings.log)",
                per.join(", ")
            );
        }
        if self.pairings.len() > 1 {
            let _ = writeln!(s, "Pairings (first engine's view):");
            for p in &self.pairings {
                let _ = writeln!(
                    s,
                    "  {:>16} vs {:<16} N {:>6}  W {:>5} D {:>5} L {:>5}  Elo {:>7} +- {}",
                    p.first,
                    p.second,
                    p.games,
                    p.wins,
                    p.draws,
                    p.losses,
                    signed(p.estimate.elo, 1),
                    fmt_opt(p.estimate.elo_error, 1)
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
    use crate::play::game::GameResult;
    use crate::run::pairings;
    use crate::run::tally::tests::pair;

    fn two_engines() -> MatchConfig {
        let yaml = "engines:\n  - { name: a, type: inprocess }\n  - { name: b, type: inprocess }\n\
                    time_control: nodes=100\ngames: 10\nseed: 1\n";
        MatchConfig::from_yaml(
            yaml,
            Path::new("/tmp/x.yaml"),
            &crate::config::Overrides::default(),
        )
        .unwrap()
    }

    #[test]
    fn a_split_pair_is_no_draw_in_either_draw_ratio() {
        use GameResult::*;
        let mut t = Tally::new(pairings(TournamentKind::Match, 2), None);
        // The first engine wins with White and loses with Black.
        t.add(&pair(0, 0, 1, [WhiteWins, WhiteWins]));
        let s = Summary::build(&two_engines(), &t, RunStatus::Finished);
        assert_eq!(s.pentanomial, Some([0, 0, 1, 0, 0]));
        assert_eq!((s.wins, s.draws, s.losses), (1, 0, 1));
        // The pentanomial bound would count the WL pair as two draws.
        assert_eq!(s.pairings[0].estimate.draw_ratio, Some(0.0));
        assert_eq!(s.estimate.draw_ratio, Some(0.0));
    }

    #[test]
    fn no_games_no_score_and_no_draw_ratio() {
        let t = Tally::new(pairings(TournamentKind::Match, 2), None);
        let s = Summary::build(&two_engines(), &t, RunStatus::Running);
        assert_eq!((s.estimate.score, s.estimate.draw_ratio), (None, None));
        assert_eq!(s.pairings[0].estimate.score, None);
        assert_eq!(s.pairings[0].estimate.draw_ratio, None);
        let json = serde_json::to_value(&s).unwrap();
        assert!(
            json["estimate"]["score"].is_null() && json["estimate"]["draw_ratio"].is_null(),
            "the keys exist: {json}"
        );
        assert!(
            json["estimate"]
                .as_object()
                .is_some_and(|e| e.contains_key("score") && e.contains_key("draw_ratio")),
            "{json}"
        );
        let text = s.text_block();
        assert!(text.contains("D: 0  draw ratio n/a"), "{text}");
    }

    #[test]
    fn the_progress_line_has_the_score_and_no_negative_zero() {
        use GameResult::*;
        let mut t = Tally::new(
            pairings(TournamentKind::Match, 2),
            Some(
                crate::stats::SprtParams::new(
                    0.0,
                    5.0,
                    0.05,
                    0.05,
                    crate::stats::EloModel::Normalized,
                )
                .unwrap(),
            ),
        );
        t.add(&pair(0, 0, 1, [WhiteWins, Draw]));
        let mut s = Summary::build(&two_engines(), &t, RunStatus::Running);
        let line = s.progress_line();
        assert!(line.starts_with("W 1 D 1 L 0  Score 75.0%  Elo "), "{line}");
        if let Some(sp) = s.sprt.as_mut() {
            sp.llr = -0.001;
        }
        let line = s.progress_line();
        assert!(line.contains("LLR 0.00 (-2.94, 2.94)"), "{line}");
        let block = s.text_block();
        assert!(block.contains("LLR   | 0.00 (-2.94, 2.94)"), "{block}");
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
