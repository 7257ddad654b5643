//! Running a match or tournament: the schedule of game pairs, the worker
//! threads that play them, and the main thread that records each finished
//! pair (PGN, then ledger, then counts, summary and progress) and stops an
//! SPRT once a bound is crossed. The main thread alone decides what is
//! counted: after a stop or an interrupt it drops whatever still arrives,
//! so `games.pgn`, the ledger and `summary.json` always agree.
//!
//! Pair `p` belongs to pairing `p % P` and round `p / P`; its opening is the
//! round's entry of the opening order, which depends only on the seed. Each
//! opening is played twice with colours swapped (the pairing's first engine
//! is white in game 1). Workers own their players (one per engine, reused
//! across games), so with fixed nodes or depth the games do not depend on
//! the number of workers or on which worker plays a pair.

use std::collections::{HashSet, VecDeque};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use thiserror::Error;

use crate::config::{MatchConfig, OpeningsConfig};
use crate::game::{self, GameError, GameRecord, GameSettings};
use crate::ledger::{GameEntry, Ledger, LedgerError, PairEntry};
use crate::openings::{
    fingerprint, order_openings, parse_openings, LoadOptions, Opening, OpeningError, OpeningFormat,
};
use crate::pgn::{self, MatchTags, UtcTime};
use crate::players::{EngineError, Player, PlayerKind, PlayerSpec};
use crate::stats::SprtDecision;
use crate::summary::{pairings, Pairing, Summary, Tally};

/// Creates a player from its spec (the real one is
/// [`crate::players::start_player`]; tests substitute scripted players).
pub type PlayerFactory =
    Arc<dyn Fn(&PlayerSpec) -> Result<Box<dyn Player>, EngineError> + Send + Sync>;

/// How to run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// The run folder (created if missing).
    pub out_dir: PathBuf,
    /// Continue the run in `out_dir` from its ledger.
    pub resume: bool,
    /// No progress bar.
    pub quiet: bool,
    /// `None`: [`crate::players::start_player`].
    pub factory: Option<PlayerFactory>,
    /// Set it to stop the run after the games in progress are abandoned
    /// (finished pairs stay recorded); the summary's status is `halted`.
    pub stop: Option<Arc<AtomicBool>>,
    /// Set it (from a signal handler) to end the run as `interrupted`: pairs
    /// that arrive after it are dropped even if they finished, because the
    /// handler may already have killed the engines that played them.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// A run that could not go on (engine failures are results, not errors).
#[derive(Debug, Error)]
pub enum MatchError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Openings(#[from] OpeningError),
    #[error("opening {id}: {message}")]
    BadOpening { id: usize, message: String },
    /// An engine cannot play the match as configured (a limit or an
    /// opening its protocol cannot express); `opening` names the opening.
    #[error("{}{message}", opening.map(|id| format!("opening {id}: ")).unwrap_or_default())]
    Unsupported {
        opening: Option<usize>,
        message: String,
    },
    #[error("{0} already holds a run; use --resume to continue it or choose another --out")]
    Exists(PathBuf),
    #[error(
        "{path}: the opening suite is not the one this run was started with \
         (recorded {expected}; the file now has {found}): restore that file or start a new run"
    )]
    OpeningsChanged {
        path: PathBuf,
        expected: String,
        found: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> MatchError + '_ {
    move |source| MatchError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Which pairing and opening each pair plays.
struct Schedule {
    pairings: Vec<Pairing>,
    openings: Vec<Opening>,
    /// Per pairing, the order of the openings it plays: the suite's order
    /// without the openings one of its engines cannot start from.
    orders: Vec<Vec<usize>>,
}

impl Schedule {
    /// `order` is the suite's order; `unplayable[e]` the indices (into
    /// `openings`) engine `e` cannot start from.
    fn new(
        pairings: Vec<Pairing>,
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
            openings,
            orders,
        }
    }

    fn of(&self, pair: u64) -> (usize, &Opening) {
        let np = self.pairings.len() as u64;
        let round = (pair / np) as usize;
        let pairing = (pair % np) as usize;
        let order = &self.orders[pairing];
        (pairing, &self.openings[order[round % order.len()]])
    }
}

/// File name of an engine's stderr log in the run folder.
pub fn stderr_log_name(engine: &str) -> String {
    let clean: String = engine
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{clean}.stderr.log")
}

/// The `Round` tag of game `game` (0 or 1) of pair `pair`.
fn round_tag(pair: u64, game: usize) -> String {
    format!("{}.{}", pair + 1, game + 1)
}

fn parse_round(game: &str) -> Option<(u64, u64)> {
    let (p, g) = pgn::tag_value(game, "Round")?.split_once('.')?;
    Some((p.parse::<u64>().ok()?.checked_sub(1)?, g.parse().ok()?))
}

/// Rewrite `games.pgn` atomically with only the complete games of `pairs`,
/// sorted by pair and game (the order a single worker would produce).
fn rewrite_pgn(path: &Path, pairs: &HashSet<u64>) -> Result<(), MatchError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io_err(path)(e)),
    };
    let mut games: Vec<((u64, u64), &str)> = pgn::split_games(&text)
        .into_iter()
        .filter(|g| pgn::is_complete(g))
        .filter_map(|g| parse_round(g).map(|r| (r, g)))
        .filter(|(r, _)| pairs.contains(&r.0))
        .collect();
    games.sort_by_key(|(r, _)| *r);
    games.dedup_by_key(|(r, _)| *r);
    let tmp = path.with_extension("pgn.tmp");
    let mut out = String::with_capacity(text.len());
    for (_, g) in games {
        out.push_str(g.trim_end());
        out.push_str("\n\n");
    }
    std::fs::write(&tmp, out).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

/// Read and parse the suite, check it against the checksum and entry count
/// the config records (a resumed run's), and return it with its checksum.
fn load_checked_openings(o: &OpeningsConfig) -> Result<(Vec<Opening>, String), MatchError> {
    let data = std::fs::read(&o.path).map_err(io_err(&o.path))?;
    let format = o
        .format
        .or_else(|| OpeningFormat::from_path(&o.path))
        .ok_or_else(|| OpeningError::UnknownFormat {
            path: o.path.clone(),
        })?;
    let options = LoadOptions {
        format: Some(format),
        plies: o.plies,
        skip_bad: false,
    };
    let list = parse_openings(&data, &o.path, format, &options)?.openings;
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
/// says how many), every engine's own figures stay comparable. Only xboard
/// engines are checked; other failures here (a crash at start) are left to
/// the games, where they are results.
fn check_setup(
    specs: &[PlayerSpec],
    tc: &crate::timecontrol::TimeControl,
    openings: &[Opening],
) -> Result<Vec<HashSet<usize>>, MatchError> {
    let limit = crate::timecontrol::GameClock::new(*tc).limit(0);
    let with_fen: Vec<usize> = (0..openings.len())
        .filter(|&i| openings[i].fen.is_some())
        .collect();
    let mut unplayable = vec![HashSet::new(); specs.len()];
    for (e, spec) in specs.iter().enumerate() {
        if !matches!(spec.kind, PlayerKind::Xboard) {
            continue;
        }
        let fens = with_fen.iter().filter_map(|&i| openings[i].fen.as_deref());
        match crate::players::check_player_setup(spec, &limit, fens) {
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
            Err(EngineError::Unsupported(message)) => {
                return Err(MatchError::Unsupported {
                    opening: None,
                    message,
                })
            }
            Err(_) => {}
        }
    }
    Ok(unplayable)
}

type PairResult = Result<[GameRecord; 2], (usize, GameError)>;

/// Play one game of a pair, starting missing players first (a player that
/// cannot be created forfeits the game).
fn play_one(
    players: &mut [Option<Box<dyn Player>>],
    specs: &[PlayerSpec],
    factory: &PlayerFactory,
    (white, black): (usize, usize),
    opening: &Opening,
    settings: &GameSettings,
    abort: &AtomicBool,
) -> Result<GameRecord, GameError> {
    let fen = opening.fen.as_deref();
    for (side, e) in [(true, white), (false, black)] {
        if players[e].is_none() {
            match factory(&specs[e]) {
                Ok(p) => players[e] = Some(p),
                Err(err) => {
                    return game::forfeit(
                        &specs[white].name,
                        &specs[black].name,
                        fen,
                        &opening.moves,
                        side,
                        &err,
                        &settings.tc,
                    )
                }
            }
        }
    }
    let mut w = players[white].take().expect("white player");
    let mut b = players[black].take().expect("black player");
    let r = game::play_game(&mut *w, &mut *b, fen, &opening.moves, settings, abort);
    players[white] = Some(w);
    players[black] = Some(b);
    r
}

fn worker(
    specs: &[PlayerSpec],
    factory: &PlayerFactory,
    schedule: &Schedule,
    settings: &GameSettings,
    queue: &Mutex<VecDeque<u64>>,
    stop: &AtomicBool,
    tx: mpsc::Sender<(u64, PairResult)>,
) {
    let mut players: Vec<Option<Box<dyn Player>>> = specs.iter().map(|_| None).collect();
    'pairs: while !stop.load(Ordering::Relaxed) {
        let Some(pair) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front() else {
            break;
        };
        let (pairing, opening) = schedule.of(pair);
        let Pairing { first, second } = schedule.pairings[pairing];
        let mut games = Vec::with_capacity(2);
        for colours in [(first, second), (second, first)] {
            match play_one(
                &mut players,
                specs,
                factory,
                colours,
                opening,
                settings,
                stop,
            ) {
                Ok(g) => games.push(g),
                Err(GameError::Aborted) => break 'pairs,
                Err(e) => {
                    let _ = tx.send((pair, Err((opening.id, e))));
                    break 'pairs;
                }
            }
        }
        let games: [GameRecord; 2] = games.try_into().expect("two games");
        if tx.send((pair, Ok(games))).is_err() {
            break;
        }
    }
    for p in players.iter_mut().flatten() {
        p.quit();
    }
}

fn entry(
    pair: u64,
    pairing: usize,
    p: Pairing,
    opening: Option<usize>,
    games: &[GameRecord; 2],
) -> PairEntry {
    let g = |i: usize, white, black| GameEntry {
        white,
        black,
        result: games[i].result,
        termination: games[i].termination,
        plies: games[i].moves.len() as u32,
    };
    PairEntry {
        pair,
        pairing,
        first: p.first,
        second: p.second,
        opening,
        games: [g(0, p.first, p.second), g(1, p.second, p.first)],
    }
}

/// Run (or resume) the match `cfg` into `opts.out_dir` and return the final
/// summary. Writes `config.yaml`, `games.pgn`, `ledger.jsonl`,
/// `summary.json` and one stderr log per external engine.
pub fn run_match(cfg: &MatchConfig, opts: &RunOptions) -> Result<Summary, MatchError> {
    let out = &opts.out_dir;
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    let ledger_path = out.join("ledger.jsonl");
    let pgn_path = out.join("games.pgn");
    let summary_path = out.join("summary.json");
    if !opts.resume && std::fs::metadata(&ledger_path).is_ok_and(|m| m.len() > 0) {
        return Err(MatchError::Exists(out.clone()));
    }

    let specs: Vec<PlayerSpec> = cfg
        .engines
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if !matches!(s.kind, PlayerKind::InProcess(_)) {
                s.stderr_log = Some(out.join(stderr_log_name(&s.name)));
            }
            s
        })
        .collect();

    let mut resolved = cfg.clone();
    let (openings, with_openings) = match &cfg.openings {
        Some(o) => {
            let (list, checksum) = load_checked_openings(o)?;
            // Recorded in the run's config.yaml: `--resume` checks them.
            if let Some(r) = resolved.resolved.openings.as_mut() {
                r.checksum = Some(checksum);
                r.entries = Some(list.len());
            }
            (list, true)
        }
        None => (
            vec![Opening {
                fen: None,
                moves: Vec::new(),
                id: 0,
            }],
            false,
        ),
    };
    let unplayable = check_setup(&specs, &cfg.settings.tc, &openings)?;
    if !opts.resume {
        let p = out.join("config.yaml");
        std::fs::write(&p, resolved.resolved_yaml()).map_err(io_err(&p))?;
        std::fs::write(&pgn_path, "").map_err(io_err(&pgn_path))?;
    }
    for o in &openings {
        game::check_opening(o.fen.as_deref(), &o.moves).map_err(|e| MatchError::BadOpening {
            id: o.id,
            message: e.to_string(),
        })?;
    }
    let openings_len = openings.len();
    let (order_kind, start) = cfg
        .openings
        .as_ref()
        .map_or((Default::default(), 0), |o| (o.order, o.start));
    let schedule = Schedule::new(
        pairings(cfg.tournament, cfg.engines.len()),
        openings,
        &order_openings(openings_len, order_kind, cfg.seed, start),
        &unplayable,
    );
    if let Some(i) = schedule.orders.iter().position(Vec::is_empty) {
        let p = schedule.pairings[i];
        return Err(MatchError::Unsupported {
            opening: None,
            message: format!(
                "{} against {}: no opening of the suite can be set up for both engines",
                specs[p.first].name, specs[p.second].name
            ),
        });
    }
    let total_pairs = cfg.pairs_per_pairing() * schedule.pairings.len() as u64;

    // Replay the ledger: finished pairs are counted once, in finishing order.
    let (mut ledger, done) = Ledger::open(&ledger_path)?;
    let mut tally = Tally::new(schedule.pairings.clone(), cfg.sprt);
    let mut counted: HashSet<u64> = HashSet::new();
    for e in &done {
        if tally.decision().is_some() {
            break;
        }
        if e.pair < total_pairs && e.pairing < schedule.pairings.len() {
            tally.add(e);
            counted.insert(e.pair);
        }
    }
    if opts.resume {
        rewrite_pgn(&pgn_path, &counted)?;
    }
    let pending: VecDeque<u64> = if tally.decision().is_some() {
        VecDeque::new()
    } else {
        (0..total_pairs).filter(|p| !counted.contains(p)).collect()
    };

    let bar = if opts.quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(total_pairs * 2);
        if let Ok(style) =
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
        {
            b.set_style(style.progress_chars("=> "));
        }
        b
    };
    bar.set_position(tally.games());
    let write_summary = |tally: &Tally, status: &str| -> Result<Summary, MatchError> {
        let s = Summary::build(cfg, tally, status);
        s.write_atomic(&summary_path)
            .map_err(io_err(&summary_path))?;
        Ok(s)
    };
    let s = write_summary(&tally, "running")?;
    bar.set_message(s.progress_line());

    // Workers watch `abort`; the main thread raises it for the caller's
    // stop, an interrupt, an SPRT decision or a failure.
    let abort = AtomicBool::new(false);
    let requested =
        |flag: &Option<Arc<AtomicBool>>| flag.as_ref().is_some_and(|f| f.load(Ordering::SeqCst));
    let interrupted = || requested(&opts.interrupt);
    let factory: PlayerFactory = opts
        .factory
        .clone()
        .unwrap_or_else(|| Arc::new(crate::players::start_player));
    let workers = cfg.concurrency.min(pending.len());
    let queue = Mutex::new(pending);
    let date = UtcTime::now().pgn_date();
    let tags = MatchTags {
        event: &cfg.name,
        date: &date,
        tc: &cfg.settings.tc,
    };
    let mut failure: Option<MatchError> = None;

    std::thread::scope(|scope| -> Result<(), MatchError> {
        let (tx, rx) = mpsc::channel();
        for i in 0..workers {
            let tx = tx.clone();
            let (specs, factory, schedule, queue, stop) =
                (&specs, &factory, &schedule, &queue, &abort);
            let settings = &cfg.settings;
            std::thread::Builder::new()
                .name(format!("karsinta-worker-{i}"))
                .spawn_scoped(scope, move || {
                    worker(specs, factory, schedule, settings, queue, stop, tx)
                })
                .map_err(io_err(Path::new("worker thread")))?;
        }
        drop(tx);
        let mut pgn_file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&pgn_path)
            .map_err(io_err(&pgn_path))?;
        loop {
            // A short poll so that a stop or an interrupt reaches the workers
            // even while no pair finishes.
            let received = rx.recv_timeout(Duration::from_millis(50));
            if interrupted() || requested(&opts.stop) {
                abort.store(true, Ordering::SeqCst);
            }
            let (pair, result) = match received {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            // Checked before anything is written: a pair that arrives after
            // an interrupt may hold games its killed engines "lost".
            if abort.load(Ordering::SeqCst) || tally.decision().is_some() || failure.is_some() {
                continue; // draining abandoned work after a stop
            }
            let games = match result {
                Ok(g) => g,
                Err((id, e)) => {
                    failure = Some(match e {
                        GameError::Unsupported(message) => MatchError::Unsupported {
                            opening: Some(id),
                            message,
                        },
                        e => MatchError::BadOpening {
                            id,
                            message: e.to_string(),
                        },
                    });
                    abort.store(true, Ordering::SeqCst);
                    continue;
                }
            };
            // PGN first (on disk), then the ledger: a pair is counted only
            // once its games are durable, and resume drops PGN games of
            // uncounted pairs.
            let mut text = String::new();
            for (i, g) in games.iter().enumerate() {
                pgn::write_game(&mut text, g, &round_tag(pair, i), &tags);
            }
            pgn_file
                .write_all(text.as_bytes())
                .and_then(|()| pgn_file.flush())
                .and_then(|()| pgn_file.sync_data())
                .map_err(io_err(&pgn_path))?;
            let (pairing, opening) = schedule.of(pair);
            let e = entry(
                pair,
                pairing,
                schedule.pairings[pairing],
                with_openings.then_some(opening.id),
                &games,
            );
            ledger.append(&e)?;
            counted.insert(pair);
            if tally.add(&e).is_some() {
                abort.store(true, Ordering::SeqCst);
            }
            let s = write_summary(&tally, "running")?;
            bar.set_position(tally.games());
            bar.set_message(s.progress_line());
        }
        Ok(())
    })?;
    if let Some(f) = failure {
        return Err(f);
    }

    rewrite_pgn(&pgn_path, &counted)?;
    let status = match tally.decision() {
        Some(SprtDecision::H0 | SprtDecision::H1) => "stopped",
        _ if counted.len() as u64 >= total_pairs => "finished",
        _ if interrupted() => "interrupted",
        _ => "halted",
    };
    let summary = write_summary(&tally, status)?;
    bar.finish_and_clear();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_tags_parse_back() {
        let mut text = String::new();
        let tc = "nodes=1".parse().unwrap();
        let g = GameRecord {
            white: "a".into(),
            black: "b".into(),
            start_fen: None,
            moves: Vec::new(),
            result: crate::game::GameResult::Draw,
            termination: crate::game::Termination::MaxMoves,
            reason: "x".into(),
        };
        pgn::write_game(
            &mut text,
            &g,
            &round_tag(41, 1),
            &MatchTags {
                event: "e",
                date: "d",
                tc: &tc,
            },
        );
        assert_eq!(parse_round(&text), Some((41, 2)));
        assert_eq!(
            stderr_log_name("Stockfish 16/x"),
            "Stockfish_16_x.stderr.log"
        );
    }

    #[test]
    fn rewrite_keeps_counted_complete_games_in_order() {
        let tc = "nodes=1".parse().unwrap();
        let tags = MatchTags {
            event: "e",
            date: "d",
            tc: &tc,
        };
        let g = GameRecord {
            white: "a".into(),
            black: "b".into(),
            start_fen: None,
            moves: Vec::new(),
            result: crate::game::GameResult::WhiteWins,
            termination: crate::game::Termination::Crash,
            reason: "x".into(),
        };
        let mut text = String::new();
        for (p, i) in [(2, 0), (2, 1), (0, 0), (0, 1), (1, 0), (1, 1), (3, 0)] {
            pgn::write_game(&mut text, &g, &round_tag(p, i), &tags);
        }
        // Pair 3's second game was cut short by a kill.
        pgn::write_game(&mut text, &g, &round_tag(3, 1), &tags);
        text.truncate(text.len() - 5);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        std::fs::write(&path, &text).unwrap();
        rewrite_pgn(&path, &[0, 2].into_iter().collect()).unwrap();
        let out = std::fs::read_to_string(&path).unwrap();
        let rounds: Vec<_> = pgn::split_games(&out)
            .into_iter()
            .filter_map(parse_round)
            .collect();
        assert_eq!(rounds, vec![(0, 1), (0, 2), (2, 1), (2, 2)]);
    }
}
