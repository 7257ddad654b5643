//! The connection to PostgreSQL and the schema. Every process (the
//! `create` / `status` / `export` commands and each worker) opens its own
//! synchronous connection; the coordination is in the transactions of
//! [`crate::ledger`], not in a server of ours. A connection that fails
//! (server restarted, network gone) is reopened with backoff by
//! [`Db::run`], so a database that goes away costs at most the batches
//! whose leases expire meanwhile.
//!
//! TLS is not compiled in (`NoTls`): use a unix socket, a private network
//! or an ssh/stunnel tunnel; passwords work as libpq's `password=` or a
//! `postgresql://user:pass@host/db` URL.

use std::time::{Duration, Instant};

use postgres::{Client, NoTls};
use thiserror::Error;

/// Environment variable holding the connection string.
pub const DATABASE_URL_ENV: &str = "KARSINTA_DATABASE_URL";

/// Why a database operation failed.
#[derive(Debug, Error)]
pub enum DbError {
    #[error(
        "no database: set {DATABASE_URL_ENV} or pass --database (a libpq connection \
         string such as \"host=/run/postgresql dbname=karsinta\")"
    )]
    NoUrl,
    #[error("cannot reach the database after {seconds} s of retries: {last}")]
    Unreachable { seconds: u64, last: String },
    #[error("database: {0}")]
    Sql(#[from] postgres::Error),
    #[error("the database schema is version {found}, newer than this tool ({known}): upgrade karsinta-dist")]
    NewerSchema { found: i32, known: i32 },
    #[error("{0}")]
    Invalid(String),
}

/// The connection string: the flag, else the environment; never printed.
pub fn database_url(flag: Option<&str>) -> Result<String, DbError> {
    match flag {
        Some(u) => Ok(u.to_string()),
        None => std::env::var(DATABASE_URL_ENV)
            .ok()
            .filter(|u| !u.trim().is_empty())
            .ok_or(DbError::NoUrl),
    }
}

/// Schema migrations, applied in order; `SCHEMA[i]` brings version `i` to
/// `i + 1`. Never edit a released step: add one.
const SCHEMA: &[&str] = &[
    // 1: tests, batches, finished pairs, workers, SPSA history.
    "CREATE TABLE dist_tests (
        id             bigserial PRIMARY KEY,
        name           text NOT NULL UNIQUE,
        config_yaml    text NOT NULL,
        kind           text NOT NULL DEFAULT 'match' CHECK (kind IN ('match', 'spsa')),
        batch_pairs    integer NOT NULL CHECK (batch_pairs > 0),
        total_pairs    bigint NOT NULL,
        batches        integer NOT NULL,
        window_batches integer NOT NULL CHECK (window_batches > 0),
        lease_seconds  integer NOT NULL CHECK (lease_seconds > 0),
        signatures     text NOT NULL,
        stopped        boolean NOT NULL DEFAULT false,
        stop_reason    text,
        prefix_batches integer NOT NULL DEFAULT 0,
        sprt_penta     text NOT NULL DEFAULT '[0,0,0,0,0]',
        sprt_pairs     bigint NOT NULL DEFAULT 0,
        decision       text,
        created        timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE dist_workers (
        id         bigserial PRIMARY KEY,
        test_id    bigint NOT NULL REFERENCES dist_tests(id) ON DELETE CASCADE,
        host       text NOT NULL,
        pid        integer NOT NULL,
        signatures text NOT NULL,
        bench_nps  bigint NOT NULL,
        started    timestamptz NOT NULL DEFAULT now(),
        last_seen  timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE dist_batches (
        test_id     bigint NOT NULL REFERENCES dist_tests(id) ON DELETE CASCADE,
        idx         integer NOT NULL,
        state       text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'leased', 'done')),
        lease_token bigint,
        worker_id   bigint REFERENCES dist_workers(id),
        lease_until timestamptz,
        claims      integer NOT NULL DEFAULT 0,
        completed   timestamptz,
        seconds     double precision,
        PRIMARY KEY (test_id, idx)
    );
    CREATE INDEX dist_batches_open ON dist_batches (test_id, idx) WHERE state <> 'done';
    CREATE TABLE dist_pairs (
        test_id   bigint NOT NULL REFERENCES dist_tests(id) ON DELETE CASCADE,
        pair      bigint NOT NULL,
        batch     integer NOT NULL,
        worker_id bigint NOT NULL REFERENCES dist_workers(id),
        entry     text NOT NULL,
        pgn       text NOT NULL,
        PRIMARY KEY (test_id, pair)
    );
    CREATE TABLE dist_spsa_history (
        test_id bigint NOT NULL REFERENCES dist_tests(id) ON DELETE CASCADE,
        k       integer NOT NULL,
        theta   text NOT NULL,
        result  text,
        PRIMARY KEY (test_id, k)
    );",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i32 = SCHEMA.len() as i32;

/// Bring the schema to [`SCHEMA_VERSION`]; safe to run from many processes
/// at once (an advisory lock serialises them). Returns the version found.
pub fn migrate(client: &mut Client) -> Result<i32, DbError> {
    let mut tx = client.transaction()?;
    // Any constant key: only migrations take it.
    tx.execute("SELECT pg_advisory_xact_lock(7151730931)", &[])?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS dist_schema_version (version integer NOT NULL)")?;
    let found: i32 = match tx.query_opt("SELECT version FROM dist_schema_version", &[])? {
        Some(r) => r.get(0),
        None => {
            tx.execute("INSERT INTO dist_schema_version VALUES (0)", &[])?;
            0
        }
    };
    if found > SCHEMA_VERSION {
        return Err(DbError::NewerSchema {
            found,
            known: SCHEMA_VERSION,
        });
    }
    for step in &SCHEMA[found as usize..] {
        tx.batch_execute(step)?;
    }
    tx.execute(
        "UPDATE dist_schema_version SET version = $1",
        &[&SCHEMA_VERSION],
    )?;
    tx.commit()?;
    Ok(found)
}

/// Whether an error is worth a retry on a new connection: the connection
/// broke, the server is shutting down or refused us for now, or a
/// serialisation conflict.
fn transient(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.as_db_error() {
        // Class 08 connection, 57P shutdown/admin, 53 resources, 40 rollback.
        Some(db) => {
            let c = db.code().code();
            c.starts_with("08")
                || c.starts_with("57P")
                || c.starts_with("53")
                || c.starts_with("40")
        }
        // No server answer: I/O or protocol failure.
        None => true,
    }
}

/// One process's connection, reopened on failure.
pub struct Db {
    url: String,
    client: Option<Client>,
    /// How long [`Db::run`] keeps retrying before it gives up.
    pub patience: Duration,
    /// Statements run (round trips, for the scale figures).
    pub round_trips: u64,
}

impl Db {
    /// Connect (with retries) and make sure the schema is current.
    pub fn open(url: &str, patience: Duration) -> Result<Db, DbError> {
        let mut db = Db {
            url: url.to_string(),
            client: None,
            patience,
            round_trips: 0,
        };
        db.run(|c| migrate(c).map(|_| ()))?;
        Ok(db)
    }

    /// Run `f` on a live connection; on a transient failure reconnect with
    /// exponential backoff (0.1 s doubling to 5 s) and run it again, until
    /// [`Db::patience`] is spent. `f` must be a whole transaction, so that
    /// a retry never applies half of one.
    pub fn run<T>(
        &mut self,
        mut f: impl FnMut(&mut Client) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        let start = Instant::now();
        let mut wait = Duration::from_millis(100);
        loop {
            let last = match self.client.as_mut().filter(|c| !c.is_closed()) {
                Some(c) => match f(c) {
                    Ok(v) => {
                        self.round_trips += 1;
                        return Ok(v);
                    }
                    Err(DbError::Sql(e)) if transient(&e) => {
                        self.client = None;
                        e.to_string()
                    }
                    Err(e) => return Err(e),
                },
                None => match Client::connect(&self.url, NoTls) {
                    Ok(c) => {
                        self.client = Some(c);
                        continue;
                    }
                    Err(e) if transient(&e) => e.to_string(),
                    Err(e) => return Err(DbError::Sql(e)),
                },
            };
            if start.elapsed() >= self.patience {
                return Err(DbError::Unreachable {
                    seconds: start.elapsed().as_secs(),
                    last,
                });
            }
            std::thread::sleep(wait);
            wait = (wait * 2).min(Duration::from_secs(5));
        }
    }
}
