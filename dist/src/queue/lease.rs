//! Who holds which batch: workers register, claim the lowest open batch
//! within the window under a lease (a random token and an expiry), push
//! the lease forward with heartbeats, and give batches back when they stop
//! early. A lapsed lease goes back to the pool; the next claim replaces
//! its token, so the old holder's completion no longer matches.

use postgres::Client;

use crate::db::DbError;

/// Record a worker of test `test` (this process, on `host`, with its
/// engines' signatures and bench speed), one game slot, no machine row;
/// returns its id.
pub fn register_worker(
    c: &mut Client,
    test: i64,
    host: &str,
    signatures: &str,
    bench_nps: u64,
) -> Result<i64, DbError> {
    register(
        c,
        &NewWorker {
            test,
            host,
            signatures,
            bench_nps,
            machine: None,
            concurrency: 1,
            clock: None,
            build_seconds: None,
            revision_nps: None,
        },
    )
}

/// A worker process on one test, as [`register`] records it.
#[derive(Clone, Debug)]
pub struct NewWorker<'a> {
    /// The test.
    pub test: i64,
    /// The machine's name.
    pub host: &'a str,
    /// Its engines' signatures (JSON).
    pub signatures: &'a str,
    /// Their summed bench speed.
    pub bench_nps: u64,
    /// Its `dist_machines` row, if it registered one.
    pub machine: Option<i64>,
    /// Games at once: the slots it counts for in the queue's shares.
    pub concurrency: u32,
    /// The clock it plays (scaled to its speed), for a clock test.
    pub clock: Option<&'a str>,
    /// Seconds it took to fetch, build and bench the revisions, for a
    /// test of revisions.
    pub build_seconds: Option<f64>,
    /// Each build's bench speed on this machine (JSON), for a test of
    /// revisions.
    pub revision_nps: Option<&'a str>,
}

/// Record a worker of a test; returns its id.
pub fn register(c: &mut Client, w: &NewWorker<'_>) -> Result<i64, DbError> {
    Ok(c.query_one(
        "INSERT INTO dist_workers (test_id, host, pid, signatures, bench_nps, machine_id, \
             concurrency, clock, build_seconds, revision_nps) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             RETURNING id",
        &[
            &w.test,
            &w.host,
            &(std::process::id() as i32),
            &w.signatures,
            &(w.bench_nps.min(i64::MAX as u64) as i64),
            &w.machine,
            &(w.concurrency.clamp(1, i32::MAX as u32) as i32),
            &w.clock,
            &w.build_seconds,
            &w.revision_nps,
        ],
    )?
    .get(0))
}

/// The worker left its test (finished, moved to another, stopped): it no
/// longer counts in the test's share.
pub fn leave(c: &mut Client, worker: i64) -> Result<(), DbError> {
    c.execute(
        "UPDATE dist_workers SET left_at = coalesce(left_at, now()) WHERE id = $1",
        &[&worker],
    )?;
    Ok(())
}

/// What a claim found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Batch `idx` is leased to the caller under `token`.
    Batch {
        /// The batch.
        idx: i32,
        /// The lease's token, which heartbeats and the completion present.
        token: i64,
    },
    /// Nothing to hand out now (all open batches leased, beyond the
    /// window, or the test awaits approval); an expiring lease, a growing
    /// prefix or `approve` may change that.
    Wait,
    /// Every batch is done.
    Finished,
    /// The test was stopped (SPRT decision or `karsinta-dist stop`).
    Stopped,
}

/// Claim the lowest open batch within the window.
pub fn claim(c: &mut Client, test: i64, worker: i64) -> Result<Claim, DbError> {
    let token: i64 = rand::random();
    let mut tx = c.transaction()?;
    let t = tx.query_one(
        "SELECT stopped, prefix_batches + window_batches, lease_seconds, \
         (SELECT purged IS NOT NULL FROM dist_workers WHERE id = $2), held FROM dist_tests \
         WHERE id = $1",
        &[&test, &worker],
    )?;
    // A purged worker plays no more of the test (under this registration).
    if t.get::<_, bool>(0) || t.get::<_, Option<bool>>(3).unwrap_or(false) {
        return Ok(Claim::Stopped);
    }
    // Awaiting approval: a worker named to it (`--test`) waits, as for a
    // full window; the queue's rule never offers it.
    if t.get::<_, bool>(4) {
        return Ok(Claim::Wait);
    }
    let limit: i32 = t.get(1);
    let lease: i32 = t.get(2);
    let row = tx.query_opt(
        "UPDATE dist_batches SET state = 'leased', lease_token = $3, worker_id = $4, \
         lease_until = now() + make_interval(secs => $5), claims = claims + 1 \
         WHERE test_id = $1 AND idx = (SELECT idx FROM dist_batches WHERE test_id = $1 \
           AND idx < $2 AND (state = 'pending' OR (state = 'leased' AND lease_until < now())) \
           ORDER BY idx LIMIT 1 FOR UPDATE SKIP LOCKED) \
         RETURNING idx",
        &[&test, &limit, &token, &worker, &f64::from(lease)],
    )?;
    let claim = match row {
        Some(r) => Claim::Batch {
            idx: r.get(0),
            token,
        },
        None => {
            let open: i64 = tx
                .query_one(
                    "SELECT count(*) FROM dist_batches WHERE test_id = $1 AND state <> 'done'",
                    &[&test],
                )?
                .get(0);
            if open == 0 {
                Claim::Finished
            } else {
                Claim::Wait
            }
        }
    };
    tx.execute(
        "UPDATE dist_workers SET last_seen = now() WHERE id = $1",
        &[&worker],
    )?;
    tx.commit()?;
    Ok(claim)
}

/// What a heartbeat found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beat {
    /// Still ours, pushed forward.
    Held,
    /// Another worker claimed the batch after the lease expired.
    Lost,
    /// The test was stopped: end the work on it.
    Stopped,
}

/// Push the lease of batch `idx` forward.
pub fn heartbeat(c: &mut Client, test: i64, idx: i32, token: i64) -> Result<Beat, DbError> {
    let row = c.query_one(
        "WITH renewed AS (UPDATE dist_batches b SET lease_until = now() + \
           make_interval(secs => t.lease_seconds) FROM dist_tests t \
           WHERE b.test_id = $1 AND b.idx = $2 AND b.lease_token = $3 \
             AND b.state = 'leased' AND t.id = b.test_id RETURNING b.worker_id), \
         seen AS (UPDATE dist_workers w SET last_seen = now() FROM renewed r \
           WHERE w.id = r.worker_id) \
         SELECT (SELECT stopped FROM dist_tests WHERE id = $1), EXISTS (SELECT 1 FROM renewed)",
        &[&test, &idx, &token],
    )?;
    Ok(match (row.get::<_, bool>(0), row.get::<_, bool>(1)) {
        (true, _) => Beat::Stopped,
        (false, true) => Beat::Held,
        (false, false) => Beat::Lost,
    })
}

/// Give a batch back to the pool (a worker that stops early).
pub fn release(c: &mut Client, test: i64, idx: i32, token: i64) -> Result<(), DbError> {
    c.execute(
        "UPDATE dist_batches SET state = 'pending', lease_token = NULL, lease_until = NULL \
         WHERE test_id = $1 AND idx = $2 AND lease_token = $3 AND state = 'leased'",
        &[&test, &idx, &token],
    )?;
    Ok(())
}
