//! The figures of the live view's test list, every test at once in one
//! snapshot. A match test's line needs only its counted tally and batch
//! counts: read for all match tests in two queries, with each config
//! parsed once per process ([`Setups`]), instead of each test's whole
//! status (workers, purges, refusals: several queries a test, one a scan
//! of every batch). SPSA and datagen tests read their own status.

use karsinta_harness::report::summary::Summary;
use karsinta_harness::run::tally::RunStatus;
use postgres::Client;

use crate::db::{snapshot, DbError};
use crate::kinds::Setups;
use crate::queue::catalog::{all_tests, Kind, TestRow};
use crate::queue::results::{all_batch_counts, counted_entries};
use crate::status::figures::{figures_of, match_tally, run_status, TestStatus};

/// A match test's line: what [`crate::status::MatchStatus`] has of it.
pub struct MatchLine {
    /// The test's row.
    pub test: TestRow,
    /// The summary of its counted pairs.
    pub summary: Summary,
    /// Running, finished, decided or stopped by hand.
    pub status: RunStatus,
    /// Batches done.
    pub batches_done: i64,
    /// Batches held under a running lease.
    pub batches_leased: i64,
}

/// One test of the list.
pub enum ListEntry {
    /// A match test's line.
    Match(Box<MatchLine>),
    /// Another kind's whole status.
    Other(TestStatus),
}

/// Every test, oldest first, read from one snapshot of the database.
pub fn test_list(c: &mut Client, setups: &Setups) -> Result<Vec<ListEntry>, DbError> {
    snapshot(c, |c| {
        let tests = all_tests(c)?;
        let matches: Vec<&TestRow> = tests.iter().filter(|t| t.kind == Kind::Match).collect();
        let mut counted = counted_entries(c, &matches)?;
        let batches = all_batch_counts(c)?;
        let mut out = Vec::with_capacity(tests.len());
        for test in tests {
            if test.kind != Kind::Match {
                out.push(ListEntry::Other(figures_of(c, test)?));
                continue;
            }
            let setup = setups.of(&test)?;
            let tally = match_tally(&setup.cfg, &counted.remove(&test.id).unwrap_or_default());
            let status = run_status(&test);
            let (done, leased) = batches.get(&test.id).copied().unwrap_or_default();
            out.push(ListEntry::Match(Box::new(MatchLine {
                summary: Summary::build(&setup.cfg, &tally, status),
                test,
                status,
                batches_done: done,
                batches_leased: leased,
            })));
        }
        Ok(out)
    })
}
