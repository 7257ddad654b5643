//! Which test a worker started without `--test` takes, among the open
//! tests its machine may play: OpenBench's rule (its `get_workload.py`),
//! chosen over fishtest's itp because it needs only what the database
//! already knows (who plays what, with how many game slots) and has a
//! stated band that keeps workers from thrashing.
//!
//! 1. Only the open, approved (not `create --hold` awaiting `approve`)
//!    tests this machine meets (cores, memory, Syzygy; a
//!    noisy machine only fixed-node or fixed-depth tests) and has not
//!    refused (see [`mod@crate::queue::refusals`]), and of those only the
//!    highest priority.
//! 2. Each candidate's ratio: the game slots (`concurrency`) of the active
//!    workers on it, plus this worker's, over its throughput weight. The
//!    fair ratio: all those slots plus this worker's over the summed
//!    weights. A test below its share has a ratio below the fair one.
//! 3. A worker already on a candidate stays while no test is more than
//!    [`BAND`] below its share (min ratio / fair > 1 - BAND) and its own is
//!    not more than [`BAND`] above (ratio / fair < 1 + BAND).
//! 4. Otherwise it takes the lowest ratio (ties: the larger weight, then
//!    the older test; OpenBench draws among ties at random).
//!
//! A worker applies the rule when it starts and at every batch boundary
//! (before it claims the next batch); leaving a test marks its worker row
//! `left_at`, so it no longer counts there. Active: not left, and seen
//! (claim, heartbeat, completion) within the test's lease.

use postgres::Client;

use crate::db::DbError;
use crate::queue::catalog::{test_row, TestRow, TEST_COLUMNS};

/// How far (as a fraction of the fair share) a test may fall below its
/// share, or the current one rise above it, before a worker moves:
/// OpenBench's 25%.
pub const BAND: f64 = 0.25;

/// What the rule needs to know of the machine asking.
#[derive(Clone, Debug, PartialEq)]
pub struct Asker {
    /// Its cores.
    pub cores: u32,
    /// Its memory, MiB.
    pub memory_mb: u64,
    /// Whether it has Syzygy tables.
    pub syzygy: bool,
    /// Its bench spread is over the threshold: fixed-node or fixed-depth
    /// tests only.
    pub noisy: bool,
    /// The game slots it brings to a test.
    pub concurrency: u32,
    /// The test it is on and its worker row there, if any.
    pub current: Option<(i64, i64)>,
    /// Tests it refused (its engines would not play them as recorded).
    pub skip: Vec<i64>,
}

/// One open test as the rule sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The test's id.
    pub id: i64,
    /// Its priority.
    pub priority: i32,
    /// Its throughput weight.
    pub throughput: f64,
    /// Game slots of the other active workers on it.
    pub slots: u64,
}

/// The rule over `candidates` (every open test the machine meets) for a
/// worker of `mine` slots now on `current`: the test to play next.
pub fn pick(candidates: &[Candidate], mine: u32, current: Option<i64>) -> Option<i64> {
    let top = candidates.iter().map(|c| c.priority).max()?;
    let cands: Vec<&Candidate> = candidates.iter().filter(|c| c.priority == top).collect();
    let mine = f64::from(mine.max(1));
    let ratio = |c: &Candidate| (c.slots as f64 + mine) / c.throughput;
    let slots: f64 = cands.iter().map(|c| c.slots as f64).sum::<f64>() + mine;
    let weights: f64 = cands.iter().map(|c| c.throughput).sum();
    let fair = slots / weights;
    let min = cands.iter().map(|c| ratio(c)).fold(f64::INFINITY, f64::min);
    if let Some(cur) = current.and_then(|id| cands.iter().find(|c| c.id == id)) {
        if min / fair > 1.0 - BAND && ratio(cur) / fair < 1.0 + BAND {
            return Some(cur.id);
        }
    }
    cands
        .iter()
        .min_by(|a, b| {
            ratio(a)
                .total_cmp(&ratio(b))
                .then(b.throughput.total_cmp(&a.throughput))
                .then(a.id.cmp(&b.id))
        })
        .map(|c| c.id)
}

/// The open tests (not stopped, batches not done) `asker` may play, with
/// the slots of the other active workers on each.
pub fn candidates(c: &mut Client, asker: &Asker) -> Result<Vec<Candidate>, DbError> {
    let me = asker.current.map_or(-1, |(_, w)| w);
    let rows = c.query(
        "SELECT t.id, t.priority, t.throughput, coalesce((SELECT sum(w.concurrency) \
           FROM dist_workers w WHERE w.test_id = t.id AND w.left_at IS NULL AND w.id <> $1 \
           AND w.last_seen > now() - make_interval(secs => t.lease_seconds)), 0)::bigint \
         FROM dist_tests t WHERE NOT t.stopped AND NOT t.held AND t.min_cores <= $2 AND t.min_memory_mb <= $3 \
           AND (NOT t.require_syzygy OR $4) AND (NOT $5 OR t.fixed_limit) \
           AND NOT (t.id = ANY($6)) \
           AND EXISTS (SELECT 1 FROM dist_batches b WHERE b.test_id = t.id AND b.state <> 'done') \
         ORDER BY t.id",
        &[
            &me,
            &(asker.cores.min(i32::MAX as u32) as i32),
            &(asker.memory_mb.min(i64::MAX as u64) as i64),
            &asker.syzygy,
            &asker.noisy,
            &asker.skip,
        ],
    )?;
    Ok(rows
        .iter()
        .map(|r| Candidate {
            id: r.get(0),
            priority: r.get(1),
            throughput: r.get(2),
            slots: r.get::<_, i64>(3).max(0) as u64,
        })
        .collect())
}

/// The test `asker` should play next (see the module doc), if any.
pub fn next_open_test(c: &mut Client, asker: &Asker) -> Result<Option<TestRow>, DbError> {
    let cands = candidates(c, asker)?;
    let Some(id) = pick(&cands, asker.concurrency, asker.current.map(|(t, _)| t)) else {
        return Ok(None);
    };
    c.query_opt(
        &format!("SELECT {TEST_COLUMNS} FROM dist_tests WHERE id = $1"),
        &[&id],
    )?
    .map(|r| test_row(&r))
    .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: i64, priority: i32, throughput: f64, slots: u64) -> Candidate {
        Candidate {
            id,
            priority,
            throughput,
            slots,
        }
    }

    #[test]
    fn the_highest_priority_then_the_furthest_below_its_share() {
        let c = [cand(1, 0, 100.0, 0), cand(2, 1, 100.0, 50)];
        assert_eq!(pick(&c, 1, None), Some(2));
        // 2 slots on a weight 200 (ratio 3/200) against 1 on 100 (2/100).
        let c = [cand(1, 0, 100.0, 1), cand(2, 0, 200.0, 2)];
        assert_eq!(pick(&c, 1, None), Some(2));
        let c = [cand(1, 0, 100.0, 1), cand(2, 0, 200.0, 4)];
        assert_eq!(pick(&c, 1, None), Some(1));
        // Equal ratios: the larger weight.
        let c = [cand(1, 0, 100.0, 1), cand(2, 0, 200.0, 3)];
        assert_eq!(pick(&c, 1, None), Some(2));
        assert_eq!(pick(&[], 1, None), None);
    }

    #[test]
    fn a_worker_within_the_band_stays_and_one_beyond_it_moves() {
        // Fair: 10 slots over 200 = 0.05. Staying on 1: its ratio 6/100 is
        // 1.2 of fair, test 2's 5/100 is 1.0: stay.
        let c = [cand(1, 0, 100.0, 5), cand(2, 0, 100.0, 4)];
        assert_eq!(pick(&c, 1, Some(1)), Some(1));
        assert_eq!(pick(&c, 1, None), Some(2));
        // 7 against 2: 8/100 is 1.6 of fair: move.
        let c = [cand(1, 0, 100.0, 7), cand(2, 0, 100.0, 2)];
        assert_eq!(pick(&c, 1, Some(1)), Some(2));
        // A test that lost its priority is left.
        let c = [cand(1, 0, 100.0, 0), cand(2, 1, 100.0, 9)];
        assert_eq!(pick(&c, 1, Some(1)), Some(2));
    }
}
