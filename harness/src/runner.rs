//! Playing game pairs: the match runner as a library. A caller names the
//! engines (as [`PlayerSpec`] values), the game settings and the pairs to
//! play; worker threads play them and the caller's thread receives each
//! finished pair, in finishing order, through a callback that says whether
//! to go on. Nothing here reads or writes a file: `karsinta match` (the run
//! folder writer in [`crate::tournament`]), the tuners and the distributed
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

use crate::game::{self, GameError, GameRecord, GameSettings};
use crate::ledger::{GameEntry, PairEntry};
use crate::openings::Opening;
use crate::players::{EngineError, Player, PlayerSpec};

/// Creates a player from its spec (the real one is
/// [`crate::players::start_player`]; tests substitute scripted players).
pub type PlayerFactory =
    Arc<dyn Fn(&PlayerSpec) -> Result<Box<dyn Player>, EngineError> + Send + Sync>;

/// Default for [`PlayOptions::max_start_failures`].
pub const DEFAULT_MAX_START_FAILURES: u32 = 3;

/// Per-side options of one pair (see [`Player::configure`]): `[first, second]`.
pub type PairOptions = Arc<[Vec<(String, String)>; 2]>;

/// One game pair to play: the same opening twice, `first` White in game 1
/// and Black in game 2.
#[derive(Clone, Debug)]
pub struct PairJob {
    /// The caller's number for the pair (round tags, ledger key).
    pub pair: u64,
    /// Indices into the engine list given to [`play_pairs`].
    pub first: usize,
    pub second: usize,
    pub opening: Arc<Opening>,
    /// Options set on each side before the pair (a tuner's perturbed
    /// parameters); `None` leaves the players as they are.
    pub options: Option<PairOptions>,
}

/// A pair whose two games are over: game 1 `first` as White, game 2 swapped.
#[derive(Clone, Debug)]
pub struct FinishedPair {
    pub job: PairJob,
    pub games: [GameRecord; 2],
}

impl FinishedPair {
    /// The ledger's record of the pair; `pairing` is the caller's index of
    /// the engine pairing, `opening` the opening id if a suite is used.
    pub fn entry(&self, pairing: usize, opening: Option<usize>) -> PairEntry {
        let (first, second) = (self.job.first, self.job.second);
        let g = |i: usize, white, black| GameEntry {
            white,
            black,
            result: self.games[i].result,
            termination: self.games[i].termination,
            plies: self.games[i].moves.len() as u32,
        };
        PairEntry {
            pair: self.job.pair,
            pairing,
            first,
            second,
            opening,
            games: [g(0, first, second), g(1, second, first)],
        }
    }
}

/// What the callback wants after a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
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
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            concurrency: 1,
            stop: Vec::new(),
            factory: None,
            max_start_failures: DEFAULT_MAX_START_FAILURES,
        }
    }
}

/// Why [`play_pairs`] could not go on. Pairs already passed to the callback
/// stay with the caller.
#[derive(Debug, Error)]
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

struct Worker<'a> {
    specs: &'a [PlayerSpec],
    factory: &'a PlayerFactory,
    settings: &'a GameSettings,
    abort: &'a AtomicBool,
    players: Vec<Option<Box<dyn Player>>>,
}

impl Worker<'_> {
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

    fn play_pair(&mut self, job: &PairJob) -> Result<[GameRecord; 2], PairFailure> {
        let mut games = Vec::with_capacity(2);
        for (g, (white, black)) in [(job.first, job.second), (job.second, job.first)]
            .into_iter()
            .enumerate()
        {
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
            let fen = job.opening.fen.as_deref();
            let r = game::play_game(
                &mut *w,
                &mut *b,
                fen,
                &job.opening.moves,
                self.settings,
                self.abort,
            );
            self.players[white] = Some(w);
            self.players[black] = Some(b);
            games.push(r.map_err(PairFailure::Game)?);
        }
        match games.try_into() {
            Ok(g) => Ok(g),
            Err(_) => unreachable!("two games"),
        }
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
/// results seen so far.
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
        for i in 0..opts.concurrency.max(1) {
            let tx = tx.clone();
            let (queue, abort, factory) = (&queue, &abort, &factory);
            std::thread::Builder::new()
                .name(format!("karsinta-worker-{i}"))
                .spawn_scoped(scope, move || {
                    Worker {
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
