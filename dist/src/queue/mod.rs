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
//! What counts is the longest prefix of completed batches, in pair order
//! (the order one `karsinta match` with one worker counts them), so the
//! outcome does not depend on which batch finished first; claims only hand
//! out batches within `window_batches` of that prefix. How a kind counts
//! the batches that join the prefix is [`crate::kinds`]'s: the match's
//! SPRT pair by pair, SPSA's updates in iteration order (its window is the
//! SPSA one).
//!
//! - [`catalog`]: the tests table, creation, lookups, stop.
//! - [`choose`]: which open test a worker takes (priority, throughput
//!   shares, the machine a test needs).
//! - [`lease`]: workers, claims, heartbeats, release.
//! - [`machines`]: the machines workers run on, with their speed.
//! - [`mod@refusals`]: workers that refused a test, and why.
//! - [`results`]: a batch's pairs, the prefix, reading them back.
//! - [`completion`]: the one completion core.
//! - [`purge`]: a worker's batches out of the counts and back in the queue.

pub mod catalog;
pub mod choose;
pub mod completion;
pub mod lease;
pub mod machines;
pub mod purge;
pub mod refusals;
pub mod results;

pub use catalog::{
    all_tests, approve, insert_test, set_share, stop, test_by_name, Kind, NewTest, Queueing, Share,
    TestRow,
};
pub use choose::{next_open_test, Asker};
pub use completion::{complete, complete_games, Completed};
pub use lease::{
    claim, heartbeat, leave, register, register_worker, release, Beat, Claim, NewWorker,
};
pub use machines::{register_machine, MachineRow};
pub use purge::{purge_test, purge_worker, purges, PurgeRow, Purged};
pub use refusals::{record_refusal, refusals, Refusal};
pub use results::{batch_counts, pairs_by_worker, stored_pairs, FinishedBatch, PairResult};
