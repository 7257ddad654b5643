//! The schedule of a match: who plays whom ([`pairings`]) and which opening
//! each game pair starts from. Pair `p` belongs to pairing `p % P` and round
//! `p / P`; its opening is the round's entry of the opening order, which
//! depends only on the seed. Each opening is played twice with colours
//! swapped (the pairing's first engine is white in game 1), or as the
//! config's [`crate::config::ColourSchedule`] says (one game per opening,
//! no swap, reversed colours: fastchess's `-games`, `-noswap`, `-reverse`). With fixed
//! nodes or depth the games do not depend on the number of workers or on
//! which worker plays a pair: [`MatchPlan`] hands out pair `p` as an
//! independent job, the distributed worker's unit of work.

use std::collections::HashSet;
use std::sync::Arc;

use serde::Serialize;

use super::error::{io_err, MatchError};
use crate::config::TournamentKind;
use crate::config::{ColourSchedule, MatchConfig, OpeningsConfig};
use crate::openings::{fingerprint, order_openings, read_openings, LoadOptions, Opening};
use crate::play::game;
use crate::play::pairs::PairJob;
use crate::players::{EngineError, PlayerKind, PlayerSpec};
use crate::run::ledger::PairEntry;
use crate::variant::Variant;

/// Who plays whom: `first` is the point of view of the pairing's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Pairing {
    /// Index into the config's `engines` of the engine whose figures these are.
    pub first: usize,
    /// Index of its opponent.
    pub second: usize,
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

/// Which pairing and opening each pair plays, and the colours.
pub(super) struct Schedule {
    pub(super) pairings: Vec<Pairing>,
    colours: ColourSchedule,
    openings: Vec<Arc<Opening>>,
    /// Per pairing, the order of the openings it plays: the suite's order
    /// without the openings one of its engines cannot start from.
    orders: Vec<Vec<usize>>,
}

impl Schedule {
    /// `order` is the suite's order; `unplayable[e]` the indices (into
    /// `openings`) engine `e` cannot start from.
    fn new(
        pairings: Vec<Pairing>,
        colours: ColourSchedule,
        openings: Vec<Opening>,
        order: &[usize],
        unplayable: &[HashSet<usize>],
    ) -> Schedule {
        let orders = pairings
            .iter()
            .map(|p| {
                order
                    .iter()
                    .copied()
                    .filter(|i| {
                        !unplayable[p.first].contains(i) && !unplayable[p.second].contains(i)
                    })
                    .collect()
            })
            .collect();
        Schedule {
            pairings,
            colours,
            openings: openings.into_iter().map(Arc::new).collect(),
            orders,
        }
    }

    /// The pairing and the opening of pair `pair`.
    pub(super) fn of(&self, pair: u64) -> (usize, &Arc<Opening>) {
        let np = self.pairings.len() as u64;
        let round = (pair / np) as usize;
        let pairing = (pair % np) as usize;
        let order = &self.orders[pairing];
        (pairing, &self.openings[order[round % order.len()]])
    }

    /// The job of pair `pair`: its pairing's engines, opening and colours.
    pub(super) fn job(&self, pair: u64) -> PairJob {
        let (pairing, opening) = self.of(pair);
        let p = self.pairings[pairing];
        PairJob {
            whites: self.colours.whites(pair),
            ..PairJob::swapped(pair, p.first, p.second, Arc::clone(opening))
        }
    }
}

/// The match's openings (the standard position alone without a suite),
/// each checked, whether a suite is used, and the suite's checksum and
/// entry count.
#[allow(clippy::type_complexity)]
pub(super) fn match_openings(
    cfg: &MatchConfig,
) -> Result<(Vec<Opening>, bool, Option<(String, usize)>), MatchError> {
    let (openings, recorded) = match &cfg.openings {
        Some(o) => {
            let (list, checksum) = load_checked_openings(o, cfg.settings.variant)?;
            let n = list.len();
            (list, Some((checksum, n)))
        }
        None => (
            vec![Opening {
                fen: None,
                moves: Vec::new(),
                id: 0,
            }],
            None,
        ),
    };
    for o in &openings {
        game::check_opening(o.fen.as_deref(), &o.moves, cfg.settings.variant).map_err(|e| {
            MatchError::BadOpening {
                id: o.id,
                message: e.to_string(),
            }
        })?;
    }
    let with_openings = recorded.is_some();
    Ok((openings, with_openings, recorded))
}

/// Pairs of the whole match (all pairings).
pub(super) fn total_pairs(cfg: &MatchConfig) -> u64 {
    cfg.pairs_per_pairing() * pairings(cfg.tournament, cfg.engines.len()).len() as u64
}

/// The schedule of `cfg` over `openings`: the seed's opening order, minus
/// the openings an engine cannot start from (checked by starting each
/// external engine: a setup error if one cannot start).
pub(super) fn build_schedule(
    cfg: &MatchConfig,
    openings: Vec<Opening>,
) -> Result<Schedule, MatchError> {
    let (order_kind, start) = cfg
        .openings
        .as_ref()
        .map_or((Default::default(), 0), |o| (o.order, o.start));
    let order = order_openings(openings.len(), order_kind, cfg.seed, start);
    let unplayable = check_setup(&cfg.engines, &cfg.settings, &openings)?;
    let pairings_list = pairings(cfg.tournament, cfg.engines.len());
    let schedule = Schedule::new(pairings_list, cfg.colours, openings, &order, &unplayable);
    if let Some(i) = schedule.orders.iter().position(Vec::is_empty) {
        let p = schedule.pairings[i];
        return Err(MatchError::Unsupported {
            opening: None,
            message: format!(
                "{} against {}: no opening of the suite can be set up for both engines",
                cfg.engines[p.first].name, cfg.engines[p.second].name
            ),
        });
    }
    Ok(schedule)
}

/// The pairs of a match as independent jobs: pair `p`'s pairing, opening
/// and players depend only on the config (seed included), so any process
/// that builds the plan from the same config plays the same pair `p` — the
/// distributed worker's unit of work. Built with the same checks as
/// [`super::run_match`] (openings, engines starting, what each engine can play).
pub struct MatchPlan {
    schedule: Schedule,
    with_openings: bool,
    /// Pairs of the whole match (all pairings).
    pub total_pairs: u64,
}

impl MatchPlan {
    /// The plan of `cfg`'s match; fails as [`super::run_match`] would (openings, engines, limits).
    pub fn new(cfg: &MatchConfig) -> Result<MatchPlan, MatchError> {
        let (openings, with_openings, _) = match_openings(cfg)?;
        let total_pairs = total_pairs(cfg);
        let schedule = build_schedule(cfg, openings)?;
        Ok(MatchPlan {
            schedule,
            with_openings,
            total_pairs,
        })
    }

    /// The tournament's pairings, in schedule order.
    pub fn pairings(&self) -> &[Pairing] {
        &self.schedule.pairings
    }

    /// The job of pair `pair`.
    pub fn job(&self, pair: u64) -> PairJob {
        self.schedule.job(pair)
    }

    /// The ledger entry of a finished pair, as [`super::run_match`] writes it.
    pub fn entry(&self, finished: &crate::play::pairs::FinishedPair) -> PairEntry {
        let (pairing, opening) = self.schedule.of(finished.job.pair);
        finished.entry(pairing, self.with_openings.then_some(opening.id))
    }
}

/// The `Round` tag of game `game` (0 or 1) of pair `pair` (`7.1` for the
/// single game of unit 6 in a schedule of one game per opening).
pub fn round_tag(pair: u64, game: usize) -> String {
    format!("{}.{}", pair + 1, game + 1)
}

/// Read and parse the suite, check it against the checksum and entry count
/// the config records (a resumed run's), and return it with its checksum.
fn load_checked_openings(
    o: &OpeningsConfig,
    variant: Variant,
) -> Result<(Vec<Opening>, String), MatchError> {
    let data = std::fs::read(&o.path).map_err(io_err(&o.path))?;
    let options = LoadOptions {
        format: o.format,
        plies: o.plies,
        skip_bad: false,
        variant,
    };
    let list = read_openings(&data, &o.path, &options)?.openings;
    let checksum = fingerprint(&data);
    let changed = o.checksum.as_ref().is_some_and(|c| *c != checksum)
        || o.entries.is_some_and(|n| n != list.len());
    if changed {
        let describe = |c: Option<&str>, n: Option<usize>| {
            format!(
                "{} with {} openings",
                c.unwrap_or("no checksum"),
                n.map_or_else(|| "?".to_string(), |n| n.to_string())
            )
        };
        return Err(MatchError::OpeningsChanged {
            path: o.path.clone(),
            expected: describe(o.checksum.as_deref(), o.entries),
            found: describe(Some(&checksum), Some(list.len())),
        });
    }
    Ok((list, checksum))
}

/// What the engines can play, found before the first game: an xboard
/// engine without a command for the limit fails the match here, and one
/// without `setboard` cannot start from positions whose castling rights
/// edit mode would get wrong. Returns, per engine, the indices of the
/// openings it cannot start from: its pairings skip them (a note on stderr
/// says how many), every engine's own figures stay comparable. Every
/// external engine must start and complete its handshake here: one that
/// cannot is a setup error, not a string of forfeits.
fn check_setup(
    specs: &[PlayerSpec],
    settings: &game::GameSettings,
    openings: &[Opening],
) -> Result<Vec<HashSet<usize>>, MatchError> {
    let with_fen: Vec<usize> = (0..openings.len())
        .filter(|&i| openings[i].fen.is_some())
        .collect();
    let mut unplayable = vec![HashSet::new(); specs.len()];
    for (e, spec) in specs.iter().enumerate() {
        if matches!(spec.kind, PlayerKind::InProcess(_)) {
            continue;
        }
        if matches!(spec.kind, PlayerKind::Uci) {
            // The handshake only (`uci`, options, `isready`): what happens
            // at `ucinewgame` is the games' business.
            let mut player =
                crate::players::start_player(spec).map_err(|err| setup_error(spec, err))?;
            let started = player.ensure_started();
            player.quit();
            started.map_err(|err| setup_error(spec, err))?;
            continue;
        }
        // Each engine under its own limit (the match's, or its time_control).
        let limit = crate::play::clock::GameClock::new(settings.tc_of(&spec.name)).limit(0);
        let key = if settings.engine_tc.contains_key(&spec.name) {
            format!("engines[{e}].time_control")
        } else {
            "time_control".to_string()
        };
        let fens = with_fen.iter().filter_map(|&i| openings[i].fen.as_deref());
        match crate::players::check_player_setup(spec, &limit, &key, fens) {
            Ok(bad) => {
                if let Some((first, why)) = bad.first() {
                    let first = &openings[with_fen[*first]];
                    eprintln!(
                        "note: {}: {} of {} openings are skipped in its games (the first, \
                         opening {}: {})",
                        spec.name,
                        bad.len(),
                        openings.len(),
                        first.id,
                        why
                    );
                }
                unplayable[e] = bad.into_iter().map(|(i, _)| with_fen[i]).collect();
            }
            Err(err) => return Err(setup_error(spec, err)),
        }
    }
    Ok(unplayable)
}

fn setup_error(spec: &PlayerSpec, err: EngineError) -> MatchError {
    match err {
        EngineError::Unsupported(message) => MatchError::Unsupported {
            opening: None,
            message,
        },
        err => MatchError::Setup {
            engine: spec.name.clone(),
            message: format!("{err} ({})", spec.cmd.display()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
