//! karsinta-dist: one match (or SPSA run) played by workers on many
//! machines, with PostgreSQL as the shared ledger. There is no server of
//! ours: every process talks to the database, and the coordination (who
//! plays which batch, what counts, when the SPRT stops, which SPSA update
//! comes next) is in the
//! transactions of [`queue`]. Workers play with the harness's runner
//! library; `karsinta-harness` itself has no database dependency.
//!
//! - [`db`]: connection with retry/backoff, schema migrations.
//! - [`queue`]: tests, batches, leases, completion, the prefix SPRT.
//! - [`worker`]: claims, plays and completes batches.
//! - [`signature`]: engine bench signatures workers must match.
//! - [`report`]: status and export to a normal run folder.
//! - [`spsa`]: SPSA tests: iterations as batches, updates in k order.

pub mod db;
pub mod queue;
pub mod report;
pub mod signature;
pub mod spsa;
pub mod worker;

use karsinta_harness::config::MatchConfig;
use karsinta_harness::tournament::MatchPlan;

use crate::db::{Db, DbError};
use crate::queue::{DistSection, TestRow};

/// Create test `name` from a match config: checks the config, the engines
/// and the openings as `karsinta match` would, records the engines'
/// signatures and queues every batch.
pub fn create_test(db: &mut Db, name: &str, cfg: &MatchConfig) -> Result<TestRow, DbError> {
    let dist = DistSection::of(cfg)?;
    let plan = MatchPlan::new(cfg).map_err(|e| DbError::Invalid(e.to_string()))?;
    let (sigs, _) = signature::signatures(&cfg.engines, dist.bench_depth)
        .map_err(|e| DbError::Invalid(e.to_string()))?;
    db.run(|c| queue::create_test(c, name, cfg, &dist, plan.total_pairs, &sigs))
}
