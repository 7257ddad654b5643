//! Which test a worker started without `--test` takes: the oldest open
//! one (not stopped, batches not done). The rule among several open tests
//! lives here alone, so a priority or throughput share changes this file.

use postgres::Client;

use crate::db::DbError;
use crate::queue::catalog::{test_row, TestRow, TEST_COLUMNS};

/// The oldest test that is not stopped and has batches not done.
pub fn next_open_test(c: &mut Client) -> Result<Option<TestRow>, DbError> {
    c.query_opt(
        &format!(
            "SELECT {TEST_COLUMNS} FROM dist_tests t WHERE NOT stopped AND EXISTS \
                 (SELECT 1 FROM dist_batches b WHERE b.test_id = t.id AND b.state <> 'done') \
                 ORDER BY id LIMIT 1"
        ),
        &[],
    )?
    .map(|r| test_row(&r))
    .transpose()
}
