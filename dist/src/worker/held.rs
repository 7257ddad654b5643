//! What a worker's threads share while they work on one test: the batches
//! held (claimed by the job iterator, renewed by the heartbeat thread,
//! filled and completed by the per-pair step) and the flags that end the
//! work.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use crate::db::DbError;
use crate::queue::results::PairResult;

/// The held batches and the flags, cloned into each thread.
#[derive(Clone)]
pub(super) struct Shared {
    /// The batches held.
    pub held: Held,
    /// What ends the work.
    pub flags: Flags,
}

impl Shared {
    /// Nothing held yet, under the user's `signal`.
    pub fn new(signal: Option<Arc<AtomicBool>>) -> Shared {
        Shared {
            held: Held::default(),
            flags: Flags::new(signal),
        }
    }
}

/// One claimed batch being played.
pub(super) struct HeldBatch {
    /// The lease's token.
    pub token: i64,
    /// Its pairs finished so far.
    pub pairs: Vec<PairResult>,
    /// Pairs still to come.
    pub left: usize,
    /// When it was claimed.
    pub started: Instant,
    /// A heartbeat found the lease taken over: its completion will be
    /// refused, so it is not sent.
    pub lost: bool,
}

/// What adding a pair found.
pub(super) enum Added {
    /// The pair's batch is not held (released or never claimed).
    NotHeld,
    /// More pairs of the batch are to come.
    Waiting,
    /// That was the last pair: the batch, no longer held.
    Last(HeldBatch),
}

/// The held batches by index.
#[derive(Clone, Default)]
pub(super) struct Held(Arc<Mutex<BTreeMap<i32, HeldBatch>>>);

impl Held {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<i32, HeldBatch>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hold batch `idx` of `pairs` pairs under `token`.
    pub fn hold(&self, idx: i32, token: i64, pairs: usize) {
        let batch = HeldBatch {
            token,
            pairs: Vec::new(),
            left: pairs,
            started: Instant::now(),
            lost: false,
        };
        self.lock().insert(idx, batch);
    }

    /// Add a finished pair to batch `idx`.
    pub fn add(&self, idx: i32, pair: PairResult) -> Added {
        let mut h = self.lock();
        let Some(b) = h.get_mut(&idx) else {
            return Added::NotHeld;
        };
        b.pairs.push(pair);
        b.left -= 1;
        if b.left > 0 {
            return Added::Waiting;
        }
        h.remove(&idx).map_or(Added::NotHeld, Added::Last)
    }

    /// Stop holding batch `idx`: it, if it was held.
    pub fn take(&self, idx: i32) -> Option<HeldBatch> {
        self.lock().remove(&idx)
    }

    /// The leases to renew: (batch, token) of those not lost.
    pub fn live_leases(&self) -> Vec<(i32, i64)> {
        let h = self.lock();
        h.iter()
            .filter(|(_, b)| !b.lost)
            .map(|(i, b)| (*i, b.token))
            .collect()
    }

    /// Every lease still held, lost or not.
    pub fn all_leases(&self) -> Vec<(i32, i64)> {
        self.lock().iter().map(|(i, b)| (*i, b.token)).collect()
    }

    /// Batch `idx`'s lease went to another worker.
    pub fn mark_lost(&self, idx: i32) {
        if let Some(b) = self.lock().get_mut(&idx) {
            b.lost = true;
        }
    }
}

/// The flags that end the work on a test, and the error that ended it.
#[derive(Clone)]
pub(super) struct Flags {
    /// The test was stopped or decided (seen on a claim, a heartbeat or a
    /// completion), or the database is gone: no more claims.
    pub test_stopped: Arc<AtomicBool>,
    /// Raised by the runner when it abandons the jobs: stop claiming.
    pub aborted: Arc<AtomicBool>,
    /// The user's signal (Ctrl-C, SIGTERM).
    pub signal: Option<Arc<AtomicBool>>,
    failure: Arc<Mutex<Option<DbError>>>,
}

impl Flags {
    /// Fresh flags under the user's `signal`.
    pub fn new(signal: Option<Arc<AtomicBool>>) -> Flags {
        Flags {
            test_stopped: Arc::new(AtomicBool::new(false)),
            aborted: Arc::new(AtomicBool::new(false)),
            signal,
            failure: Arc::new(Mutex::new(None)),
        }
    }

    /// Whether claiming should stop.
    pub fn halted(&self) -> bool {
        self.test_stopped.load(Ordering::SeqCst)
            || self.aborted.load(Ordering::SeqCst)
            || self
                .signal
                .as_ref()
                .is_some_and(|s| s.load(Ordering::SeqCst))
    }

    /// The flags that make the runner abandon its games.
    pub fn runner_stops(&self) -> Vec<Arc<AtomicBool>> {
        let mut stops = vec![self.test_stopped.clone()];
        stops.extend(self.signal.iter().cloned());
        stops
    }

    /// The database is gone for good: record why and stop claiming.
    pub fn fail(&self, e: DbError) {
        *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
        self.test_stopped.store(true, Ordering::SeqCst);
    }

    /// The failure recorded, if any.
    pub fn take_failure(&self) -> Option<DbError> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}
