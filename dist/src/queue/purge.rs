//! Purging a worker whose results do not fit the others' (fishtest's
//! purge): its completed batches leave the counts and go back to the
//! queue, its pairs are kept aside with the purge's record, and the
//! completed prefix and the SPRT are counted again from what remains.
//!
//! Batches are deterministic, so at fixed nodes the workers that replay a
//! purged batch play the same games the purged worker should have played:
//! a purge changes which machine played a batch, never what a correct
//! machine would have counted. Only match tests can be purged: an SPSA
//! test has already applied each batch as an iteration.

use karsinta_harness::stats::SprtDecision;
use postgres::{Client, Transaction};

use crate::db::DbError;
use crate::kinds::TestKind;
use crate::queue::catalog::{lock_test, Kind, TestRow};

/// What a purge took out.
#[derive(Clone, Debug, PartialEq)]
pub struct Purged {
    /// The purge's record.
    pub id: i64,
    /// Its batches, now pending again.
    pub batches: Vec<i32>,
    /// Pairs moved out of the counts.
    pub pairs: u64,
    /// The SPRT's decision after counting again (`None`: running again).
    pub decision: Option<SprtDecision>,
}

/// One recorded purge, for `status` and the web view.
#[derive(Clone, Debug, PartialEq)]
pub struct PurgeRow {
    /// The worker purged.
    pub worker: i64,
    /// Its machine.
    pub host: String,
    /// Why: the residual rule, crashes and time losses, or by hand.
    pub reason: String,
    /// Batches put back in the queue.
    pub batches: i32,
    /// Pairs taken out of the counts.
    pub pairs: i64,
    /// When, as text (UTC).
    pub at: String,
}

/// Purge `worker` from match test `test` (whose kind is `kind`): in one
/// transaction under the test's lock, as a completion takes it.
pub fn purge_worker(
    c: &mut Client,
    test: &TestRow,
    kind: &TestKind,
    worker: i64,
    reason: &str,
) -> Result<Purged, DbError> {
    let why = match test.kind {
        Kind::Match => None,
        Kind::Spsa => Some("an SPSA test applied each batch as an iteration"),
        Kind::Datagen => Some("a datagen test has no results to judge a worker by"),
    };
    if let Some(why) = why {
        return Err(DbError::Invalid(format!(
            "test {}: {why}; only match tests can be purged",
            test.name
        )));
    }
    let mut tx = c.transaction()?;
    lock_test(&mut tx, test.id)?;
    let done = purge_locked(&mut tx, test, kind, worker, reason)?;
    tx.commit()?;
    Ok(done)
}

/// [`purge_worker`]'s work inside `tx`, which holds the test's lock.
fn purge_locked(
    tx: &mut Transaction<'_>,
    test: &TestRow,
    kind: &TestKind,
    worker: i64,
    reason: &str,
) -> Result<Purged, DbError> {
    let prefix: i32 = tx
        .query_one(
            "SELECT prefix_batches FROM dist_tests WHERE id = $1",
            &[&test.id],
        )?
        .get(0);
    let owner: Option<i64> = tx
        .query_opt("SELECT test_id FROM dist_workers WHERE id = $1", &[&worker])?
        .map(|r| r.get(0));
    if owner != Some(test.id) {
        return Err(DbError::Invalid(format!(
            "worker {worker} did not play test {} (see `karsinta-dist status {}`)",
            test.name, test.name
        )));
    }
    let batches: Vec<i32> = tx
        .query(
            "SELECT idx FROM dist_batches WHERE test_id = $1 AND worker_id = $2 AND \
             state = 'done' ORDER BY idx",
            &[&test.id, &worker],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let id: i64 = tx
        .query_one(
            "INSERT INTO dist_purges (test_id, worker_id, reason, batches) VALUES ($1, $2, $3, $4) \
             RETURNING id",
            &[&test.id, &worker, &reason, &(batches.len() as i32)],
        )?
        .get(0);
    let pairs = move_pairs(tx, test.id, id, &batches)?;
    tx.execute(
        "UPDATE dist_purges SET pairs = $2 WHERE id = $1",
        &[&id, &(pairs as i64)],
    )?;
    // Its done batches and any it still holds go back to the pool; a held
    // batch's token is cleared, so its completion is refused.
    tx.execute(
        "UPDATE dist_batches SET state = 'pending', lease_token = NULL, worker_id = NULL, \
         lease_until = NULL, completed = NULL, seconds = NULL, clock = NULL \
         WHERE test_id = $1 AND worker_id = $2",
        &[&test.id, &worker],
    )?;
    tx.execute(
        "UPDATE dist_workers SET purged = now(), left_at = coalesce(left_at, now()) WHERE id = $1",
        &[&worker],
    )?;
    let end = batches.first().map_or(prefix, |&b| b.min(prefix));
    let decision = recount(tx, test, kind, end)?;
    Ok(Purged {
        id,
        batches,
        pairs,
        decision,
    })
}

/// What [`purge_at_end`] records as the reason: fishtest's, marked as
/// the test's own purge.
pub const AUTO_REASON: &str = "automatic purge at the test's end";

/// `create --purge auto`: the purge by fishtest's rule
/// ([`crate::status::bad_workers`]) that a test whose completion just
/// ended it (the prefix reached its last batch, or the SPRT decided) runs
/// on itself, inside that completion's transaction (holding the test's
/// lock), so that a test ends once with its outliers purged or not at all.
/// Each purge is recorded as a manual one is, its reason starting with
/// [`AUTO_REASON`] and what ended the test (`automatic purge at the test's
/// end (SPRT H1): residual ...`, or `(its last batch)`); the SPRT's
/// decision after it (`None`: the test runs again, its purged batches back
/// in the queue).
pub fn purge_at_end(
    tx: &mut Transaction<'_>,
    test: &TestRow,
    kind: &TestKind,
    decision: Option<SprtDecision>,
) -> Result<Option<SprtDecision>, DbError> {
    let (figures, chi2) = crate::status::worker_figures(tx, test)?;
    let ended_by = decision.map_or("its last batch".to_string(), |d| {
        format!("SPRT {}", d.as_str())
    });
    let mut decision = decision;
    for (w, why) in crate::status::bad_workers(&figures, chi2.as_ref()) {
        let reason = format!("{AUTO_REASON} ({ended_by}): {why}");
        decision = purge_locked(tx, test, kind, w, &reason)?.decision;
    }
    Ok(decision)
}

/// Move the pairs of `batches` to the purge's keeping.
fn move_pairs(
    tx: &mut Transaction<'_>,
    test: i64,
    purge: i64,
    batches: &[i32],
) -> Result<u64, DbError> {
    tx.execute(
        "INSERT INTO dist_purged_pairs (purge_id, test_id, pair, batch, worker_id, entry, pgn) \
         SELECT $2, test_id, pair, batch, worker_id, entry, pgn FROM dist_pairs \
         WHERE test_id = $1 AND batch = ANY($3)",
        &[&test, &purge, &batches],
    )?;
    Ok(tx.execute(
        "DELETE FROM dist_pairs WHERE test_id = $1 AND batch = ANY($2)",
        &[&test, &batches],
    )?)
}

/// Count the prefix `0..end` again from scratch: the SPRT decides where it
/// first crosses a bound within it, or the test runs again. A test stopped
/// by its SPRT reopens when the decision goes; one stopped by hand stays
/// stopped.
fn recount(
    tx: &mut Transaction<'_>,
    test: &TestRow,
    kind: &TestKind,
    end: i32,
) -> Result<Option<SprtDecision>, DbError> {
    tx.execute(
        "UPDATE dist_tests SET sprt_penta = '[0,0,0,0,0]', sprt_pairs = 0, decision = NULL \
         WHERE id = $1",
        &[&test.id],
    )?;
    let decision = kind.advance(tx, test, 0..end)?;
    tx.execute(
        "UPDATE dist_tests SET prefix_batches = $2, \
         stopped = CASE WHEN $3 AND stop_reason LIKE 'SPRT %' THEN false ELSE stopped END, \
         stop_reason = CASE WHEN $3 AND stop_reason LIKE 'SPRT %' THEN NULL ELSE stop_reason END \
         WHERE id = $1",
        &[&test.id, &end, &decision.is_none()],
    )?;
    Ok(decision)
}

/// The purges of a test, oldest first.
pub fn purges(c: &mut Client, test: i64) -> Result<Vec<PurgeRow>, DbError> {
    Ok(c.query(
        "SELECT p.worker_id, w.host, p.reason, p.batches, p.pairs, \
             to_char(p.at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') \
             FROM dist_purges p JOIN dist_workers w ON w.id = p.worker_id \
             WHERE p.test_id = $1 ORDER BY p.id",
        &[&test],
    )?
    .iter()
    .map(|r| PurgeRow {
        worker: r.get(0),
        host: r.get(1),
        reason: r.get(2),
        batches: r.get(3),
        pairs: r.get(4),
        at: r.get(5),
    })
    .collect())
}

/// Purge from test `name` the worker `worker`, or with `None` the workers
/// fishtest's rule picks ([`crate::status::bad_workers`]); each purged
/// worker with its reason and what it took out. Empty: no bad worker.
pub fn purge_test(
    c: &mut Client,
    name: &str,
    worker: Option<i64>,
) -> Result<Vec<(i64, String, Purged)>, DbError> {
    let test = crate::queue::catalog::test_by_name(c, name)?;
    let kind = TestKind::of(&test, None)?;
    let chosen = match worker {
        Some(w) => vec![(w, "purged by hand".to_string())],
        None => {
            let (figures, chi2) = crate::status::worker_figures(c, &test)?;
            crate::status::bad_workers(&figures, chi2.as_ref())
        }
    };
    let mut out = Vec::new();
    for (w, reason) in chosen {
        let done = purge_worker(c, &test, &kind, w, &reason)?;
        out.push((w, reason, done));
    }
    Ok(out)
}
