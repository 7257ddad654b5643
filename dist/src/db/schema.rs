//! The schema, as migrations applied in order. Never edit a released step:
//! add one, so that every database reaches the same tables.

use postgres::Client;

use crate::db::error::DbError;

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
    // 2: many tests sharing the fleet (priority, throughput weight, the
    // machine a test needs), machines with their measured speed, and the
    // clock each worker plays (scaled to its speed) per worker and batch.
    "ALTER TABLE dist_tests
        ADD COLUMN priority       integer NOT NULL DEFAULT 0,
        ADD COLUMN throughput     double precision NOT NULL DEFAULT 100 CHECK (throughput > 0),
        ADD COLUMN min_cores      integer NOT NULL DEFAULT 0,
        ADD COLUMN min_memory_mb  bigint NOT NULL DEFAULT 0,
        ADD COLUMN require_syzygy boolean NOT NULL DEFAULT false,
        ADD COLUMN fixed_limit    boolean NOT NULL DEFAULT false,
        ADD COLUMN reference_nps  bigint;
    CREATE TABLE dist_machines (
        id        bigserial PRIMARY KEY,
        host      text NOT NULL,
        pid       integer NOT NULL,
        cores     integer NOT NULL,
        memory_mb bigint NOT NULL,
        syzygy    boolean NOT NULL,
        nps       bigint NOT NULL,
        spread    double precision NOT NULL,
        noisy     boolean NOT NULL,
        started   timestamptz NOT NULL DEFAULT now()
    );
    ALTER TABLE dist_workers
        ADD COLUMN machine_id  bigint REFERENCES dist_machines(id),
        ADD COLUMN concurrency integer NOT NULL DEFAULT 1,
        ADD COLUMN clock       text,
        ADD COLUMN left_at     timestamptz;
    ALTER TABLE dist_batches ADD COLUMN clock text;
    CREATE INDEX dist_workers_active ON dist_workers (test_id) WHERE left_at IS NULL;",
    // 3: tests of git revisions built on the workers (the repository, both
    // commits and their recorded benches, as JSON), how long each worker
    // took to fetch, build and bench them, and the refusals of workers that
    // could not play a test as recorded (a bench that differs, a failed
    // build), with the reason `status` and the live view show.
    "ALTER TABLE dist_tests ADD COLUMN revisions text;
    ALTER TABLE dist_workers ADD COLUMN build_seconds double precision;
    CREATE TABLE dist_refusals (
        id         bigserial PRIMARY KEY,
        test_id    bigint NOT NULL REFERENCES dist_tests(id) ON DELETE CASCADE,
        machine_id bigint REFERENCES dist_machines(id),
        host       text NOT NULL,
        pid        integer NOT NULL,
        reason     text NOT NULL,
        at         timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX dist_refusals_test ON dist_refusals (test_id);",
    // 4: purges (fishtest's): a worker's batches back in the queue, its
    // pairs kept aside with the record of why.
    "ALTER TABLE dist_workers ADD COLUMN purged timestamptz;
    CREATE TABLE dist_purges (
        id        bigserial PRIMARY KEY,
        test_id   bigint NOT NULL REFERENCES dist_tests(id) ON DELETE CASCADE,
        worker_id bigint NOT NULL REFERENCES dist_workers(id),
        reason    text NOT NULL,
        batches   integer NOT NULL,
        pairs     bigint NOT NULL DEFAULT 0,
        at        timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE dist_purged_pairs (
        purge_id  bigint NOT NULL REFERENCES dist_purges(id) ON DELETE CASCADE,
        test_id   bigint NOT NULL,
        pair      bigint NOT NULL,
        batch     integer NOT NULL,
        worker_id bigint NOT NULL,
        entry     text NOT NULL,
        pgn       text NOT NULL,
        PRIMARY KEY (purge_id, pair)
    );",
    // 5: tests that purge their outliers themselves when they end
    // (`create --purge auto`).
    "ALTER TABLE dist_tests ADD COLUMN auto_purge boolean NOT NULL DEFAULT false;",
    // 6: datagen tests: each game's records before the run-wide duplicate
    // filter (stored with its batch, once), the keys that filter has
    // admitted over the completed prefix, and the prefix's counts.
    "ALTER TABLE dist_tests DROP CONSTRAINT dist_tests_kind_check;
    ALTER TABLE dist_tests ADD CONSTRAINT dist_tests_kind_check
        CHECK (kind IN ('match', 'spsa', 'datagen'));
    ALTER TABLE dist_tests ADD COLUMN datagen_counts text;
    CREATE TABLE dist_datagen_games (
        test_id   bigint NOT NULL REFERENCES dist_tests(id) ON DELETE CASCADE,
        game      bigint NOT NULL,
        batch     integer NOT NULL,
        worker_id bigint NOT NULL REFERENCES dist_workers(id),
        ending    text NOT NULL,
        counts    text NOT NULL,
        records   bytea NOT NULL,
        PRIMARY KEY (test_id, game)
    );
    CREATE TABLE dist_datagen_keys (
        test_id bigint NOT NULL REFERENCES dist_tests(id) ON DELETE CASCADE,
        key     bigint NOT NULL,
        PRIMARY KEY (test_id, key)
    );",
    // 7: tests held until approved (`create --hold`, OpenBench's
    // approval): no worker claims their batches before `approve`.
    "ALTER TABLE dist_tests ADD COLUMN held boolean NOT NULL DEFAULT false;",
    // 8: per worker of a test of revisions, each build's speed as its own
    // bench printed it (JSON: engine and nps per side).
    "ALTER TABLE dist_workers ADD COLUMN revision_nps text;",
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
