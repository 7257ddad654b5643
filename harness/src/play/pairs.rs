//! Playing game pairs: the match runner as a library. A caller names the
//! engines (as [`PlayerSpec`] values), the game settings and the pairs to
//! play; worker threads play them and the caller's thread receives each
//! finished pair, in finishing order, through a callback that says whether
//! to go on. Nothing here reads or writes a file: `karsinta match` (the run
//! folder writer in [`crate::run`]), the tuners and the distributed
//! worker are callers.
//!
//! Workers own their players (one per engine, reused across pairs), so with
//! fixed nodes or depth a pair's games do not depend on the number of
//! workers or on which worker plays it. An engine failing during a game is a
//! result of that game; an engine that cannot (re)start is not: its pair is
//! put back and played again once the engine starts, and after
//! [`PlayOptions::max_start_failures`] failed starts in a row the run stops
//! with [`RunnerError::EngineLost`] instead of scoring a string of forfeits.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use thiserror::Error;

use crate::openings::Opening;
use crate::play::clock::{TimeControl, Timed};
use crate::play::game::{self, GameError, GameRecord, GameSettings};
use crate::players::{EngineError, Player, PlayerSpec};
use crate::run::ledger::{GameEntry, PairEntry};

/// Creates a player from its spec (the real one is
/// [`crate::players::start_player`]; tests substitute scripted players).
pub type PlayerFactory =
    Arc<dyn Fn(&PlayerSpec) -> Result<Box<dyn Player>, EngineError> + Send + Sync>;

/// Default for [`PlayOptions::max_start_failures`].
pub const DEFAULT_MAX_START_FAILURES: u32 = 3;

/// Per-side options of one pair (see [`Player::configure`]): `[first, second]`.
pub type PairOptions = Arc<[Vec<(String, String)>; 2]>;

/// Which engine of a job is White in one of its games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    /// The job's `first` engine is White.
    First,
    /// The job's `second` engine is White.
    Second,
}

/// One unit of play from one opening: a game pair (the same opening twice,
/// colours swapped: `first` White in game 1, Black in game 2, the usual
/// schedule) or, in the schedules of [`crate::config::ColourSchedule`], a
/// single game or a pair without the swap.
#[derive(Clone, Debug)]
pub struct PairJob {
    /// The caller's number for the pair (round tags, ledger key).
    pub pair: u64,
    /// Indices into the engine list given to [`play_pairs`].
    pub first: usize,
    /// Index of the pairing's other engine.
    pub second: usize,
    /// The position both games start from.
    pub opening: Arc<Opening>,
    /// Options set on each side before the pair (a tuner's perturbed
    /// parameters); `None` leaves the players as they are.
    pub options: Option<PairOptions>,
    /// Who is White in each game, in playing order (one or two games).
    pub whites: Vec<Seat>,
}

impl PairJob {
    /// A colour-swapped pair: `first` White in game 1, `second` in game 2.
    pub fn swapped(pair: u64, first: usize, second: usize, opening: Arc<Opening>) -> PairJob {
        PairJob {
            pair,
            first,
            second,
            opening,
            options: None,
            whites: vec![Seat::First, Seat::Second],
        }
    }

    /// White and Black (engine indices) of each game.
    pub fn colours(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.whites.iter().map(|s| match s {
            Seat::First => (self.first, self.second),
            Seat::Second => (self.second, self.first),
        })
    }
}

/// A job whose games are over, in the order of [`PairJob::whites`].
#[derive(Clone, Debug)]
pub struct FinishedPair {
    /// The job that was played.
    pub job: PairJob,
    /// Its games, one per entry of [`PairJob::whites`].
    pub games: Vec<GameRecord>,
}

impl FinishedPair {
    /// The ledger's record of the pair; `pairing` is the caller's index of
    /// the engine pairing, `opening` the opening id if a suite is used.
    pub fn entry(&self, pairing: usize, opening: Option<usize>) -> PairEntry {
        let games = self
            .job
            .colours()
            .zip(&self.games)
            .map(|((white, black), g)| GameEntry {
                white,
                black,
                result: g.result,
                termination: g.termination,
                plies: g.moves.len() as u32,
                warnings: g.warning_counts(),
            })
            .collect();
        PairEntry {
            pair: self.job.pair,
            pairing,
            first: self.job.first,
            second: self.job.second,
            opening,
            games,
        }
    }
}

/// What the callback wants after a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on with the next pair.
    Continue,
    /// Abandon the games in progress and return.
    Stop,
}

/// How [`play_pairs`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every job was played.
    Exhausted,
    /// The callback returned [`Flow::Stop`].
    Stopped,
    /// A stop flag was raised; later pairs were dropped.
    Halted,
}

/// How to play.
#[derive(Clone)]
pub struct PlayOptions {
    /// Pairs played at once.
    pub concurrency: usize,
    /// Raising any of these abandons the games in progress; pairs that
    /// finish afterwards are not passed to the callback (a signal handler
    /// may already have killed their engines).
    pub stop: Vec<Arc<AtomicBool>>,
    /// `None`: [`crate::players::start_player`].
    pub factory: Option<PlayerFactory>,
    /// Failed starts in a row of one engine after which the run stops.
    pub max_start_failures: u32,
    /// Raised by the runner once it abandons the jobs (stop, failure), so
    /// that a job iterator waiting for results (a tuner's) can give up
    /// instead of holding a worker forever.
    pub aborted: Option<Arc<AtomicBool>>,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            concurrency: 1,
            stop: Vec::new(),
            factory: None,
            max_start_failures: DEFAULT_MAX_START_FAILURES,
            aborted: None,
        }
    }
}

/// Why [`play_pairs`] could not go on. Pairs already passed to the callback
/// stay with the caller.
#[derive(Debug, Error)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum RunnerError<E> {
    /// The callback failed (e.g. could not write its record).
    #[error(transparent)]
    Callback(E),
    /// An engine cannot play the games as configured.
    #[error("{}{message}", opening.map(|id| format!("opening {id}: ")).unwrap_or_default())]
    Unsupported {
        opening: Option<usize>,
        message: String,
    },
    /// An opening that cannot be set up.
    #[error("opening {id}: {message}")]
    BadOpening { id: usize, message: String },
    /// An engine failed to (re)start this many times in a row.
    #[error(
        "engine {engine} could not be restarted ({failures} attempts in a row, last: {reason})"
    )]
    EngineLost {
        engine: String,
        failures: u32,
        reason: String,
    },
    #[error("cannot start a worker thread: {0}")]
    Thread(std::io::Error),
    /// The machine cannot play this many games at once (checked before any
    /// engine starts).
    #[error(transparent)]
    Concurrency(#[from] ConcurrencyError),
}

/// More games at once than the machine can run.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[allow(missing_docs)] // each variant's message is its doc
pub enum ConcurrencyError {
    #[error(
        "concurrency {workers} is more than this machine can use: {cores} cores, at most \
         {most} games at once (with a clock, use at most {cores})"
    )]
    Cores {
        workers: usize,
        cores: usize,
        most: usize,
    },
    #[error(
        "concurrency {workers} needs about {need} MB ({per_game} MB per game: two \
         engines with their hash) but {available} MB are available: use at most {most}"
    )]
    Memory {
        workers: usize,
        need: u64,
        per_game: u64,
        available: u64,
        most: u64,
    },
    /// Not even one game fits: fewer games at once would not help.
    #[error(
        "one game needs about {per_game} MB (two engines with a hash of up to {hash} MB) but \
         {available} MB are available: lower the Hash of engine '{engine}' ({hash} MB)"
    )]
    GameTooLarge {
        engine: String,
        hash: u64,
        per_game: u64,
        available: u64,
    },
}

/// Memory one game slot needs beyond the hash tables (buffers, threads,
/// the in-process engine's tables), measured generously.
const SLOT_OVERHEAD_MB: u64 = 32;
/// Hash an engine gets when its options do not say (the UCI default of
/// karsinta-engine and most engines).
const ASSUMED_HASH_MB: u64 = 16;
/// Games at once per core beyond which every game only waits for a core.
const MAX_GAMES_PER_CORE: usize = 8;

/// Check that `workers` games at once between `engines` fit this machine:
/// at most `MAX_GAMES_PER_CORE` per core and what the available memory
/// holds (two engines per game, each with its hash). Returns a warning for
/// a concurrency that is allowed but distorts the games: more games than
/// cores under a time-based limit, where each engine thinks with less than
/// the core its clock assumes. [`play_pairs`] checks this itself; callers
/// that write files first check it earlier.
pub fn check_concurrency(
    engines: &[PlayerSpec],
    settings: &GameSettings,
    workers: usize,
) -> Result<Option<String>, ConcurrencyError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // A time-based limit of any engine makes the warning apply.
    let tc = settings
        .all_tcs()
        .find(|t| t.timed().is_some())
        .unwrap_or(&settings.tc);
    check_concurrency_on(engines, tc, workers, cores, available_memory_mb())
}

/// [`check_concurrency`] for a machine with `cores` and `available` MB.
fn check_concurrency_on(
    engines: &[PlayerSpec],
    tc: &TimeControl,
    workers: usize,
    cores: usize,
    available: Option<u64>,
) -> Result<Option<String>, ConcurrencyError> {
    let most = cores * MAX_GAMES_PER_CORE;
    if workers > most {
        return Err(ConcurrencyError::Cores {
            workers,
            cores,
            most,
        });
    }
    let hash = |s: &PlayerSpec| {
        s.options
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("hash"))
            .and_then(|(_, v)| v.trim().parse::<u64>().ok())
            .unwrap_or(ASSUMED_HASH_MB)
    };
    let biggest = engines.iter().max_by_key(|s| hash(s));
    let max_hash = biggest.map_or(ASSUMED_HASH_MB, hash);
    let per_game = max_hash.saturating_mul(2).saturating_add(SLOT_OVERHEAD_MB);
    if let Some(available) = available {
        if per_game > available {
            return Err(ConcurrencyError::GameTooLarge {
                engine: biggest.map_or_else(String::new, |s| s.name.clone()),
                hash: max_hash,
                per_game,
                available,
            });
        }
        let need = per_game.saturating_mul(workers as u64);
        if need > available {
            return Err(ConcurrencyError::Memory {
                workers,
                need,
                per_game,
                available,
                most: available / per_game,
            });
        }
    }
    let effect = match tc.timed() {
        Some(Timed::Clock { .. }) => {
            "plays weaker than its clock assumes and loses more games on time"
        }
        Some(Timed::MoveTime(_)) => "searches less than its time per move assumes",
        None => return Ok(None),
    };
    if workers > cores {
        return Ok(Some(format!(
            "concurrency {workers} is more than the {cores} cores of this machine: at {tc} \
             each engine then thinks with less than a core and {effect}; use at most {cores} \
             unless that is what you want"
        )));
    }
    // Only the side to move thinks (no pondering): a game needs the
    // threads of its larger engine.
    let threads = engines.iter().map(threads_of).max().unwrap_or(1);
    let need = workers.saturating_mul(threads);
    Ok((need > cores).then(|| {
        format!(
            "concurrency {workers} with {threads} threads per engine needs {need} cores, but \
             this machine has {cores}: at {tc} each engine then {effect}; set concurrency to {} \
             or less",
            (cores / threads).max(1)
        )
    }))
}

/// An engine's `Threads` option (1 where unset or unreadable).
fn threads_of(spec: &PlayerSpec) -> usize {
    spec.options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("threads"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(1)
        .max(1)
}

/// `MemAvailable` from /proc/meminfo (Linux), in MB.
fn available_memory_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

enum Message {
    Pair(Box<FinishedPair>),
    /// `engine` did not start: the job goes back to the queue.
    StartFailed {
        job: PairJob,
        engine: usize,
        error: EngineError,
    },
    Failed {
        job: PairJob,
        error: GameError,
    },
}

/// The jobs, shared by the workers: retries first, then the caller's
/// iterator. The iterator has its own lock so that one that waits (a
/// tuner's, for an update) never blocks the main thread.
struct Queue<I> {
    retry: Mutex<VecDeque<PairJob>>,
    jobs: Mutex<I>,
    exhausted: AtomicBool,
    /// Jobs taken by a worker and not yet answered on the main thread.
    in_flight: AtomicUsize,
}

enum Take {
    Job(PairJob),
    /// Nothing now, but a job in flight may come back.
    Wait,
    Done,
}

impl<I: Iterator<Item = PairJob>> Queue<I> {
    fn take(&self) -> Take {
        if let Some(job) = self
            .retry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
        {
            self.in_flight.fetch_add(1, Ordering::SeqCst);
            return Take::Job(job);
        }
        if !self.exhausted.load(Ordering::SeqCst) {
            let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
            // Counted before the lock is released, so a worker that finds the
            // iterator empty never sees "nothing in flight" while one is taken.
            match jobs.next() {
                Some(job) => {
                    self.in_flight.fetch_add(1, Ordering::SeqCst);
                    return Take::Job(job);
                }
                None => self.exhausted.store(true, Ordering::SeqCst),
            }
        }
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            Take::Wait
        } else {
            Take::Done
        }
    }
}

/// Why a pair could not be played through.
enum PairFailure {
    Start(usize, EngineError),
    Game(GameError),
}

/// One of the `concurrency` game slots: a thread that owns one player per
/// engine, reused across the pairs it plays.
struct GameSlot<'a> {
    specs: &'a [PlayerSpec],
    factory: &'a PlayerFactory,
    settings: &'a GameSettings,
    abort: &'a AtomicBool,
    players: Vec<Option<Box<dyn Player>>>,
}

impl GameSlot<'_> {
    /// The player of engine `e`, created and started if needed.
    fn ready(&mut self, e: usize) -> Result<(), EngineError> {
        if self.players[e].is_none() {
            self.players[e] = Some((self.factory)(&self.specs[e])?);
        }
        match self.players[e].as_mut() {
            Some(p) => p.ensure_started(),
            None => unreachable!("created above"),
        }
    }

    fn play_pair(&mut self, job: &PairJob) -> Result<Vec<GameRecord>, PairFailure> {
        let mut games = Vec::with_capacity(job.whites.len());
        for (g, (white, black)) in job.colours().enumerate() {
            for e in [white, black] {
                self.ready(e).map_err(|err| PairFailure::Start(e, err))?;
            }
            if g == 0 {
                if let Some(options) = &job.options {
                    for (side, e) in [job.first, job.second].into_iter().enumerate() {
                        if let Some(p) = self.players[e].as_mut() {
                            p.configure(&options[side]).map_err(|err| match err {
                                EngineError::Unsupported(m) => {
                                    PairFailure::Game(GameError::Unsupported(m))
                                }
                                err => PairFailure::Start(e, err),
                            })?;
                        }
                    }
                }
            }
            let (Some(mut w), Some(mut b)) =
                (self.players[white].take(), self.players[black].take())
            else {
                unreachable!("both started above")
            };
            if !self.settings.wait.is_zero() {
                std::thread::sleep(self.settings.wait);
            }
            let fen = job.opening.fen.as_deref();
            let r = game::play_game(
                &mut *w,
                &mut *b,
                fen,
                &job.opening.moves,
                self.settings,
                self.abort,
            );
            // restart: true: the next game's `ready` starts a fresh process.
            for (e, p) in [(white, &mut w), (black, &mut b)] {
                if self.specs[e].restart {
                    p.quit();
                }
            }
            self.players[white] = Some(w);
            self.players[black] = Some(b);
            games.push(r.map_err(PairFailure::Game)?);
        }
        Ok(games)
    }

    fn run<I: Iterator<Item = PairJob>>(&mut self, queue: &Queue<I>, tx: &mpsc::Sender<Message>) {
        while !self.abort.load(Ordering::SeqCst) {
            let job = match queue.take() {
                Take::Job(job) => job,
                Take::Wait => {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                Take::Done => break,
            };
            let msg = match self.play_pair(&job) {
                Ok(games) => Message::Pair(Box::new(FinishedPair { job, games })),
                Err(PairFailure::Start(engine, error)) => {
                    // The engine is restarted from scratch next time.
                    if let Some(mut p) = self.players[engine].take() {
                        p.quit();
                    }
                    Message::StartFailed { job, engine, error }
                }
                Err(PairFailure::Game(GameError::Aborted)) => break,
                Err(PairFailure::Game(error)) => Message::Failed { job, error },
            };
            if tx.send(msg).is_err() {
                break;
            }
        }
        for p in self.players.iter_mut().flatten() {
            p.quit();
        }
    }
}

/// Play the pairs `jobs` yields between `engines` with `settings`, calling
/// `on_pair` on this thread for each finished pair in finishing order until
/// the jobs run out, `on_pair` says stop, a stop flag is raised or the games
/// cannot go on. Jobs are taken lazily: an iterator may compute a job from
/// results seen so far. The concurrency is checked first
/// ([`check_concurrency`], its warning printed on stderr), counting at most
/// as many games as `jobs` says it can yield.
pub fn play_pairs<I, E>(
    engines: &[PlayerSpec],
    settings: &GameSettings,
    jobs: I,
    opts: &PlayOptions,
    mut on_pair: impl FnMut(FinishedPair) -> Result<Flow, E>,
) -> Result<Ended, RunnerError<E>>
where
    I: Iterator<Item = PairJob> + Send,
{
    let most_jobs = jobs.size_hint().1.unwrap_or(usize::MAX);
    let workers = opts.concurrency.max(1).min(most_jobs.max(1));
    if let Some(warning) = check_concurrency(engines, settings, workers)? {
        eprintln!("warning: {warning}");
    }
    let factory: PlayerFactory = opts
        .factory
        .clone()
        .unwrap_or_else(|| Arc::new(crate::players::start_player));
    let queue = Queue {
        retry: Mutex::new(VecDeque::new()),
        jobs: Mutex::new(jobs),
        exhausted: AtomicBool::new(false),
        in_flight: AtomicUsize::new(0),
    };
    let abort = AtomicBool::new(false);
    let stop_requested = || opts.stop.iter().any(|f| f.load(Ordering::SeqCst));
    let mut ended = Ended::Exhausted;
    let mut failure: Option<RunnerError<E>> = None;
    let mut start_failures = vec![0u32; engines.len()];

    std::thread::scope(|scope| -> Result<(), RunnerError<E>> {
        let (tx, rx) = mpsc::channel();
        for i in 0..workers {
            let tx = tx.clone();
            let (queue, abort, factory) = (&queue, &abort, &factory);
            std::thread::Builder::new()
                .name(format!("karsinta-slot-{i}"))
                .spawn_scoped(scope, move || {
                    GameSlot {
                        specs: engines,
                        factory,
                        settings,
                        abort,
                        players: engines.iter().map(|_| None).collect(),
                    }
                    .run(queue, &tx)
                })
                .map_err(RunnerError::Thread)?;
        }
        drop(tx);
        loop {
            // A short poll so that a stop reaches the workers even while no
            // pair finishes.
            let received = rx.recv_timeout(Duration::from_millis(50));
            if stop_requested() && !abort.swap(true, Ordering::SeqCst) && failure.is_none() {
                ended = Ended::Halted;
            }
            if let Some(a) = opts
                .aborted
                .as_ref()
                .filter(|_| abort.load(Ordering::SeqCst))
            {
                a.store(true, Ordering::SeqCst);
            }
            let msg = match received {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            queue.in_flight.fetch_sub(1, Ordering::SeqCst);
            // Checked before the callback: after a stop, whatever still
            // arrives is abandoned work.
            if abort.load(Ordering::SeqCst) {
                continue;
            }
            match msg {
                Message::Pair(p) => {
                    start_failures[p.job.first] = 0;
                    start_failures[p.job.second] = 0;
                    match on_pair(*p) {
                        Ok(Flow::Continue) => {}
                        Ok(Flow::Stop) => {
                            ended = Ended::Stopped;
                            abort.store(true, Ordering::SeqCst);
                        }
                        Err(e) => {
                            failure = Some(RunnerError::Callback(e));
                            abort.store(true, Ordering::SeqCst);
                        }
                    }
                }
                Message::StartFailed { job, engine, error } => {
                    start_failures[engine] += 1;
                    if start_failures[engine] >= opts.max_start_failures.max(1) {
                        failure = Some(RunnerError::EngineLost {
                            engine: engines[engine].name.clone(),
                            failures: start_failures[engine],
                            reason: error.to_string(),
                        });
                        abort.store(true, Ordering::SeqCst);
                    } else {
                        queue
                            .retry
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push_back(job);
                    }
                }
                Message::Failed { job, error } => {
                    let id = job.opening.id;
                    failure = Some(match error {
                        GameError::Unsupported(message) => RunnerError::Unsupported {
                            opening: Some(id),
                            message,
                        },
                        e => RunnerError::BadOpening {
                            id,
                            message: e.to_string(),
                        },
                    });
                    abort.store(true, Ordering::SeqCst);
                }
            }
        }
        Ok(())
    })?;
    match failure {
        Some(f) => Err(f),
        None => Ok(ended),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::PlayerKind;

    fn engine(name: &str, hash: Option<&str>) -> PlayerSpec {
        PlayerSpec {
            name: name.into(),
            kind: PlayerKind::Uci,
            cmd: "/bin/false".into(),
            args: Vec::new(),
            dir: None,
            options: hash
                .map(|h| vec![("Hash".to_string(), h.to_string())])
                .unwrap_or_default(),
            init_timeout: Duration::from_secs(1),
            variant: crate::variant::Variant::Standard,
            stderr_log: None,
            restart: false,
        }
    }

    #[test]
    fn concurrency_is_bounded_by_cores_and_memory() {
        let nodes: TimeControl = "nodes=100".parse().unwrap();
        let two = [engine("a", None), engine("b", Some("64"))];
        let e = check_concurrency_on(&two, &nodes, 17, 2, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "concurrency 17 is more than this machine can use: 2 cores, at most 16 games at \
             once (with a clock, use at most 2)"
        );
        assert_eq!(check_concurrency_on(&two, &nodes, 16, 2, None), Ok(None));
        // 2 * 64 + 32 MB per game: 7 games fit into 1000 MB.
        let e = check_concurrency_on(&two, &nodes, 8, 2, Some(1000)).unwrap_err();
        assert_eq!(
            e,
            ConcurrencyError::Memory {
                workers: 8,
                need: 1280,
                per_game: 160,
                available: 1000,
                most: 6
            }
        );
        assert!(e.to_string().ends_with("use at most 6"), "{e}");
        assert_eq!(
            check_concurrency_on(&two, &nodes, 6, 2, Some(1000)),
            Ok(None)
        );
    }

    #[test]
    fn a_game_larger_than_the_memory_asks_for_less_hash_not_fewer_games() {
        let nodes: TimeControl = "nodes=100".parse().unwrap();
        let big = [engine("small", Some("16")), engine("huge", Some("200000"))];
        let e = check_concurrency_on(&big, &nodes, 1, 2, Some(8000)).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("lower the Hash of engine 'huge' (200000 MB)"),
            "{text}"
        );
        assert!(!text.contains("use at most"), "{text}");
    }

    #[test]
    fn more_games_than_cores_on_a_clock_warns() {
        let two = [engine("a", None), engine("b", None)];
        for tc in ["10+0.1", "40/60", "movetime=0.5"] {
            let tc: TimeControl = tc.parse().unwrap();
            let w = check_concurrency_on(&two, &tc, 3, 2, None).unwrap();
            let w = w.unwrap_or_else(|| panic!("{tc}: no warning"));
            assert!(w.contains("more than the 2 cores"), "{w}");
            assert_eq!(check_concurrency_on(&two, &tc, 2, 2, None), Ok(None));
        }
        // Fixed nodes or depth: the games do not depend on the CPU time.
        for tc in ["nodes=100", "depth=3"] {
            let tc: TimeControl = tc.parse().unwrap();
            assert_eq!(check_concurrency_on(&two, &tc, 16, 2, None), Ok(None));
        }
    }

    #[test]
    fn threads_per_engine_count_against_the_cores_on_a_clock() {
        let mut smp = [engine("a", None), engine("b", None)];
        smp[1].options.push(("Threads".into(), "2".into()));
        let tc: TimeControl = "10+0.1".parse().unwrap();
        // One game at a time with two threads fits two cores; two do not.
        assert_eq!(check_concurrency_on(&smp, &tc, 1, 2, None), Ok(None));
        let w = check_concurrency_on(&smp, &tc, 2, 2, None).unwrap();
        let w = w.expect("a warning");
        assert!(w.contains("2 threads per engine needs 4 cores"), "{w}");
        assert!(w.ends_with("set concurrency to 1 or less"), "{w}");
        let nodes: TimeControl = "nodes=100".parse().unwrap();
        assert_eq!(check_concurrency_on(&smp, &nodes, 2, 2, None), Ok(None));
    }
}
