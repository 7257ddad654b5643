//! The heartbeat thread: on its own connection, every third of the lease,
//! it pushes the leases of the held batches forward, marks those another
//! worker took over as lost, and raises the stop flag when the test was
//! stopped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::db::Db;
use crate::queue::catalog::TestRow;
use crate::queue::lease::{heartbeat, Beat};
use crate::worker::held::{Flags, Held, Shared};
use crate::worker::options::WorkerOptions;

/// A running heartbeat thread.
pub(super) struct Heartbeat {
    thread: JoinHandle<()>,
    finished: Arc<AtomicBool>,
}

/// What the thread needs.
struct Beats {
    url: String,
    test: i64,
    /// Time between rounds: a third of the lease.
    every: Duration,
    patience: Duration,
    held: Held,
    flags: Flags,
    finished: Arc<AtomicBool>,
}

impl Heartbeat {
    /// Start beating for the batches of `test` that `shared` holds.
    pub fn start(opts: &WorkerOptions, test: &TestRow, shared: &Shared) -> Heartbeat {
        let finished = Arc::new(AtomicBool::new(false));
        let lease_ms = u64::from(test.lease_seconds.max(1) as u32) * 1000;
        let beats = Beats {
            url: opts.url.clone(),
            test: test.id,
            every: Duration::from_millis(lease_ms / 3),
            patience: opts.patience,
            held: shared.held.clone(),
            flags: shared.flags.clone(),
            finished: finished.clone(),
        };
        Heartbeat {
            thread: std::thread::spawn(move || beats.run()),
            finished,
        }
    }

    /// End the thread (the games are over).
    pub fn stop(self) {
        self.finished.store(true, Ordering::SeqCst);
        let _ = self.thread.join();
    }
}

impl Beats {
    fn run(self) {
        let mut conn: Option<Db> = None;
        let mut last = Instant::now();
        while !self.finished.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
            if last.elapsed() < self.every {
                continue;
            }
            last = Instant::now();
            let leases = self.held.live_leases();
            if leases.is_empty() {
                continue;
            }
            if conn.is_none() {
                // Short patience: a missed beat is retried next time.
                conn = Db::open(&self.url, self.every.min(self.patience)).ok();
            }
            if let Some(c) = conn.as_mut() {
                self.beat(c, &leases);
            }
        }
    }

    /// One round over `leases`; a database error ends the round early.
    fn beat(&self, conn: &mut Db, leases: &[(i32, i64)]) {
        for &(idx, token) in leases {
            match conn.run(|c| heartbeat(c, self.test, idx, token)) {
                Ok(Beat::Held) => {}
                Ok(Beat::Lost) => self.held.mark_lost(idx),
                Ok(Beat::Stopped) => self.flags.test_stopped.store(true, Ordering::SeqCst),
                Err(_) => break,
            }
        }
    }
}
