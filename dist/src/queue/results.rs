//! The results a batch brings back and how they are kept: its pairs go in
//! once, when the batch flips to done under its lease; the contiguous run
//! of done batches is the prefix that counts; status and export read the
//! pairs back in pair order.

use std::collections::HashMap;
use std::ops::Range;

use karsinta_harness::run::ledger::PairEntry;
use postgres::{Client, Transaction};

use crate::db::DbError;
use crate::queue::catalog::TestRow;

/// One finished pair as a worker reports it.
#[derive(Clone, Debug)]
pub struct PairResult {
    /// The ledger's record of the pair (what the counts read).
    pub entry: PairEntry,
    /// Both games, PGN (empty for kinds that keep none).
    pub pgn: String,
}

/// A batch played to the end, as its holder completes it.
#[derive(Clone, Copy, Debug)]
pub struct FinishedBatch<'a> {
    /// The batch.
    pub idx: i32,
    /// The lease it was played under.
    pub token: i64,
    /// The worker that played it.
    pub worker: i64,
    /// Wall time from claim to last pair.
    pub seconds: f64,
    /// Its pairs, in pair order.
    pub pairs: &'a [PairResult],
}

fn stored_entry(text: &str) -> Result<PairEntry, DbError> {
    serde_json::from_str(text).map_err(|e| DbError::Invalid(format!("stored pair: {e}")))
}

/// Flip the batch to done and store its pairs, if it is leased under its
/// token; false (nothing written) otherwise: the once-only part of every
/// completion.
pub(crate) fn record_batch(
    tx: &mut Transaction<'_>,
    test: &TestRow,
    b: &FinishedBatch<'_>,
) -> Result<bool, DbError> {
    let idx = b.idx;
    let expected: Vec<u64> = test.pairs_of(idx).collect();
    let got: Vec<u64> = b.pairs.iter().map(|p| p.entry.pair).collect();
    if got != expected {
        return Err(DbError::Invalid(format!(
            "batch {idx}: pairs {got:?} are not the batch's {expected:?}"
        )));
    }
    if !flip_batch(tx, test.id, idx, b.token, b.worker, b.seconds)? {
        return Ok(false);
    }
    let insert = tx.prepare(
        "INSERT INTO dist_pairs (test_id, pair, batch, worker_id, entry, pgn) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )?;
    for p in b.pairs {
        let entry = serde_json::to_string(&p.entry)
            .map_err(|e| DbError::Invalid(format!("pair {}: {e}", p.entry.pair)))?;
        tx.execute(
            &insert,
            &[
                &test.id,
                &(p.entry.pair as i64),
                &idx,
                &b.worker,
                &entry,
                &p.pgn,
            ],
        )?;
    }
    Ok(true)
}

/// Flip batch `idx` to done if it is leased under `token`, recording who
/// played it and how long it took; false (nothing changed) otherwise.
/// Every kind's results go in only after this said true.
pub(crate) fn flip_batch(
    tx: &mut Transaction<'_>,
    test: i64,
    idx: i32,
    token: i64,
    worker: i64,
    seconds: f64,
) -> Result<bool, DbError> {
    let flipped = tx.execute(
        "UPDATE dist_batches SET state = 'done', completed = now(), seconds = $5, \
         worker_id = $4, lease_until = NULL, \
         clock = (SELECT clock FROM dist_workers WHERE id = $4) \
         WHERE test_id = $1 AND idx = $2 AND lease_token = $3 AND state = 'leased'",
        &[&test, &idx, &token, &worker, &seconds],
    )?;
    if flipped == 0 {
        return Ok(false);
    }
    tx.execute(
        "UPDATE dist_workers SET last_seen = now() WHERE id = $1",
        &[&worker],
    )?;
    Ok(true)
}

/// The end of the contiguous run of done batches from `prefix`.
pub(crate) fn contiguous(tx: &mut Transaction<'_>, test: i64, prefix: i32) -> Result<i32, DbError> {
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

/// The stored pairs of `batches`, in pair order, with the batch of each.
pub(crate) fn batch_entries(
    tx: &mut Transaction<'_>,
    test: i64,
    batches: Range<i32>,
) -> Result<Vec<(i32, PairEntry)>, DbError> {
    tx.query(
        "SELECT batch, entry FROM dist_pairs WHERE test_id = $1 AND batch >= $2 AND batch < $3 \
         ORDER BY pair",
        &[&test, &batches.start, &batches.end],
    )?
    .iter()
    .map(|r| Ok((r.get(0), stored_entry(r.get(1))?)))
    .collect()
}

/// Stored pairs of a test in pair order (`limit`: the first that many),
/// each with its PGN and the worker that played it.
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
    .map(|r| Ok((stored_entry(r.get(0))?, r.get(1), r.get(2))))
    .collect()
}

/// Every stored pair of a test (any order) with the worker that played it.
pub fn pairs_by_worker(
    c: &mut impl postgres::GenericClient,
    test: i64,
) -> Result<Vec<(PairEntry, i64)>, DbError> {
    c.query(
        "SELECT entry, worker_id FROM dist_pairs WHERE test_id = $1",
        &[&test],
    )?
    .iter()
    .map(|r| Ok((stored_entry(r.get(0))?, r.get(1))))
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

/// [`batch_counts`] of every test, by test id, in one query (a test
/// without batches is absent: none done, none leased).
pub fn all_batch_counts(c: &mut Client) -> Result<HashMap<i64, (i64, i64)>, DbError> {
    Ok(c.query(
        "SELECT test_id, count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE state = \
         'leased' AND lease_until >= now()) FROM dist_batches GROUP BY test_id",
        &[],
    )?
    .iter()
    .map(|r| (r.get(0), (r.get(1), r.get(2))))
    .collect())
}

/// The counted pairs ([`TestRow::counted_pairs`]) of each of `tests` in
/// pair order, by test id, in one query: what [`stored_pairs`] reads per
/// test, without the PGN.
pub fn counted_entries(
    c: &mut Client,
    tests: &[&TestRow],
) -> Result<HashMap<i64, Vec<PairEntry>>, DbError> {
    let ids: Vec<i64> = tests.iter().map(|t| t.id).collect();
    let limits: Vec<i64> = tests.iter().map(|t| t.counted_pairs() as i64).collect();
    let mut out: HashMap<i64, Vec<PairEntry>> = HashMap::new();
    for r in c.query(
        "SELECT p.test_id, p.entry FROM unnest($1::int8[], $2::int8[]) AS l(test_id, n) \
         JOIN dist_pairs p ON p.test_id = l.test_id AND p.pair < l.n ORDER BY p.test_id, p.pair",
        &[&ids, &limits],
    )? {
        out.entry(r.get(0))
            .or_default()
            .push(stored_entry(r.get(1))?);
    }
    Ok(out)
}
