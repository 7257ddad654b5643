//! The work queue in the database: tests, batches and their leases, and
//! the completion that counts a batch once. Each function is one
//! transaction (safe for [`crate::db::Db::run`] to retry).
//!
//! Batch `k` of a test is game pairs `[kB, (k+1)B)`. A worker claims the
//! lowest open batch with `FOR UPDATE SKIP LOCKED` (concurrent claims never
//! wait on each other) and holds it under a lease: a random token and an
//! expiry, pushed forward by heartbeats. A batch whose lease expired goes
//! back to the pool and the next claim replaces the token, so the old
//! holder's completion no longer matches. Completion requires the batch to
//! be leased under the caller's token and flips it to `done` in the same
//! statement, so a repeated, late or duplicate completion adds nothing.
//!
//! The SPRT runs on the longest prefix of completed batches, pair by pair
//! in pair order (the order one `karsinta match` with one worker counts
//! them), so its decision does not depend on which batch finished first;
//! claims only hand out batches within `window_batches` of that prefix.
//! An SPSA test uses the same batches, leases and window (batch k - 1 is
//! iteration k, the window is the SPSA one); its completion is
//! [`crate::spsa::complete`].

use karsinta_harness::config::MatchConfig;
use karsinta_harness::ledger::PairEntry;
use karsinta_harness::stats::{Pentanomial, SprtDecision};
use postgres::Client;
use serde::{Deserialize, Serialize};

use crate::db::DbError;

/// The `dist:` block of a test's config.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DistSection {
    /// Game pairs per batch (the unit a worker claims and completes).
    #[serde(default = "default_batch_pairs")]
    pub batch_pairs: u32,
    /// Batches handed out beyond the completed prefix.
    #[serde(default = "default_window")]
    pub window_batches: u32,
    /// Seconds a lease lasts without a heartbeat.
    #[serde(default = "default_lease")]
    pub lease_seconds: u32,
    /// Depth of the in-process engine's bench signature.
    #[serde(default = "default_bench_depth")]
    pub bench_depth: i32,
}

fn default_batch_pairs() -> u32 {
    8
}
fn default_window() -> u32 {
    64
}
fn default_lease() -> u32 {
    60
}
/// The signature only has to tell engines apart, and `create` and every
/// worker compute it before any game: at the bench's own depth 10 a weak
/// parameter set (configs/params/simple.yaml) took over 9 minutes, at 6
/// still 25 s; depth 5 separates parameter sets in seconds.
fn default_bench_depth() -> i32 {
    5
}

impl Default for DistSection {
    fn default() -> Self {
        DistSection {
            batch_pairs: default_batch_pairs(),
            window_batches: default_window(),
            lease_seconds: default_lease(),
            bench_depth: default_bench_depth(),
        }
    }
}

impl DistSection {
    /// The block of `cfg`, checked; defaults without one.
    pub fn of(cfg: &MatchConfig) -> Result<DistSection, DbError> {
        let d: DistSection = cfg
            .section("dist")
            .map_err(|e| DbError::Invalid(e.to_string()))?
            .unwrap_or_default();
        let bad = |key: &str, msg: &str| {
            DbError::Invalid(format!("{}: dist.{key}: {msg}", cfg.path.display()))
        };
        if d.batch_pairs == 0 {
            return Err(bad("batch_pairs", "must be at least 1"));
        }
        if d.window_batches == 0 {
            return Err(bad("window_batches", "must be at least 1"));
        }
        if d.lease_seconds == 0 {
            return Err(bad("lease_seconds", "must be at least 1"));
        }
        if !(1..=64).contains(&d.bench_depth) {
            return Err(bad("bench_depth", "must be between 1 and 64"));
        }
        Ok(d)
    }
}

/// A test as stored.
#[derive(Clone, Debug)]
pub struct TestRow {
    pub id: i64,
    pub name: String,
    pub config_yaml: String,
    pub batch_pairs: i64,
    pub total_pairs: i64,
    pub batches: i32,
    pub window_batches: i32,
    pub lease_seconds: i32,
    /// JSON list of per-engine signatures.
    pub signatures: String,
    pub stopped: bool,
    pub stop_reason: Option<String>,
    pub prefix_batches: i32,
    pub sprt_pairs: i64,
    pub decision: Option<String>,
    /// `match` or `spsa` ([`crate::spsa::KIND`]).
    pub kind: String,
}

const TEST_COLUMNS: &str = "id, name, config_yaml, batch_pairs, total_pairs, batches, \
    window_batches, lease_seconds, signatures, stopped, stop_reason, prefix_batches, \
    sprt_pairs, decision, kind";

fn test_row(r: &postgres::Row) -> TestRow {
    TestRow {
        id: r.get(0),
        name: r.get(1),
        config_yaml: r.get(2),
        batch_pairs: i64::from(r.get::<_, i32>(3)),
        total_pairs: r.get(4),
        batches: r.get(5),
        window_batches: r.get(6),
        lease_seconds: r.get(7),
        signatures: r.get(8),
        stopped: r.get(9),
        stop_reason: r.get(10),
        prefix_batches: r.get(11),
        sprt_pairs: r.get(12),
        decision: r.get(13),
        kind: r.get(14),
    }
}

impl TestRow {
    pub fn is_spsa(&self) -> bool {
        self.kind == crate::spsa::KIND
    }

    /// The pairs of batch `idx`.
    pub fn pairs_of(&self, idx: i32) -> std::ops::Range<u64> {
        let b = self.batch_pairs as u64;
        let start = idx as u64 * b;
        start..(start + b).min(self.total_pairs as u64)
    }

    /// The test's match config, as the creator resolved it.
    pub fn config(&self) -> Result<MatchConfig, DbError> {
        MatchConfig::from_yaml(
            &self.config_yaml,
            std::path::Path::new(&format!("{}.yaml", self.name)),
            &Default::default(),
        )
        .map_err(|e| DbError::Invalid(format!("test {}: stored config: {e}", self.name)))
    }

    /// Pairs counted for the outcome: the SPRT's pairs once it decided,
    /// else the completed prefix.
    pub fn counted_pairs(&self) -> u64 {
        if self.decision.is_some() {
            self.sprt_pairs as u64
        } else {
            (self.prefix_batches as u64 * self.batch_pairs as u64).min(self.total_pairs as u64)
        }
    }
}

/// A new test: its resolved config, batch geometry and the engines'
/// signatures (JSON), with all its batches pending.
pub fn create_test(
    c: &mut Client,
    name: &str,
    cfg: &MatchConfig,
    dist: &DistSection,
    total_pairs: u64,
    signatures: &str,
) -> Result<TestRow, DbError> {
    let batches = total_pairs.div_ceil(u64::from(dist.batch_pairs));
    let batches = i32::try_from(batches)
        .map_err(|_| DbError::Invalid(format!("{batches} batches: raise dist.batch_pairs")))?;
    let mut tx = c.transaction()?;
    let t = insert_test(
        &mut tx,
        &NewTest {
            name,
            config_yaml: &cfg.resolved_yaml(),
            kind: "match",
            batch_pairs: dist.batch_pairs,
            total_pairs,
            batches,
            window_batches: dist.window_batches,
            lease_seconds: dist.lease_seconds,
            signatures,
        },
    )?;
    tx.commit()?;
    Ok(t)
}

/// What [`insert_test`] stores.
pub(crate) struct NewTest<'a> {
    pub name: &'a str,
    pub config_yaml: &'a str,
    pub kind: &'a str,
    pub batch_pairs: u32,
    pub total_pairs: u64,
    pub batches: i32,
    pub window_batches: u32,
    pub lease_seconds: u32,
    pub signatures: &'a str,
}

/// Insert a test with all its batches pending (inside the caller's
/// transaction, so that a kind's own rows go in with it).
pub(crate) fn insert_test(
    tx: &mut postgres::Transaction<'_>,
    t: &NewTest<'_>,
) -> Result<TestRow, DbError> {
    let name = t.name;
    let exists = tx.query_opt("SELECT 1 FROM dist_tests WHERE name = $1", &[&name])?;
    if exists.is_some() {
        return Err(DbError::Invalid(format!(
            "a test named {name} exists: choose another name"
        )));
    }
    let row = tx.query_one(
        &format!(
            "INSERT INTO dist_tests (name, config_yaml, kind, batch_pairs, total_pairs, batches, \
             window_batches, lease_seconds, signatures) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) \
             RETURNING {TEST_COLUMNS}"
        ),
        &[
            &name,
            &t.config_yaml,
            &t.kind,
            &(t.batch_pairs as i32),
            &(t.total_pairs as i64),
            &t.batches,
            &(t.window_batches as i32),
            &(t.lease_seconds as i32),
            &t.signatures,
        ],
    )?;
    let row = test_row(&row);
    tx.execute(
        "INSERT INTO dist_batches (test_id, idx) SELECT $1, g FROM generate_series(0, $2 - 1) g",
        &[&row.id, &t.batches],
    )?;
    Ok(row)
}

pub fn test_by_name(c: &mut Client, name: &str) -> Result<TestRow, DbError> {
    c.query_opt(
        &format!("SELECT {TEST_COLUMNS} FROM dist_tests WHERE name = $1"),
        &[&name],
    )?
    .map(|r| test_row(&r))
    .ok_or_else(|| DbError::Invalid(format!("no test named {name}")))
}

/// Every test, oldest first.
pub fn all_tests(c: &mut Client) -> Result<Vec<TestRow>, DbError> {
    Ok(c.query(
        &format!("SELECT {TEST_COLUMNS} FROM dist_tests ORDER BY id"),
        &[],
    )?
    .iter()
    .map(test_row)
    .collect())
}

/// The oldest test that is not stopped and has batches not done.
pub fn next_open_test(c: &mut Client) -> Result<Option<TestRow>, DbError> {
    Ok(c.query_opt(
        &format!(
            "SELECT {TEST_COLUMNS} FROM dist_tests t WHERE NOT stopped AND EXISTS \
                 (SELECT 1 FROM dist_batches b WHERE b.test_id = t.id AND b.state <> 'done') \
                 ORDER BY id LIMIT 1"
        ),
        &[],
    )?
    .map(|r| test_row(&r)))
}

/// Record a worker; returns its id.
pub fn register_worker(
    c: &mut Client,
    test: i64,
    host: &str,
    signatures: &str,
    bench_nps: u64,
) -> Result<i64, DbError> {
    Ok(c.query_one(
        "INSERT INTO dist_workers (test_id, host, pid, signatures, bench_nps) \
             VALUES ($1, $2, $3, $4, $5) RETURNING id",
        &[
            &test,
            &host,
            &(std::process::id() as i32),
            &signatures,
            &(bench_nps as i64),
        ],
    )?
    .get(0))
}

/// What a claim found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Batch `idx` is leased to the caller under `token`.
    Batch { idx: i32, token: i64 },
    /// Nothing to hand out now (all open batches leased, or beyond the
    /// window); an expiring lease or a growing prefix may change that.
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
        "SELECT stopped, prefix_batches + window_batches, lease_seconds FROM dist_tests \
         WHERE id = $1",
        &[&test],
    )?;
    if t.get::<_, bool>(0) {
        return Ok(Claim::Stopped);
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
    Held,
    /// Another worker claimed the batch after the lease expired.
    Lost,
    Stopped,
}

/// Push the lease of batch `idx` forward.
pub fn heartbeat(c: &mut Client, test: i64, idx: i32, token: i64) -> Result<Beat, DbError> {
    let row = c.query_one(
        "WITH renewed AS (UPDATE dist_batches b SET lease_until = now() + \
           make_interval(secs => t.lease_seconds) FROM dist_tests t \
           WHERE b.test_id = $1 AND b.idx = $2 AND b.lease_token = $3 \
             AND b.state = 'leased' AND t.id = b.test_id RETURNING 1) \
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

/// One finished pair as a worker reports it.
#[derive(Clone, Debug)]
pub struct PairResult {
    pub entry: PairEntry,
    /// Both games, PGN.
    pub pgn: String,
}

/// What a completion did.
#[derive(Clone, Debug, PartialEq)]
pub enum Completed {
    /// The batch was counted; the SPRT decided if `decision` is set.
    Counted { decision: Option<SprtDecision> },
    /// Not leased under this token (late, duplicate or lost): nothing added.
    Rejected,
}

/// Complete batch `idx` with its pairs, advance the prefix and run the
/// SPRT over the pairs it adds. One transaction: either all of it counts
/// or none.
pub fn complete(
    c: &mut Client,
    test: &TestRow,
    sprt: Option<&karsinta_harness::stats::SprtParams>,
    idx: i32,
    token: i64,
    worker: i64,
    seconds: f64,
    pairs: &[PairResult],
) -> Result<Completed, DbError> {
    let mut tx = c.transaction()?;
    if !record_batch(&mut tx, test, idx, token, worker, seconds, pairs)? {
        return Ok(Completed::Rejected);
    }
    let t = lock_test(
        &mut tx,
        test.id,
        "prefix_batches, sprt_penta, sprt_pairs, decision",
    )?;
    let mut prefix: i32 = t.get(0);
    let mut penta = Pentanomial(
        serde_json::from_str(t.get::<_, &str>(1))
            .map_err(|e| DbError::Invalid(format!("test {}: sprt_penta: {e}", test.name)))?,
    );
    let mut sprt_pairs: i64 = t.get(2);
    let mut decision: Option<String> = t.get(3);
    let newly = contiguous(&mut tx, test.id, prefix)?;
    if newly > prefix {
        if let (Some(s), None) = (sprt, &decision) {
            let rows = tx.query(
                "SELECT entry FROM dist_pairs WHERE test_id = $1 AND batch >= $2 AND batch < $3 \
                 ORDER BY pair",
                &[&test.id, &prefix, &newly],
            )?;
            for r in rows {
                let e: PairEntry = serde_json::from_str(r.get::<_, &str>(0))
                    .map_err(|e| DbError::Invalid(format!("stored pair: {e}")))?;
                // As the tally: the first pairing's pentanomial decides.
                sprt_pairs += 1;
                if e.pairing == 0 {
                    penta.add(e.first_points());
                    let r = s.test_penta(&penta);
                    if r.decision != SprtDecision::Continue {
                        decision = Some(r.decision.as_str().to_string());
                        break;
                    }
                }
            }
        }
        prefix = newly;
    }
    let decided = decision.as_deref().and_then(parse_decision);
    let penta_text = serde_json::to_string(&penta.0).unwrap_or_default();
    tx.execute(
        "UPDATE dist_tests SET prefix_batches = $2, sprt_penta = $3, sprt_pairs = $4, \
         decision = $5, stopped = stopped OR $6, \
         stop_reason = CASE WHEN $6 AND NOT stopped THEN 'SPRT ' || $5 ELSE stop_reason END \
         WHERE id = $1",
        &[
            &test.id,
            &prefix,
            &penta_text,
            &sprt_pairs,
            &decision,
            &decided.is_some(),
        ],
    )?;
    tx.commit()?;
    Ok(Completed::Counted { decision: decided })
}

/// Flip batch `idx` to done and store its pairs, if it is leased under
/// `token`; false (nothing written) otherwise: the once-only part of every
/// completion.
pub(crate) fn record_batch(
    tx: &mut postgres::Transaction<'_>,
    test: &TestRow,
    idx: i32,
    token: i64,
    worker: i64,
    seconds: f64,
    pairs: &[PairResult],
) -> Result<bool, DbError> {
    let expected: Vec<u64> = test.pairs_of(idx).collect();
    let got: Vec<u64> = pairs.iter().map(|p| p.entry.pair).collect();
    if got != expected {
        return Err(DbError::Invalid(format!(
            "batch {idx}: pairs {got:?} are not the batch's {expected:?}"
        )));
    }
    let flipped = tx.execute(
        "UPDATE dist_batches SET state = 'done', completed = now(), seconds = $5, \
         worker_id = $4, lease_until = NULL \
         WHERE test_id = $1 AND idx = $2 AND lease_token = $3 AND state = 'leased'",
        &[&test.id, &idx, &token, &worker, &seconds],
    )?;
    if flipped == 0 {
        return Ok(false);
    }
    let insert = tx.prepare(
        "INSERT INTO dist_pairs (test_id, pair, batch, worker_id, entry, pgn) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )?;
    for p in pairs {
        let entry = serde_json::to_string(&p.entry)
            .map_err(|e| DbError::Invalid(format!("pair {}: {e}", p.entry.pair)))?;
        tx.execute(
            &insert,
            &[
                &test.id,
                &(p.entry.pair as i64),
                &idx,
                &worker,
                &entry,
                &p.pgn,
            ],
        )?;
    }
    tx.execute(
        "UPDATE dist_workers SET last_seen = now() WHERE id = $1",
        &[&worker],
    )?;
    Ok(true)
}

/// Lock the test's row and read `columns`. Completions of a test are
/// serialised on that row, taken after the batch is recorded so the lock
/// is held briefly (and every completion committed before sees the
/// others'). NO KEY UPDATE, not UPDATE: the pairs' foreign key checks hold
/// KEY SHARE on that row, and FOR UPDATE would deadlock two completions.
/// The transaction-scoped advisory lock on the test's id comes first: it
/// queues waiters in order, where a row lock wakes every waiter at each
/// release and hundreds of simultaneous completions spend their time
/// re-contending (200 simulated workers finishing together: 41 s with it,
/// 74 s without, on 2 loaded cores).
pub(crate) fn lock_test(
    tx: &mut postgres::Transaction<'_>,
    test: i64,
    columns: &str,
) -> Result<postgres::Row, DbError> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&test])?;
    Ok(tx.query_one(
        &format!("SELECT {columns} FROM dist_tests WHERE id = $1 FOR NO KEY UPDATE"),
        &[&test],
    )?)
}

/// The end of the contiguous run of done batches from `prefix`.
pub(crate) fn contiguous(
    tx: &mut postgres::Transaction<'_>,
    test: i64,
    prefix: i32,
) -> Result<i32, DbError> {
    let done = tx.query(
        "SELECT idx FROM dist_batches WHERE test_id = $1 AND idx >= $2 AND state = 'done' \
         ORDER BY idx",
        &[&test, &prefix],
    )?;
    let mut end = prefix;
    for r in done {
        if r.get::<_, i32>(0) != end {
            break;
        }
        end += 1;
    }
    Ok(end)
}

/// `H0` / `H1` back to the decision.
pub fn parse_decision(s: &str) -> Option<SprtDecision> {
    match s {
        "H0" => Some(SprtDecision::H0),
        "H1" => Some(SprtDecision::H1),
        _ => None,
    }
}

/// Stop a test: claims and heartbeats tell its workers to end.
pub fn stop(c: &mut Client, name: &str, reason: &str) -> Result<bool, DbError> {
    Ok(c.execute(
        "UPDATE dist_tests SET stopped = true, stop_reason = coalesce(stop_reason, $2) \
         WHERE name = $1",
        &[&name, &reason],
    )? > 0)
}

/// Stored pairs of a test in pair order (`limit`: the first that many).
pub fn stored_pairs(
    c: &mut Client,
    test: i64,
    limit: u64,
) -> Result<Vec<(PairEntry, String, i64)>, DbError> {
    c.query(
        "SELECT entry, pgn, worker_id FROM dist_pairs WHERE test_id = $1 AND pair < $2 \
         ORDER BY pair",
        &[&test, &(limit as i64)],
    )?
    .iter()
    .map(|r| {
        let e: PairEntry = serde_json::from_str(r.get::<_, &str>(0))
            .map_err(|e| DbError::Invalid(format!("stored pair: {e}")))?;
        Ok((e, r.get(1), r.get(2)))
    })
    .collect()
}

/// Batches of a test that are done, and leased under a lease still running
/// (a lapsed lease is work waiting for the next claim).
pub fn batch_counts(c: &mut Client, test_id: i64) -> Result<(i64, i64), DbError> {
    let row = c.query_one(
        "SELECT count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE state = 'leased' \
         AND lease_until >= now()) FROM dist_batches WHERE test_id = $1",
        &[&test_id],
    )?;
    Ok((row.get(0), row.get(1)))
}
