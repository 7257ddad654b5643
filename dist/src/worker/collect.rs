//! The per-pair step of a worker's runner: each finished pair joins its
//! held batch; the batch's last pair completes it through the queue's
//! completion core, and a decided test stops the runner.

use std::sync::atomic::Ordering;

use karsinta_harness::formats::pgn_write::UtcTime;
use karsinta_harness::play::pairs::{FinishedPair, Flow};

use crate::db::{Db, DbError};
use crate::kinds::TestKind;
use crate::queue::catalog::TestRow;
use crate::queue::completion::{complete, Completed};
use crate::queue::lease::release;
use crate::queue::results::FinishedBatch;
use crate::worker::held::{Added, Flags, Held, HeldBatch, Shared};
use crate::worker::options::WorkerTotals;

/// Collects the pairs of one worker's batches.
pub(super) struct Collector<'a> {
    /// The completion connection.
    db: &'a mut Db,
    test: &'a TestRow,
    kind: &'a TestKind,
    worker: i64,
    held: Held,
    flags: Flags,
    /// The PGN `Date` of this worker's games.
    date: String,
    totals: &'a mut WorkerTotals,
}

impl<'a> Collector<'a> {
    /// A collector completing over `db` for worker `worker` of `test`.
    pub fn new(
        db: &'a mut Db,
        test: &'a TestRow,
        kind: &'a TestKind,
        worker: i64,
        shared: &Shared,
        totals: &'a mut WorkerTotals,
    ) -> Collector<'a> {
        Collector {
            db,
            test,
            kind,
            worker,
            held: shared.held.clone(),
            flags: shared.flags.clone(),
            date: UtcTime::now().pgn_date(),
            totals,
        }
    }

    /// Give back every batch still held (a stop or a signal), so that it
    /// returns to the pool now rather than when its lease expires.
    pub fn release_held(&mut self) {
        let test = self.test.id;
        for (idx, token) in self.held.all_leases() {
            let _ = self.db.run(|c| release(c, test, idx, token));
        }
    }

    /// Add one finished pair; complete its batch if it was the last.
    pub fn on_pair(&mut self, fp: FinishedPair) -> Result<Flow, DbError> {
        let idx = self.test.batch_of(fp.job.pair);
        let result = self.kind.pair_result(&fp, &self.date);
        let added = self.held.add(idx, result);
        if !matches!(added, Added::NotHeld) {
            self.totals.pairs += 1;
        }
        match added {
            Added::Last(batch) => self.complete(idx, batch),
            Added::NotHeld | Added::Waiting => Ok(Flow::Continue),
        }
    }

    fn complete(&mut self, idx: i32, mut b: HeldBatch) -> Result<Flow, DbError> {
        if b.lost {
            self.totals.batches_rejected += 1;
            return Ok(Flow::Continue);
        }
        b.pairs.sort_by_key(|p| p.entry.pair);
        let finished = FinishedBatch {
            idx,
            token: b.token,
            worker: self.worker,
            seconds: b.started.elapsed().as_secs_f64(),
            pairs: &b.pairs,
        };
        let (test, kind) = (self.test, self.kind);
        match self.db.run(|c| complete(c, test, kind, &finished))? {
            Completed::Counted { decision } => {
                self.totals.batches_completed += 1;
                if decision.is_some() {
                    self.flags.test_stopped.store(true, Ordering::SeqCst);
                    return Ok(Flow::Stop);
                }
            }
            Completed::Rejected => self.totals.batches_rejected += 1,
        }
        Ok(Flow::Continue)
    }
}
