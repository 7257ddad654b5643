//! fastchess's and cutechess-cli's result text (`output.format`, fastchess
//! `-output format=`): the interim block every `rating_interval` games, the
//! `Score of` line every `score_interval` games (cutechess) and the final
//! block, worded, ordered and rounded as fastchess 74deac2 prints them
//! (`output_fastchess.hpp`, `output_cutechess.hpp`), so that scripts and
//! workers that read those tools' output read Karsinta's. The figures are
//! fastchess's own formulas on the counts of a [`Summary`] (plain
//! frequencies, no regularised empty cells; `nan` and `inf` where they
//! break down, as fastchess prints them); the LLR is Karsinta's SPRT on the
//! same counts (pentanomial, or W/D/L when the figures are).

use std::fmt::Write as _;

use statrs::function::erf::erf;

use super::summary::Summary;
use crate::config::{MatchConfig, OutputFormat, OutputStyle};
use crate::play::clock::{TimeControl, Timed};
use crate::play::game::fastchess_reason;
use crate::players::{fmt_secs, PlayerSpec};
use crate::run::ledger::PairEntry;
use crate::run::tally::RunStatus;
use crate::stats::{EloModel, Pentanomial, SprtParams, Trinomial};

/// fastchess's `CI95ZSCORE`.
const Z95: f64 = 1.959963984540054;

/// W/D/L and (for pairs) the five pair cells `[LL, LD, WL+DD, WD, WW]` with
/// the WL pairs apart, as fastchess's `Stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    /// Games won, lost, drawn.
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
    /// Games drawn.
    pub draws: u64,
    /// Pair cells, when the games are colour-swapped pairs.
    pub penta: Option<[u64; 5]>,
    /// Pairs of one win and one loss (in `penta[2]` with the drawn pairs).
    pub win_loss_pairs: u64,
}

impl Counts {
    fn games(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// The counts from the other engine's side.
    fn inverted(&self) -> Counts {
        Counts {
            wins: self.losses,
            losses: self.wins,
            penta: self.penta.map(|mut p| {
                p.reverse();
                p
            }),
            ..*self
        }
    }

    fn add(&mut self, o: &Counts) {
        self.wins += o.wins;
        self.losses += o.losses;
        self.draws += o.draws;
        self.win_loss_pairs += o.win_loss_pairs;
        self.penta = match (self.penta, o.penta) {
            (Some(a), Some(b)) => Some(std::array::from_fn(|i| a[i] + b[i])),
            (a, b) => a.or(b),
        };
    }
}

/// fastchess's Elo figures of one set of counts (`EloWDL` or `EloPentanomial`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToolElo {
    /// Mean score per game.
    pub score: f64,
    /// Logistic Elo and the half-width of its 95% interval.
    pub elo: f64,
    /// Half-width of the Elo interval.
    pub error: f64,
    /// Normalized Elo and its half-width.
    pub nelo: f64,
    /// Half-width of the nElo interval.
    pub nelo_error: f64,
    /// Likelihood of superiority, in percent.
    pub los: f64,
}

fn score_to_elo(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

impl ToolElo {
    /// fastchess's `EloPentanomial` (`penta`) or `EloWDL` figures.
    pub fn of(c: &Counts, penta: bool) -> ToolElo {
        let (cells, scores, n, nelo_scale): (Vec<f64>, &[f64], f64, f64) = match c.penta {
            Some(p) if penta => (
                p.iter().map(|&x| x as f64).collect(),
                &[0.0, 0.25, 0.5, 0.75, 1.0],
                p.iter().sum::<u64>() as f64,
                2.0,
            ),
            _ => (
                vec![c.losses as f64, c.draws as f64, c.wins as f64],
                &[0.0, 0.5, 1.0],
                c.games() as f64,
                1.0,
            ),
        };
        let score: f64 = cells.iter().zip(scores).map(|(k, a)| k / n * a).sum();
        let variance: f64 = cells
            .iter()
            .zip(scores)
            .map(|(k, a)| k / n * (a - score).powi(2))
            .sum();
        let per_unit = variance / n;
        let (upper, lower) = (score + Z95 * per_unit.sqrt(), score - Z95 * per_unit.sqrt());
        let nelo = |s: f64| (s - 0.5) / (nelo_scale * variance).sqrt() * (800.0 / 10f64.ln());
        ToolElo {
            score,
            elo: score_to_elo(score),
            error: (score_to_elo(upper) - score_to_elo(lower)) / 2.0,
            nelo: nelo(score),
            nelo_error: (nelo(upper) - nelo(lower)) / 2.0,
            los: (1.0 - erf(-(score - 0.5) / (2.0 * per_unit).sqrt())) / 2.0 * 100.0,
        }
    }
}

/// `x` with `d` decimals as fmt (C++) prints it: `nan`, `inf`, `-inf`.
fn f(x: f64, d: usize) -> String {
    if x.is_nan() {
        "nan".to_string()
    } else {
        format!("{x:.d$}")
    }
}

/// `x` with at most two significant digits, as fmt's `{:.2g}` for the
/// increments fastchess prints (`0.08`, `0.1`, `1`).
fn two_significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let decimals = (1 - x.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// fastchess's `getTime`: `8+0.08`, `40/60+0.6`, `0.05/move`, `7 plies`,
/// `5000 nodes` (the clock first, then time per move, depth, nodes).
fn time_text(tc: &TimeControl) -> String {
    match tc.timed() {
        Some(Timed::Clock { moves, base, inc }) => {
            let moves = moves.map_or_else(String::new, |m| format!("{m}/"));
            let inc = if inc.is_zero() {
                String::new()
            } else {
                format!("+{}", two_significant(inc.as_secs_f64()))
            };
            format!("{moves}{}{inc}", fmt_secs(base))
        }
        Some(Timed::MoveTime(t)) => format!("{}/move", fmt_secs(t)),
        None => match (tc.depth(), tc.nodes()) {
            (Some(d), _) => format!("{d} plies"),
            (None, Some(n)) => format!("{n} nodes"),
            (None, None) => String::new(),
        },
    }
}

/// An engine's configured option `name` with `unit` (`1t`, `16MB`), or
/// fastchess's `NULL`.
fn option_text(spec: &PlayerSpec, name: &str, unit: &str) -> String {
    spec.options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map_or_else(|| "NULL".to_string(), |(_, v)| format!("{v}{unit}"))
}

/// `a` when both sides agree, else `a - b`, as fastchess joins them.
fn both(a: String, b: String) -> String {
    if a == b {
        a
    } else {
        format!("{a} - {b}")
    }
}

/// The result text of one run in fastchess's or cutechess's form, and
/// when it is due.
#[derive(Clone, Debug)]
pub struct ResultLines {
    style: OutputStyle,
    names: Vec<String>,
    /// `8+0.08, 1t, 16MB, book.epd` of `Results of A vs B (...)`.
    matchup: String,
    sprt: Option<SprtParams>,
    /// Units (pairs, or games) counted when the last block was printed.
    last_units: u64,
    /// Games of one unit (`colours.games_per_opening`): fastchess's game
    /// id of a unit's game `k` is `unit * games_per_opening + k + 1`.
    games_per_opening: u64,
    /// Games of each pairing (`games`).
    games_per_pairing: u64,
}

impl ResultLines {
    /// The lines of the run `cfg`, in `cfg.output`'s style.
    pub fn new(cfg: &MatchConfig) -> ResultLines {
        let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
        let mut matchup = String::new();
        if let [a, b, ..] = cfg.engines.as_slice() {
            let tcs = [&a.name, &b.name].map(|n| time_text(&cfg.settings.tc_of(n)));
            let [ta, tb] = tcs;
            let _ = write!(
                matchup,
                "{}, {}, {}",
                both(ta, tb),
                both(
                    option_text(a, "Threads", "t"),
                    option_text(b, "Threads", "t")
                ),
                both(option_text(a, "Hash", "MB"), option_text(b, "Hash", "MB"))
            );
        }
        if let Some(name) = cfg
            .openings
            .as_ref()
            .and_then(|o| o.path.file_name())
            .and_then(|n| n.to_str())
        {
            let _ = write!(matchup, ", {name}");
        }
        let mut style = cfg.output;
        // fastchess: the BayesElo model has no pentanomial form.
        if cfg.sprt.is_some_and(|s| s.model == EloModel::Bayesian) {
            style.penta = false;
        }
        ResultLines {
            style,
            names,
            matchup,
            sprt: cfg.sprt,
            last_units: 0,
            games_per_opening: u64::from(cfg.colours.games_per_opening),
            games_per_pairing: cfg.games,
        }
    }

    /// The per-game lines of the counted unit `entry`, as both tools print
    /// them (`Started game 3 of 400 (dev vs base)`, `Finished game 3 (dev
    /// vs base): 1-0 {White mates}`), numbered by fastchess's game ids; the
    /// OpenBench and fishtest workers and many scripts count games and
    /// pair them into pentanomial cells from the `Finished game` lines.
    /// Karsinta reports a unit once it is in the ledger, so both lines of
    /// each of its games come then, in playing order. `pairings` is the
    /// run's number of pairings (the total counts every pairing's games).
    pub fn game_lines(&self, entry: &PairEntry, pairings: usize) -> String {
        let mut out = String::new();
        if self.style.format == OutputFormat::Karsinta {
            return out;
        }
        let total = self.games_per_pairing * pairings as u64;
        let name = |e: usize| self.names.get(e).map_or("?", String::as_str);
        for (k, g) in entry.games.iter().enumerate() {
            let id = entry.pair * self.games_per_opening + k as u64 + 1;
            let (w, b) = (name(g.white), name(g.black));
            let _ = writeln!(out, "Started game {id} of {total} ({w} vs {b})");
            let _ = writeln!(
                out,
                "Finished game {id} ({w} vs {b}): {} {{{}}}",
                g.result.pgn(),
                fastchess_reason(g.termination, g.result)
            );
        }
        out
    }

    /// What is due after the pair (or single game) `games` of pairing
    /// `pairing` was counted, `summary` being the state after it: the
    /// `Score of` lines of its games (cutechess) and the interim block.
    pub fn after_pair(
        &mut self,
        pairing: usize,
        game_results: &[u32],
        summary: &Summary,
    ) -> String {
        let mut out = String::new();
        if self.style.format == OutputFormat::Karsinta {
            return out;
        }
        let Some(p) = summary.pairings.get(pairing) else {
            return out;
        };
        let after = pairing_counts(summary, pairing);
        if self.style.format == OutputFormat::Cutechess && self.style.score_interval > 0 {
            // One line per game, as cutechess prints them: the pairing's
            // counts before this pair, then each game added.
            let mut c = after;
            for &h in game_results {
                match h {
                    2 => c.wins -= 1,
                    1 => c.draws -= 1,
                    _ => c.losses -= 1,
                }
            }
            let total = summary.games - game_results.len() as u64;
            for (i, &h) in game_results.iter().enumerate() {
                match h {
                    2 => c.wins += 1,
                    1 => c.draws += 1,
                    _ => c.losses += 1,
                }
                if (total + i as u64 + 1).is_multiple_of(self.style.score_interval) {
                    out.push_str(&score_line(&p.first, &p.second, &c));
                }
            }
        }
        let units = if self.style.penta {
            summary.pairs
        } else {
            summary.games
        };
        let n = self.style.rating_interval;
        if n > 0 && units / n > self.last_units / n {
            out.push_str(&self.interval(summary));
        }
        self.last_units = units;
        out
    }

    /// The block at the end: cutechess's last `Score of` line, the
    /// interim block, and fastchess's closing line (`SPRT ([0.00, 5.00])
    /// completed - H1 was accepted` or `Tournament finished`).
    pub fn final_block(&self, summary: &Summary) -> String {
        let mut out = String::new();
        if self.style.format == OutputFormat::Cutechess {
            let c = first_counts(summary);
            if let [a, b, ..] = self.names.as_slice() {
                out.push_str(&score_line(a, b, &c));
            }
        }
        out.push_str(&self.interval(summary));
        let decided = summary.sprt.as_ref().and_then(|s| match s.decision {
            crate::run::tally::SprtVerdict::H0 => Some("H0"),
            crate::run::tally::SprtVerdict::H1 => Some("H1"),
            _ => None,
        });
        match (self.style.format, decided, self.sprt) {
            (OutputFormat::Fastchess, Some(h), Some(s)) => {
                let _ = writeln!(
                    out,
                    "SPRT ([{:.2}, {:.2}]) completed - {h} was accepted",
                    s.elo0, s.elo1
                );
            }
            _ if summary.status == RunStatus::Interrupted => {}
            _ => out.push_str("Tournament finished\n"),
        }
        out
    }

    /// The interim block: fastchess's `Results of` block between dashes,
    /// or cutechess's `Elo difference` line, each with its SPRT line.
    pub fn interval(&self, summary: &Summary) -> String {
        let c = first_counts(summary);
        let mut out = String::new();
        let dashes = "-".repeat(50);
        match self.style.format {
            OutputFormat::Karsinta => return out,
            OutputFormat::Fastchess => {
                let _ = writeln!(out, "{dashes}");
                if self.names.len() == 2 {
                    out.push_str(&self.fastchess_h2h(&c));
                } else {
                    out.push_str(&self.table(summary));
                }
                out.push_str(&self.sprt_line(&c));
                let _ = writeln!(out, "{dashes}");
            }
            OutputFormat::Cutechess => {
                if self.names.len() == 2 {
                    let e = ToolElo::of(&c, false);
                    let _ = writeln!(
                        out,
                        "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {} %",
                        f(e.elo, 2),
                        f(e.error, 2),
                        f(e.los, 2),
                        f(100.0 * c.draws as f64 / c.games() as f64, 2)
                    );
                } else {
                    out.push_str(&self.table(summary));
                }
                out.push_str(&self.sprt_line(&c));
            }
        }
        out
    }

    /// fastchess's head-to-head block (two engines).
    fn fastchess_h2h(&self, c: &Counts) -> String {
        let penta = self.style.penta && c.penta.is_some();
        let e = ToolElo::of(c, penta);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Results of {} vs {} ({}):",
            self.names[0], self.names[1], self.matchup
        );
        let _ = writeln!(
            out,
            "Elo: {} +/- {}, nElo: {} +/- {}",
            f(e.elo, 2),
            f(e.error, 2),
            f(e.nelo, 2),
            f(e.nelo_error, 2)
        );
        let p = c.penta.unwrap_or_default();
        let pairs: u64 = p.iter().sum();
        let draw_ratio = if penta {
            p[2] as f64 / pairs as f64 * 100.0
        } else {
            100.0 * c.draws as f64 / c.games() as f64
        };
        let _ = write!(
            out,
            "LOS: {} %, DrawRatio: {} %",
            f(e.los, 2),
            f(draw_ratio, 2)
        );
        if penta {
            let pairs_ratio = (p[3] + p[4]) as f64 / (p[0] + p[1]) as f64;
            let _ = write!(out, ", PairsRatio: {}", f(pairs_ratio, 2));
        }
        let _ = writeln!(
            out,
            "\nGames: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({} %)",
            c.games(),
            c.wins,
            c.losses,
            c.draws,
            c.points(),
            f(c.points() / c.games() as f64 * 100.0, 2)
        );
        if penta {
            let wl = c.win_loss_pairs;
            let dd = p[2] - wl;
            let _ = writeln!(
                out,
                "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {}",
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
                f(wl as f64 / dd as f64, 2)
            );
        }
        out
    }

    /// fastchess's rating table (more than two engines): every engine's
    /// games against all, best Elo first.
    fn table(&self, summary: &Summary) -> String {
        let cute = self.style.format == OutputFormat::Cutechess;
        let penta = self.style.penta && !cute;
        let mut rows: Vec<(String, ToolElo, Counts)> = self
            .names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let c = engine_counts(summary, i);
                (name.clone(), ToolElo::of(&c, penta && c.penta.is_some()), c)
            })
            .collect();
        rows.sort_by(|a, b| match (a.1.elo.is_nan(), b.1.elo.is_nan()) {
            (false, true) => std::cmp::Ordering::Less,
            (true, false) => std::cmp::Ordering::Greater,
            _ => {
                b.1.elo
                    .partial_cmp(&a.1.elo)
                    .unwrap_or(std::cmp::Ordering::Equal)
            }
        });
        let w = self
            .names
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(0)
            .max(25);
        let mut out = format!(
            "{:<4} {:<w$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "Rank", "Name", "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw"
        );
        if !cute {
            let _ = write!(out, " {:>20}", "Ptnml(0-2)");
        }
        out.push('\n');
        for (rank, (name, e, c)) in rows.iter().enumerate() {
            let p = c.penta.unwrap_or_default();
            let pairs: u64 = p.iter().sum();
            let draw = if penta && c.penta.is_some() {
                p[2] as f64 / pairs as f64 * 100.0
            } else {
                100.0 * c.draws as f64 / c.games() as f64
            };
            let _ = write!(
                out,
                "{:>4} {:<w$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9}% {:>9}%",
                rank + 1,
                name,
                f(e.elo, 2),
                f(e.error, 2),
                f(e.nelo, 2),
                f(e.nelo_error, 2),
                c.games(),
                f(c.points() / c.games() as f64 * 100.0, 1),
                f(draw, 1)
            );
            if !cute {
                let cells = if penta && c.penta.is_some() {
                    format!("[{}, {}, {}, {}, {}]", p[0], p[1], p[2], p[3], p[4])
                } else {
                    String::new()
                };
                let _ = write!(out, " {cells:>20}");
            }
            out.push('\n');
        }
        out
    }

    /// The SPRT line (two engines with an SPRT): fastchess's `LLR: 1.23
    /// (41.8%) (-2.94, 2.94) [0.00, 5.00]` or cutechess's `SPRT: llr 1.23
    /// (41.8%), lbound -2.94, ubound 2.94`.
    fn sprt_line(&self, c: &Counts) -> String {
        let Some(s) = self.sprt else {
            return String::new();
        };
        if self.names.len() != 2 {
            return String::new();
        }
        let penta = self.style.penta && self.style.format == OutputFormat::Fastchess;
        let llr = match c.penta {
            Some(p) if penta => s.llr_penta(&Pentanomial(p)),
            _ => s.llr_wdl(&Trinomial::new(c.wins, c.draws, c.losses)),
        };
        let (lower, upper) = s.bounds();
        if self.style.format == OutputFormat::Cutechess {
            let pct = if llr < 0.0 {
                llr / lower * 100.0
            } else {
                llr / upper * 100.0
            };
            let verdict = if llr >= upper {
                " - H1 was accepted"
            } else if llr < lower {
                " - H0 was accepted"
            } else {
                ""
            };
            return format!(
                "SPRT: llr {} ({}%), lbound {}, ubound {}{verdict}\n",
                f(llr, 2),
                f(pct, 1),
                f(lower, 2),
                f(upper, 2)
            );
        }
        // fastchess's getFraction: negative LLRs over the (negative) lower bound, negated.
        let fraction = if llr >= 0.0 {
            llr / upper
        } else {
            -llr / lower
        };
        format!(
            "LLR: {} ({}%) ({}, {}) [{:.2}, {:.2}]\n",
            f(llr, 2),
            f(fraction * 100.0, 1),
            f(lower, 2),
            f(upper, 2),
            s.elo0,
            s.elo1
        )
    }
}

/// cutechess's `Score of A vs B: W - L - D  [0.550] N`.
fn score_line(first: &str, second: &str, c: &Counts) -> String {
    let score = c.points() / c.games() as f64;
    format!(
        "Score of {first} vs {second}: {} - {} - {}  [{}] {}\n",
        c.wins,
        c.losses,
        c.draws,
        f(score, 3),
        c.games()
    )
}

/// The first engine's counts (what the summary's top-level figures count).
fn first_counts(s: &Summary) -> Counts {
    Counts {
        wins: s.wins,
        losses: s.losses,
        draws: s.draws,
        penta: s.pentanomial,
        win_loss_pairs: s.win_loss_pairs,
    }
}

/// Pairing `i`'s counts from its first engine's side.
fn pairing_counts(s: &Summary, i: usize) -> Counts {
    let p = &s.pairings[i];
    Counts {
        wins: p.wins,
        losses: p.losses,
        draws: p.draws,
        penta: p.pentanomial,
        win_loss_pairs: 0,
    }
}

/// Engine `e`'s counts over every pairing it plays, from its side.
fn engine_counts(s: &Summary, e: usize) -> Counts {
    let mut c = Counts::default();
    for (i, p) in s.pairings.iter().enumerate() {
        if p.first == s.engines[e] {
            c.add(&pairing_counts(s, i));
        } else if p.second == s.engines[e] {
            c.add(&pairing_counts(s, i).inverted());
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::game::{GameResult, Termination};
    use crate::run::ledger::GameEntry;

    /// Both lines of every game of a unit, with fastchess's game ids (a
    /// unit's games are `pair * games_per_opening + k + 1`), White first,
    /// and fastchess's annotation for each way a game ends.
    #[test]
    fn per_game_lines_number_and_annotate_as_fastchess() {
        let lines = ResultLines {
            style: OutputStyle {
                format: OutputFormat::Cutechess,
                ..OutputStyle::default()
            },
            names: vec!["dev".into(), "base".into()],
            matchup: String::new(),
            sprt: None,
            last_units: 0,
            games_per_opening: 2,
            games_per_pairing: 8,
        };
        let game = |white, result, termination| GameEntry {
            white,
            black: 1 - white,
            result,
            termination,
            plies: 40,
            warnings: [0, 0],
        };
        let entry = PairEntry {
            pair: 2,
            pairing: 0,
            first: 0,
            second: 1,
            opening: Some(2),
            games: vec![
                game(0, GameResult::BlackWins, Termination::Mate),
                game(1, GameResult::WhiteWins, Termination::TimeForfeit),
            ],
        };
        assert_eq!(
            lines.game_lines(&entry, 1),
            "Started game 5 of 8 (dev vs base)\n\
             Finished game 5 (dev vs base): 0-1 {Black mates}\n\
             Started game 6 of 8 (base vs dev)\n\
             Finished game 6 (base vs dev): 1-0 {Black loses on time}\n"
        );
        let cases = [
            (
                GameResult::Draw,
                Termination::Repetition,
                "Draw by 3-fold repetition",
            ),
            (
                GameResult::Draw,
                Termination::FiftyMoves,
                "Draw by fifty moves rule",
            ),
            (
                GameResult::Draw,
                Termination::Stalemate,
                "Draw by stalemate",
            ),
            (
                GameResult::Draw,
                Termination::InsufficientMaterial,
                "Draw by insufficient mating material",
            ),
            (
                GameResult::Draw,
                Termination::AdjudicationDraw,
                "Draw by adjudication",
            ),
            (
                GameResult::Draw,
                Termination::MaxMoves,
                "Draw by adjudication",
            ),
            (
                GameResult::Draw,
                Termination::Tablebase,
                "Draw by adjudication: SyzygyTB",
            ),
            (
                GameResult::BlackWins,
                Termination::Tablebase,
                "Black wins by adjudication: SyzygyTB",
            ),
            (
                GameResult::WhiteWins,
                Termination::AdjudicationResign,
                "White wins by adjudication",
            ),
            (
                GameResult::BlackWins,
                Termination::Crash,
                "White disconnects",
            ),
            (
                GameResult::WhiteWins,
                Termination::Stall,
                "Black's connection stalls",
            ),
            (
                GameResult::BlackWins,
                Termination::IllegalMove,
                "White makes an illegal move",
            ),
            (
                GameResult::WhiteWins,
                Termination::Resignation,
                "Black resigns",
            ),
        ];
        for (result, termination, text) in cases {
            assert_eq!(
                fastchess_reason(termination, result),
                text,
                "{termination:?}"
            );
        }
        // Karsinta's own output prints no per-game lines.
        let quiet = ResultLines {
            style: OutputStyle::default(),
            ..lines
        };
        assert_eq!(quiet.game_lines(&entry, 1), "");
    }

    /// fastchess's formulas on fixed counts, against values worked out by
    /// hand from `elo_wdl.cpp` and `elo_pentanomial.cpp`.
    #[test]
    fn fastchess_elo_figures() {
        let c = Counts {
            wins: 30,
            losses: 20,
            draws: 50,
            penta: Some([2, 8, 20, 15, 5]),
            win_loss_pairs: 4,
        };
        let wdl = ToolElo::of(&c, false);
        // score 0.55; variance 0.3*0.2025 + 0.5*0.0025 + 0.2*0.3025 = 0.1225.
        assert!((wdl.score - 0.55).abs() < 1e-12);
        assert!((wdl.elo - 34.86).abs() < 0.01, "{wdl:?}");
        let se = (0.1225f64 / 100.0).sqrt();
        let los = (1.0 - erf(-0.05 / (2.0 * se * se).sqrt())) / 2.0 * 100.0;
        assert!(
            (wdl.los - los).abs() < 1e-9 && (wdl.los - 92.35).abs() < 0.01,
            "{wdl:?}"
        );
        let nelo = 0.05 / 0.1225f64.sqrt() * 800.0 / 10f64.ln();
        assert!((wdl.nelo - nelo).abs() < 1e-9);
        let penta = ToolElo::of(&c, true);
        // (0 * 2 + .25 * 8 + .5 * 20 + .75 * 15 + 1 * 5) / 50 = 0.565
        assert!((penta.score - 0.565).abs() < 1e-12, "{penta:?}");
        assert!((penta.elo - score_to_elo(0.565)).abs() < 1e-9);
        // No games: nan everywhere, printed as fastchess prints it.
        let none = ToolElo::of(&Counts::default(), false);
        assert_eq!(f(none.elo, 2), "nan");
        assert_eq!(two_significant(0.08), "0.08");
        assert_eq!(two_significant(0.1), "0.1");
        assert_eq!(two_significant(1.0), "1");
    }

    #[test]
    fn time_texts() {
        let t = |s: &str| time_text(&s.parse().unwrap());
        assert_eq!(t("8+0.08"), "8+0.08");
        assert_eq!(t("40/60+0.6"), "40/60+0.6");
        assert_eq!(t("10"), "10");
        assert_eq!(t("movetime=0.05"), "0.05/move");
        assert_eq!(t("depth=7"), "7 plies");
        assert_eq!(t("nodes=5000"), "5000 nodes");
        assert_eq!(t("8+0.08,nodes=5000"), "8+0.08");
    }
}
