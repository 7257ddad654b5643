//! How a worker is asked to run, what it reports when it ends, and why it
//! may fail (a setup error exits with status 2, a runtime one with 1).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use karsinta_harness::play::pairs::PlayerFactory;
use thiserror::Error;

use crate::db::DbError;

/// How a worker runs.
#[derive(Clone)]
pub struct WorkerOptions {
    /// The database's connection string.
    pub url: String,
    /// Work on this test only (else the queue's choice: see
    /// [`crate::queue::choose`]).
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
    /// Folders of Syzygy tables on this machine (tests that require
    /// Syzygy go only to machines with tables).
    pub syzygy: Vec<PathBuf>,
    /// Bench runs when the worker starts (median speed, spread).
    pub bench_runs: usize,
    /// Bench spread above which this machine is noisy.
    pub noisy_spread: f64,
    /// For tests: this speed instead of a measured one (no bench run).
    pub assume_nps: Option<u64>,
    /// For tests: this bench spread instead of a measured one.
    pub assume_spread: Option<f64>,
    /// The build cache for tests of revisions (fetched repositories in
    /// `repos/`, builds by commit); `None`: `karsinta ab`'s default
    /// ([`karsinta_harness::players::build::default_cache_dir`]).
    pub build_cache: Option<PathBuf>,
    /// Where the worker's progress lines go (fetches, builds, refusals);
    /// `None`: nowhere.
    pub log: Option<Log>,
}

/// A sink for a worker's progress lines.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

impl WorkerOptions {
    /// The defaults for the database at `url`: any open test, waiting for
    /// new ones, the config's concurrency, ten minutes of patience.
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
            syzygy: Vec::new(),
            bench_runs: crate::speed::DEFAULT_RUNS,
            noisy_spread: crate::speed::DEFAULT_NOISY_SPREAD,
            assume_nps: None,
            assume_spread: None,
            build_cache: None,
            log: None,
        }
    }

    /// Hand `line` to the log, if there is one.
    pub fn say(&self, line: &str) {
        if let Some(log) = &self.log {
            log(line);
        }
    }

    /// The build cache folder for tests of revisions.
    pub fn build_cache_dir(&self) -> PathBuf {
        self.build_cache.clone().unwrap_or_else(|| {
            karsinta_harness::players::build::default_cache_dir(std::path::Path::new("."))
        })
    }
}

/// What a worker did.
#[derive(Clone, Debug, Default)]
pub struct WorkerTotals {
    /// Batches counted.
    pub batches_completed: u64,
    /// Completions refused (lease lost): nothing was added.
    pub batches_rejected: u64,
    /// Pairs played for batches it held.
    pub pairs: u64,
    /// Datagen games played for batches it held.
    pub games: u64,
    /// Statements sent by the claim and completion connection.
    pub round_trips: u64,
}

/// Why a worker stopped before the work ran out.
#[derive(Debug, Error)]
pub enum WorkerError {
    /// The database failed for longer than the patience (exit status 1).
    #[error(transparent)]
    Db(#[from] DbError),
    /// This machine cannot play the test as recorded (exit status 2).
    #[error("test {test}: {message}")]
    Setup {
        /// The test's name.
        test: String,
        /// Why (engines differ, too many games at once, a bad config).
        message: String,
    },
    /// The games could not go on (engines that fail to start).
    #[error("test {test}: {message}")]
    Runner {
        /// The test's name.
        test: String,
        /// The runner's error.
        message: String,
    },
}

impl WorkerError {
    /// Whether this is a setup error (exit status 2).
    pub fn is_setup(&self) -> bool {
        matches!(self, WorkerError::Setup { .. })
    }
}
