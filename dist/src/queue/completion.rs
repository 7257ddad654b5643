//! The one completion every kind of test shares. In one transaction: the
//! batch is recorded once under its lease (`record_batch`; a datagen
//! test's games: [`complete_games`]), the test's row is locked, the
//! contiguous prefix of done batches is extended, the kind counts the
//! batches that joined it (`TestKind::advance`: the match's SPRT, SPSA's
//! updates in k order, datagen's duplicate filter), a kind's decision
//! stops the test, and a test created with `--purge auto` that this
//! completion ended purges its outliers. Either all of it counts or none.

use karsinta_harness::stats::SprtDecision;
use postgres::{Client, Transaction};

use crate::db::DbError;
use crate::kinds::datagen::{record_games, DatagenBatch};
use crate::kinds::TestKind;
use crate::queue::catalog::{lock_test, TestRow};
use crate::queue::purge::purge_at_end;
use crate::queue::results::{contiguous, record_batch, FinishedBatch};

/// What a completion did.
#[derive(Clone, Debug, PartialEq)]
pub enum Completed {
    /// The batch was counted; the test is decided if `decision` is set.
    Counted {
        /// The SPRT's decision, once made (by this completion or before).
        decision: Option<SprtDecision>,
    },
    /// Not leased under this token (late, duplicate or lost): nothing added.
    Rejected,
}

/// Complete a batch of `test`, whose kind `kind` counts it.
pub fn complete(
    c: &mut Client,
    test: &TestRow,
    kind: &TestKind,
    batch: &FinishedBatch<'_>,
) -> Result<Completed, DbError> {
    complete_with(c, test, kind, |tx| record_batch(tx, test, batch))
}

/// Complete a batch of datagen test `test` (whose kind is `kind`): its
/// games stored once, the prefix extended and filtered, in one
/// transaction.
pub fn complete_games(
    c: &mut Client,
    test: &TestRow,
    kind: &TestKind,
    batch: &DatagenBatch<'_>,
) -> Result<Completed, DbError> {
    complete_with(c, test, kind, |tx| record_games(tx, test, batch))
}

/// The completion core around `record`, which stores a batch's results
/// once (false: not leased under the caller's token, nothing written):
/// a match's or SPSA's pairs, a datagen test's games.
fn complete_with(
    c: &mut Client,
    test: &TestRow,
    kind: &TestKind,
    record: impl FnOnce(&mut Transaction<'_>) -> Result<bool, DbError>,
) -> Result<Completed, DbError> {
    let mut tx = c.transaction()?;
    if !record(&mut tx)? {
        return Ok(Completed::Rejected);
    }
    let prefix = lock_test(&mut tx, test.id)?;
    let end = contiguous(&mut tx, test.id, prefix)?;
    // Read only for a test that purges itself at its end: whether this
    // completion is the one that ends it.
    let decided_before = test.auto_purge
        && tx
            .query_one("SELECT decision FROM dist_tests WHERE id = $1", &[&test.id])?
            .get::<_, Option<&str>>(0)
            .is_some();
    let decision = kind.advance(&mut tx, test, prefix..end)?;
    if end > prefix || decision.is_some() {
        let reason = decision.map(|d| format!("SPRT {}", d.as_str()));
        tx.execute(
            "UPDATE dist_tests SET prefix_batches = $2, stopped = stopped OR $3::text IS NOT NULL, \
             stop_reason = CASE WHEN $3::text IS NOT NULL AND NOT stopped THEN $3 ELSE stop_reason END \
             WHERE id = $1",
            &[&test.id, &end, &reason],
        )?;
    }
    let ended_now = (decision.is_some() && !decided_before)
        || (decision.is_none() && end > prefix && end == test.batches);
    let decision = if test.auto_purge && ended_now {
        purge_at_end(&mut tx, test, kind, decision)?
    } else {
        decision
    };
    tx.commit()?;
    Ok(Completed::Counted { decision })
}
