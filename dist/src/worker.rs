//! A worker: claims batches of a test, plays them with the harness's match
//! runner ([`karsinta_harness::runner::play_pairs`]) and completes them.
//! An SPSA test's batch is one iteration, played with theta+ / theta- set
//! on the two sides ([`crate::spsa`]).
//! One `play_pairs` call spans all the batches of a test, so engines stay
//! started from batch to batch: its job iterator claims the next batch when
//! the previous one's pairs are all handed out, and the callback completes
//! a batch once its last pair is in. A heartbeat thread renews the leases
//! held; a stopped test (seen on claim or heartbeat) or a lost lease ends
//! the work on it.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use karsinta_harness::pgn::{self, MatchTags, UtcTime};
use karsinta_harness::runner::{
    check_concurrency, play_pairs, Flow, PairJob, PlayOptions, PlayerFactory,
};
use karsinta_harness::stats::SprtParams;
use karsinta_harness::tournament::{round_tag, MatchPlan};
use karsinta_harness::tune::spsa::driver;
use thiserror::Error;

use crate::db::{Db, DbError};
use crate::queue::{self, Beat, Claim, Completed, DistSection, PairResult, TestRow};
use crate::signature;
use crate::spsa::{self, SpsaRun};

/// How a worker runs.
#[derive(Clone)]
pub struct WorkerOptions {
    pub url: String,
    /// Work on this test only (else the oldest open test, then the next).
    pub test: Option<String>,
    /// Exit when no test has work left (else wait for new tests).
    pub fleet: bool,
    /// Games at once; `None`: the test config's `concurrency`.
    pub concurrency: Option<usize>,
    /// How long database retries go on before the worker gives up.
    pub patience: Duration,
    /// Longest pause between claims that found nothing to do.
    pub poll: Duration,
    /// `None`: real engines.
    pub factory: Option<PlayerFactory>,
    /// Raised by a signal handler: give the batches held back and exit.
    pub stop: Option<Arc<AtomicBool>>,
}

impl WorkerOptions {
    pub fn new(url: &str) -> WorkerOptions {
        WorkerOptions {
            url: url.to_string(),
            test: None,
            fleet: false,
            concurrency: None,
            patience: Duration::from_secs(600),
            poll: Duration::from_secs(1),
            factory: None,
            stop: None,
        }
    }
}

/// What a worker did.
#[derive(Clone, Debug, Default)]
pub struct WorkerReport {
    pub batches_completed: u64,
    /// Completions refused (lease lost): nothing was added.
    pub batches_rejected: u64,
    pub pairs: u64,
    /// Statements sent by the claim and completion connection.
    pub round_trips: u64,
}

#[derive(Debug, Error)]
pub enum WorkerError {
    #[error(transparent)]
    Db(#[from] DbError),
    /// This machine cannot play the test as recorded (exit status 2).
    #[error("test {test}: {message}")]
    Setup { test: String, message: String },
    #[error("test {test}: {message}")]
    Runner { test: String, message: String },
}

impl WorkerError {
    pub fn is_setup(&self) -> bool {
        matches!(self, WorkerError::Setup { .. })
    }
}

struct HeldBatch {
    token: i64,
    pairs: Vec<PairResult>,
    left: usize,
    started: Instant,
    lost: bool,
}

type Held = Arc<Mutex<BTreeMap<i32, HeldBatch>>>;

fn lock(h: &Held) -> std::sync::MutexGuard<'_, BTreeMap<i32, HeldBatch>> {
    h.lock().unwrap_or_else(|e| e.into_inner())
}

/// Run until the chosen tests have no work left (or forever without
/// `fleet` and without a named test).
pub fn run_worker(opts: &WorkerOptions) -> Result<WorkerReport, WorkerError> {
    let mut db = Db::open(&opts.url, opts.patience)?;
    let mut report = WorkerReport::default();
    let signalled = || opts.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst));
    loop {
        if signalled() {
            break;
        }
        let test = match &opts.test {
            Some(name) => db.run(|c| queue::test_by_name(c, name))?,
            None => match db.run(queue::next_open_test)? {
                Some(t) => t,
                None if opts.fleet => break,
                None => {
                    std::thread::sleep(opts.poll);
                    continue;
                }
            },
        };
        if !test.stopped {
            work_on(&mut db, &test, opts, &mut report)?;
        }
        if opts.test.is_some() {
            break;
        }
    }
    report.round_trips += db.round_trips;
    Ok(report)
}

fn work_on(
    db: &mut Db,
    test: &TestRow,
    opts: &WorkerOptions,
    report: &mut WorkerReport,
) -> Result<(), WorkerError> {
    let setup = |message: String| WorkerError::Setup {
        test: test.name.clone(),
        message,
    };
    let (cfg, kind) = if test.is_spsa() {
        let run = SpsaRun::of(test, opts.concurrency).map_err(|e| setup(e.to_string()))?;
        (run.cfg.clone(), Kind::Spsa(Box::new(run)))
    } else {
        let cfg = test.config()?;
        let plan = MatchPlan::new(&cfg).map_err(|e| setup(e.to_string()))?;
        let sprt = cfg.sprt;
        (cfg, Kind::Match { plan, sprt })
    };
    let dist = DistSection::of(&cfg)?;
    let (sigs, nps) = signature::signatures(&cfg.engines, dist.bench_depth).map_err(setup)?;
    if let Some(diff) = signature::mismatch(&test.signatures, &sigs) {
        return Err(setup(format!(
            "this machine's engines differ from the test's ({diff}): refusing to play"
        )));
    }
    // Before this worker registers or claims anything.
    let concurrency = opts.concurrency.unwrap_or(cfg.concurrency).max(1);
    check_concurrency(&cfg.engines, &cfg.settings.tc, concurrency)
        .map_err(|e| setup(e.to_string()))?;
    let host = signature::host_name();
    let worker = db.run(|c| queue::register_worker(c, test.id, &host, &sigs, nps))?;

    let held: Held = Arc::new(Mutex::new(BTreeMap::new()));
    let test_stopped = Arc::new(AtomicBool::new(false));
    let finished = Arc::new(AtomicBool::new(false));
    let failure: Arc<Mutex<Option<DbError>>> = Arc::new(Mutex::new(None));

    // Heartbeats on their own connection, every third of the lease.
    let beat_every = Duration::from_millis(u64::from(test.lease_seconds as u32) * 1000 / 3);
    let heartbeat = {
        let (held, stopped, finished) = (held.clone(), test_stopped.clone(), finished.clone());
        let (url, test_id, patience) = (opts.url.clone(), test.id, opts.patience);
        std::thread::spawn(move || {
            let mut hb: Option<Db> = None;
            let mut last = Instant::now();
            while !finished.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(50));
                if last.elapsed() < beat_every {
                    continue;
                }
                last = Instant::now();
                let leases: Vec<(i32, i64)> = lock(&held)
                    .iter()
                    .filter(|(_, b)| !b.lost)
                    .map(|(i, b)| (*i, b.token))
                    .collect();
                if leases.is_empty() {
                    continue;
                }
                if hb.is_none() {
                    // Short patience: a missed beat is retried next time.
                    hb = Db::open(&url, beat_every.min(patience)).ok();
                }
                let Some(conn) = hb.as_mut() else { continue };
                for (idx, token) in leases {
                    match conn.run(|c| queue::heartbeat(c, test_id, idx, token)) {
                        Ok(Beat::Held) => {}
                        Ok(Beat::Lost) => {
                            if let Some(b) = lock(&held).get_mut(&idx) {
                                b.lost = true;
                            }
                        }
                        Ok(Beat::Stopped) => stopped.store(true, Ordering::SeqCst),
                        Err(_) => break,
                    }
                }
            }
        })
    };

    let aborted = Arc::new(AtomicBool::new(false));
    let claimer = Claimer {
        db: Db::open(&opts.url, opts.patience)?,
        test,
        worker,
        kind: &kind,
        held: held.clone(),
        buffer: VecDeque::new(),
        stopped: test_stopped.clone(),
        signal: opts.stop.clone(),
        poll: opts.poll,
        wait: Duration::ZERO,
        failure: failure.clone(),
        aborted: aborted.clone(),
    };
    let mut stops = vec![test_stopped.clone()];
    stops.extend(opts.stop.iter().cloned());
    let play = PlayOptions {
        concurrency,
        stop: stops,
        factory: opts.factory.clone(),
        max_start_failures: cfg.max_start_failures,
        aborted: Some(aborted),
    };
    let date = UtcTime::now().pgn_date();
    let tags = MatchTags {
        event: &cfg.name,
        date: &date,
        tc: &cfg.settings.tc,
    };
    let played = play_pairs(&cfg.engines, &cfg.settings, claimer, &play, |fp| {
        let pair = fp.job.pair;
        let idx = (pair / test.batch_pairs as u64) as i32;
        let result = match &kind {
            Kind::Match { plan, .. } => {
                let mut text = String::new();
                for (i, g) in fp.games.iter().enumerate() {
                    pgn::write_game(&mut text, g, &round_tag(pair, i), &tags);
                }
                PairResult {
                    entry: plan.entry(&fp),
                    pgn: text,
                }
            }
            // No PGN: `karsinta tune spsa` keeps none, and an SPSA run's
            // hundreds of thousands of games would only fill the database.
            Kind::Spsa(run) => PairResult {
                entry: fp.entry(0, run.cfg.openings.is_some().then_some(fp.job.opening.id)),
                pgn: String::new(),
            },
        };
        let ready = {
            let mut h = lock(&held);
            let Some(b) = h.get_mut(&idx) else {
                return Ok::<Flow, DbError>(Flow::Continue);
            };
            b.pairs.push(result);
            b.left -= 1;
            if b.left > 0 {
                None
            } else {
                h.remove(&idx)
            }
        };
        report.pairs += 1;
        let Some(mut b) = ready else {
            return Ok(Flow::Continue);
        };
        if b.lost {
            report.batches_rejected += 1;
            return Ok(Flow::Continue);
        }
        b.pairs.sort_by_key(|p| p.entry.pair);
        let seconds = b.started.elapsed().as_secs_f64();
        let done = db.run(|c| match &kind {
            Kind::Match { sprt, .. } => queue::complete(
                c,
                test,
                sprt.as_ref(),
                idx,
                b.token,
                worker,
                seconds,
                &b.pairs,
            ),
            Kind::Spsa(run) => {
                spsa::complete(c, test, run, idx, b.token, worker, seconds, &b.pairs)
            }
        })?;
        match done {
            Completed::Counted { decision } => {
                report.batches_completed += 1;
                if decision.is_some() {
                    test_stopped.store(true, Ordering::SeqCst);
                    return Ok(Flow::Stop);
                }
            }
            Completed::Rejected => report.batches_rejected += 1,
        }
        Ok(Flow::Continue)
    });
    finished.store(true, Ordering::SeqCst);
    let _ = heartbeat.join();
    // Batches still held (a stop or a signal): back to the pool now rather
    // than when their leases expire.
    let left: Vec<(i32, i64)> = lock(&held).iter().map(|(i, b)| (*i, b.token)).collect();
    for (idx, token) in left {
        let _ = db.run(|c| queue::release(c, test.id, idx, token));
    }
    if let Some(e) = failure.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e.into());
    }
    match played {
        Ok(_) => Ok(()),
        Err(karsinta_harness::runner::RunnerError::Callback(e)) => Err(e.into()),
        Err(karsinta_harness::runner::RunnerError::Concurrency(e)) => Err(setup(e.to_string())),
        Err(e) => Err(WorkerError::Runner {
            test: test.name.clone(),
            message: e.to_string(),
        }),
    }
}

/// What a test plays and how its batches count.
enum Kind {
    Match {
        plan: MatchPlan,
        sprt: Option<SprtParams>,
    },
    /// Batch k - 1 is SPSA iteration k (see [`crate::spsa`]).
    Spsa(Box<SpsaRun>),
}

/// The runner's job iterator: hands out the pairs of claimed batches,
/// claiming the next batch when they run out.
struct Claimer<'a> {
    db: Db,
    test: &'a TestRow,
    worker: i64,
    kind: &'a Kind,
    held: Held,
    buffer: VecDeque<PairJob>,
    stopped: Arc<AtomicBool>,
    signal: Option<Arc<AtomicBool>>,
    poll: Duration,
    /// The current pause after a `Wait`.
    wait: Duration,
    failure: Arc<Mutex<Option<DbError>>>,
    /// Raised by the runner when it abandons the jobs: stop claiming.
    aborted: Arc<AtomicBool>,
}

impl Iterator for Claimer<'_> {
    type Item = PairJob;

    fn next(&mut self) -> Option<PairJob> {
        loop {
            if let Some(j) = self.buffer.pop_front() {
                return Some(j);
            }
            let halted = self.stopped.load(Ordering::SeqCst)
                || self.aborted.load(Ordering::SeqCst)
                || self
                    .signal
                    .as_ref()
                    .is_some_and(|s| s.load(Ordering::SeqCst));
            if halted {
                return None;
            }
            let (test, worker) = (self.test.id, self.worker);
            match self.db.run(|c| queue::claim(c, test, worker)) {
                Ok(Claim::Batch { idx, token }) => {
                    self.wait = Duration::ZERO;
                    let pairs = self.test.pairs_of(idx);
                    // Held before the jobs are known: released at the end
                    // if reading theta fails.
                    lock(&self.held).insert(
                        idx,
                        HeldBatch {
                            token,
                            pairs: Vec::new(),
                            left: pairs.clone().count(),
                            started: Instant::now(),
                            lost: false,
                        },
                    );
                    match self.kind {
                        Kind::Match { plan, .. } => self.buffer.extend(pairs.map(|p| plan.job(p))),
                        Kind::Spsa(run) => {
                            // The claim guarantees theta_{k-W} is recorded.
                            let from = driver::drawn_around(idx as u64 + 1, run.window);
                            match self.db.run(|c| spsa::theta(c, test, from)) {
                                Ok(theta) => self.buffer.extend(run.jobs(self.test, idx, &theta)),
                                Err(e) => {
                                    self.fail(e);
                                    return None;
                                }
                            }
                        }
                    }
                }
                Ok(Claim::Wait) => {
                    // Often the wait is for this worker's own completion
                    // (an SPSA window of 1): retry soon, then back off.
                    self.wait = (self.wait * 2)
                        .max(Duration::from_millis(25))
                        .min(self.poll);
                    std::thread::sleep(self.wait);
                }
                Ok(Claim::Finished) => return None,
                Ok(Claim::Stopped) => {
                    self.stopped.store(true, Ordering::SeqCst);
                    return None;
                }
                Err(e) => {
                    self.fail(e);
                    return None;
                }
            }
        }
    }
}

impl Claimer<'_> {
    /// The database is gone for good: record why and stop claiming.
    fn fail(&self, e: DbError) {
        *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
        self.stopped.store(true, Ordering::SeqCst);
    }
}
