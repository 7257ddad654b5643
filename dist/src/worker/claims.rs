//! The runner's job iterator: hands out the pairs of claimed batches and
//! claims the next batch when they run out, backing off while the window
//! is full (a datagen worker claims its batches through the same
//! [`Claimer::next_batch`]). It ends when the test is finished, stopped or decided, on the
//! user's signal, when the database is gone for longer than the worker's
//! patience (recorded in the flags), or, without `--test`, when the
//! queue's rule (asked before each claim) picks another test.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::time::Duration;

use karsinta_harness::play::pairs::PairJob;

use crate::db::Db;
use crate::kinds::TestKind;
use crate::queue::catalog::TestRow;
use crate::queue::choose::{next_open_test, Asker};
use crate::queue::lease::{claim, Claim};
use crate::worker::held::{Flags, Held, Shared};

/// Claims batches of one test for one registered worker.
pub(super) struct Claimer<'a> {
    /// Its own connection (completions use another).
    db: Db,
    test: &'a TestRow,
    worker: i64,
    kind: &'a TestKind,
    held: Held,
    flags: Flags,
    /// Longest pause after a claim that found nothing.
    poll: Duration,
    buffer: VecDeque<PairJob>,
    /// The current pause after a `Wait`.
    wait: Duration,
    /// Without `--test`: the queue's rule, asked at every batch boundary.
    rechoose: Option<Asker>,
}

impl<'a> Claimer<'a> {
    /// A claimer over `db` for worker `worker` of `test`, pausing at most
    /// `poll` between claims that find nothing.
    pub fn new(
        db: Db,
        test: &'a TestRow,
        kind: &'a TestKind,
        worker: i64,
        shared: &Shared,
        poll: Duration,
    ) -> Claimer<'a> {
        Claimer {
            db,
            test,
            worker,
            kind,
            held: shared.held.clone(),
            flags: shared.flags.clone(),
            poll,
            buffer: VecDeque::new(),
            wait: Duration::ZERO,
            rechoose: None,
        }
    }

    /// Before each claim, ask the queue's rule (as `ask`, on this test)
    /// whether to stay: the claims end once it picks another test.
    pub fn rechoosing(mut self, ask: Asker) -> Claimer<'a> {
        self.rechoose = Some(ask);
        self
    }

    /// Whether the rule sends this worker to another test (an error is
    /// recorded and ends the claims too).
    fn sent_elsewhere(&mut self) -> bool {
        let Some(ask) = &self.rechoose else {
            return false;
        };
        match self.db.run(|c| next_open_test(c, ask)) {
            Ok(Some(t)) => t.id != self.test.id,
            Ok(None) => false,
            Err(e) => {
                self.flags.fail(e);
                true
            }
        }
    }

    /// Batch `idx` is ours: hold it and queue its jobs. False if its jobs
    /// cannot be known (the database is gone: recorded).
    fn take(&mut self, idx: i32, token: i64) -> bool {
        // Held before the jobs are known: released at the end if reading
        // them fails.
        let pairs = self.test.pairs_of(idx);
        self.held.hold(idx, token, pairs.count());
        match self.kind.jobs(&mut self.db, self.test, idx) {
            Ok(jobs) => {
                self.buffer.extend(jobs);
                true
            }
            Err(e) => {
                self.flags.fail(e);
                false
            }
        }
    }

    /// Nothing to hand out now: often the wait is for this worker's own
    /// completion (an SPSA window of 1), so retry soon, then back off.
    fn pause(&mut self) {
        self.wait = (self.wait * 2)
            .max(Duration::from_millis(25))
            .min(self.poll);
        std::thread::sleep(self.wait);
    }
}

impl Claimer<'_> {
    /// Claim the next batch: its index and lease token, or `None` once the
    /// claims end (see the module doc). The caller holds it.
    pub fn next_batch(&mut self) -> Option<(i32, i64)> {
        loop {
            if self.flags.halted() || self.sent_elsewhere() {
                return None;
            }
            let (test, worker) = (self.test.id, self.worker);
            match self.db.run(|c| claim(c, test, worker)) {
                Ok(Claim::Batch { idx, token }) => {
                    self.wait = Duration::ZERO;
                    return Some((idx, token));
                }
                Ok(Claim::Wait) => self.pause(),
                Ok(Claim::Finished) => return None,
                Ok(Claim::Stopped) => {
                    self.flags.test_stopped.store(true, Ordering::SeqCst);
                    return None;
                }
                Err(e) => {
                    self.flags.fail(e);
                    return None;
                }
            }
        }
    }
}

impl Iterator for Claimer<'_> {
    type Item = PairJob;

    fn next(&mut self) -> Option<PairJob> {
        loop {
            if let Some(j) = self.buffer.pop_front() {
                return Some(j);
            }
            let (idx, token) = self.next_batch()?;
            if !self.take(idx, token) {
                return None;
            }
        }
    }
}
