//! The tests table: a test's row as stored, how a new one goes in with all
//! its batches pending, the lookups and the stop flag.

use std::str::FromStr;

use karsinta_harness::stats::SprtDecision;
use postgres::{Client, Transaction};

use crate::db::DbError;

/// What a test plays, as `dist_tests.kind` stores it. The data of each
/// kind (its plan, its SPSA run) is [`crate::kinds::TestKind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A match (or gauntlet, round robin) with an optional SPRT.
    Match,
    /// An SPSA run: batch k - 1 is iteration k.
    Spsa,
    /// Self-play training data: batch k is games `[kB, (k+1)B)`.
    Datagen,
}

impl Kind {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Match => "match",
            Kind::Spsa => "spsa",
            Kind::Datagen => "datagen",
        }
    }
}

impl FromStr for Kind {
    type Err = DbError;

    fn from_str(s: &str) -> Result<Kind, DbError> {
        match s {
            "match" => Ok(Kind::Match),
            "spsa" => Ok(Kind::Spsa),
            "datagen" => Ok(Kind::Datagen),
            _ => Err(DbError::Invalid(format!("unknown test kind {s:?}"))),
        }
    }
}

/// `H0` / `H1` back to the decision (the column never holds `continue`).
pub(crate) fn parse_decision(s: &str) -> Result<SprtDecision, DbError> {
    match s {
        "H0" => Ok(SprtDecision::H0),
        "H1" => Ok(SprtDecision::H1),
        _ => Err(DbError::Invalid(format!("stored SPRT decision {s:?}"))),
    }
}

/// A test as stored.
#[derive(Clone, Debug)]
pub struct TestRow {
    /// The row's key (batches, pairs and workers refer to it).
    pub id: i64,
    /// Unique, chosen by the creator.
    pub name: String,
    /// The config as the creator resolved it; a worker loads it again.
    pub config_yaml: String,
    /// What the test plays.
    pub kind: Kind,
    /// Game pairs per batch (the last batch may hold fewer); a datagen
    /// test's games per batch.
    pub batch_pairs: i64,
    /// Game pairs of the whole test (a datagen test's games).
    pub total_pairs: i64,
    /// Number of batches.
    pub batches: i32,
    /// Batches handed out beyond the completed prefix.
    pub window_batches: i32,
    /// Seconds a lease lasts without a heartbeat.
    pub lease_seconds: i32,
    /// JSON list of per-engine signatures.
    pub signatures: String,
    /// No more claims: decided, stopped by hand, or finished.
    pub stopped: bool,
    /// Why it stopped.
    pub stop_reason: Option<String>,
    /// Batches `0..prefix_batches` are all done (and counted).
    pub prefix_batches: i32,
    /// Pairs the SPRT has counted.
    pub sprt_pairs: i64,
    /// The SPRT's decision, once it crossed a bound.
    pub decision: Option<SprtDecision>,
    /// Its place in the queue and the machine it needs.
    pub share: Share,
    /// Played at fixed nodes or depth (a noisy machine may take it).
    pub fixed_limit: bool,
    /// The speed its clock is meant for: a worker of speed `nps` plays
    /// `tc * reference_nps / nps` (`None`: the nominal clock).
    pub reference_nps: Option<i64>,
    /// A test of two git revisions built on the workers: the record of
    /// [`crate::revisions::Revisions`] as JSON (`None`: engines as given).
    pub revisions: Option<String>,
    /// Purge its outliers by fishtest's rule when it ends
    /// ([`crate::queue::purge::purge_at_end`]).
    pub auto_purge: bool,
    /// Awaiting approval (`create --hold`): no worker claims its batches.
    pub held: bool,
}

/// How a test shares the fleet with the other open tests, and the
/// machine it needs (see [`crate::queue::choose`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    /// Workers take the open tests of the highest priority first.
    pub priority: i32,
    /// Its weight among the tests of its priority: workers' game slots
    /// are shared in proportion to it.
    pub throughput: f64,
    /// Fewer cores than this: the machine never takes it.
    pub min_cores: u32,
    /// Less memory (MiB) than this: the machine never takes it.
    pub min_memory_mb: u64,
    /// Only machines with Syzygy tables (`worker --syzygy`) take it.
    pub require_syzygy: bool,
}

/// OpenBench's default weight.
pub const DEFAULT_THROUGHPUT: f64 = 100.0;

impl Default for Share {
    fn default() -> Share {
        Share {
            priority: 0,
            throughput: DEFAULT_THROUGHPUT,
            min_cores: 0,
            min_memory_mb: 0,
            require_syzygy: false,
        }
    }
}

impl Share {
    /// A weight that can share: positive and finite.
    pub fn check_throughput(w: f64) -> Result<f64, DbError> {
        if w.is_finite() && w > 0.0 && w <= 1e9 {
            Ok(w)
        } else {
            Err(DbError::Invalid(format!(
                "throughput {w}: must be a positive number (at most 1e9)"
            )))
        }
    }
}

pub(crate) const TEST_COLUMNS: &str = "id, name, config_yaml, batch_pairs, total_pairs, batches, \
    window_batches, lease_seconds, signatures, stopped, stop_reason, prefix_batches, \
    sprt_pairs, decision, kind, priority, throughput, min_cores, min_memory_mb, require_syzygy, \
    fixed_limit, reference_nps, revisions, auto_purge, held";

pub(crate) fn test_row(r: &postgres::Row) -> Result<TestRow, DbError> {
    Ok(TestRow {
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
        decision: r
            .get::<_, Option<&str>>(13)
            .map(parse_decision)
            .transpose()?,
        kind: r.get::<_, &str>(14).parse()?,
        share: Share {
            priority: r.get(15),
            throughput: r.get(16),
            min_cores: r.get::<_, i32>(17).max(0) as u32,
            min_memory_mb: r.get::<_, i64>(18).max(0) as u64,
            require_syzygy: r.get(19),
        },
        fixed_limit: r.get(20),
        reference_nps: r.get(21),
        revisions: r.get(22),
        auto_purge: r.get(23),
        held: r.get(24),
    })
}

impl TestRow {
    /// Whether this is an SPSA test.
    pub fn is_spsa(&self) -> bool {
        self.kind == Kind::Spsa
    }

    /// The pairs of batch `idx`.
    pub fn pairs_of(&self, idx: i32) -> std::ops::Range<u64> {
        let b = self.batch_pairs as u64;
        let start = idx as u64 * b;
        start..(start + b).min(self.total_pairs as u64)
    }

    /// The batch that holds pair `pair`.
    pub fn batch_of(&self, pair: u64) -> i32 {
        (pair / self.batch_pairs as u64) as i32
    }

    /// The test's place in the queue: priority, weight, the machine it needs,
    /// the clock's reference speed.
    pub fn queue_line(&self) -> String {
        let s = &self.share;
        let mut needs = Vec::new();
        if s.min_cores > 0 {
            needs.push(format!("{} cores", s.min_cores));
        }
        if s.min_memory_mb > 0 {
            needs.push(format!("{} MiB", s.min_memory_mb));
        }
        if s.require_syzygy {
            needs.push("Syzygy".to_string());
        }
        let needs = if needs.is_empty() {
            String::new()
        } else {
            format!("; needs {}", needs.join(", "))
        };
        let clock = match self.reference_nps {
            Some(n) => format!("; clock scaled to reference {n} nps"),
            None if self.fixed_limit => "; fixed limit (not scaled)".to_string(),
            None => "; nominal clock".to_string(),
        };
        let held = if self.held && !self.stopped {
            format!("; awaiting approval (karsinta-dist approve {})", self.name)
        } else {
            String::new()
        };
        format!(
            "priority {}, throughput {}{needs}{clock}{held}\n",
            s.priority, s.throughput
        )
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

/// What [`insert_test`] stores.
pub struct NewTest<'a> {
    /// Unique test name.
    pub name: &'a str,
    /// The resolved config (what workers load).
    pub config_yaml: &'a str,
    /// What it plays.
    pub kind: Kind,
    /// Game pairs per batch.
    pub batch_pairs: u32,
    /// Game pairs of the whole test.
    pub total_pairs: u64,
    /// Batches beyond the completed prefix that claims hand out.
    pub window_batches: u32,
    /// Seconds a lease lasts without a heartbeat.
    pub lease_seconds: u32,
    /// The engines' signatures (JSON), which every worker must match.
    pub signatures: &'a str,
    /// Played at fixed nodes or depth.
    pub fixed_limit: bool,
    /// Its place in the queue and the clock's reference speed.
    pub queue: &'a Queueing,
    /// The revisions workers build (JSON), for a test of revisions.
    pub revisions: Option<&'a str>,
}

/// What `create` adds to a test's config: its share of the fleet, the
/// speed its clock is meant for, and whether it purges itself at its end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Queueing {
    /// Priority, throughput weight, the machine it needs.
    pub share: Share,
    /// The clock's reference speed (`None`: played at the nominal clock).
    pub reference_nps: Option<u64>,
    /// `create --purge auto`: purge by fishtest's rule when the test ends
    /// (match tests only).
    pub auto_purge: bool,
    /// `create --hold`: no worker claims it until `approve`.
    pub held: bool,
}

/// Insert a test with all its batches pending (inside the caller's
/// transaction, so that a kind's own rows go in with it).
pub fn insert_test(tx: &mut Transaction<'_>, t: &NewTest<'_>) -> Result<TestRow, DbError> {
    let name = t.name;
    let share = &t.queue.share;
    let batches = t.total_pairs.div_ceil(u64::from(t.batch_pairs));
    let batches = i32::try_from(batches)
        .map_err(|_| DbError::Invalid(format!("{batches} batches: raise dist.batch_pairs")))?;
    let exists = tx.query_opt("SELECT 1 FROM dist_tests WHERE name = $1", &[&name])?;
    if exists.is_some() {
        return Err(DbError::Invalid(format!(
            "a test named {name} exists: choose another name"
        )));
    }
    let row = tx.query_one(
        &format!(
            "INSERT INTO dist_tests (name, config_yaml, kind, batch_pairs, total_pairs, batches, \
             window_batches, lease_seconds, signatures, priority, throughput, min_cores, \
             min_memory_mb, require_syzygy, fixed_limit, reference_nps, revisions, auto_purge, \
             held) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19) \
             RETURNING {TEST_COLUMNS}"
        ),
        &[
            &name,
            &t.config_yaml,
            &t.kind.as_str(),
            &(t.batch_pairs as i32),
            &(t.total_pairs as i64),
            &batches,
            &(t.window_batches as i32),
            &(t.lease_seconds as i32),
            &t.signatures,
            &share.priority,
            &Share::check_throughput(share.throughput)?,
            &(share.min_cores.min(i32::MAX as u32) as i32),
            &(share.min_memory_mb.min(i64::MAX as u64) as i64),
            &share.require_syzygy,
            &t.fixed_limit,
            &t.queue.reference_nps.map(|n| n.min(i64::MAX as u64) as i64),
            &t.revisions,
            &t.queue.auto_purge,
            &t.queue.held,
        ],
    )?;
    let row = test_row(&row)?;
    tx.execute(
        "INSERT INTO dist_batches (test_id, idx) SELECT $1, g FROM generate_series(0, $2 - 1) g",
        &[&row.id, &batches],
    )?;
    Ok(row)
}

/// The test named `name`.
pub fn test_by_name(c: &mut Client, name: &str) -> Result<TestRow, DbError> {
    c.query_opt(
        &format!("SELECT {TEST_COLUMNS} FROM dist_tests WHERE name = $1"),
        &[&name],
    )?
    .map(|r| test_row(&r))
    .ok_or_else(|| DbError::Invalid(format!("no test named {name}")))?
}

/// Every test, oldest first.
pub fn all_tests(c: &mut Client) -> Result<Vec<TestRow>, DbError> {
    c.query(
        &format!("SELECT {TEST_COLUMNS} FROM dist_tests ORDER BY id"),
        &[],
    )?
    .iter()
    .map(test_row)
    .collect()
}

/// Stop a test: claims and heartbeats tell its workers to end. False if
/// there is no test of that name.
pub fn stop(c: &mut Client, name: &str, reason: &str) -> Result<bool, DbError> {
    Ok(c.execute(
        "UPDATE dist_tests SET stopped = true, stop_reason = coalesce(stop_reason, $2) \
         WHERE name = $1",
        &[&name, &reason],
    )? > 0)
}

/// Change a test's priority and throughput weight (`karsinta-dist set`);
/// workers see it at their next batch. False if there is no such test.
pub fn set_share(
    c: &mut Client,
    name: &str,
    priority: Option<i32>,
    throughput: Option<f64>,
) -> Result<bool, DbError> {
    let throughput = throughput.map(Share::check_throughput).transpose()?;
    Ok(c.execute(
        "UPDATE dist_tests SET priority = coalesce($2, priority), \
         throughput = coalesce($3, throughput) WHERE name = $1",
        &[&name, &priority, &throughput],
    )? > 0)
}

/// Approve a held test (`karsinta-dist approve`): workers may claim it
/// from now on. `None` if there is no such test, else whether it was held.
pub fn approve(c: &mut Client, name: &str) -> Result<Option<bool>, DbError> {
    let row = c.query_opt(
        "UPDATE dist_tests t SET held = false FROM dist_tests old \
         WHERE t.name = $1 AND old.id = t.id RETURNING old.held",
        &[&name],
    )?;
    Ok(row.map(|r| r.get(0)))
}

/// Lock the test's row and read its prefix. Completions of a test are
/// serialised on that row, taken after the batch is recorded so the lock
/// is held briefly (and every completion committed before sees the
/// others'). NO KEY UPDATE, not UPDATE: the pairs' foreign key checks hold
/// KEY SHARE on that row, and FOR UPDATE would deadlock two completions.
/// The transaction-scoped advisory lock on the test's id comes first: it
/// queues waiters in order, where a row lock wakes every waiter at each
/// release and hundreds of simultaneous completions spend their time
/// re-contending (200 simulated workers finishing together: 41 s with it,
/// 74 s without, on 2 loaded cores).
pub(crate) fn lock_test(tx: &mut Transaction<'_>, test: i64) -> Result<i32, DbError> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&test])?;
    Ok(tx
        .query_one(
            "SELECT prefix_batches FROM dist_tests WHERE id = $1 FOR NO KEY UPDATE",
            &[&test],
        )?
        .get(0))
}
