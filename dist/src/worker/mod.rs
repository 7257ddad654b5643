//! A fleet worker: a process that claims batches of a test, plays them
//! with the harness's pair runner ([`karsinta_harness::play::pairs::play_pairs`])
//! and completes them. The user's scheduler starts as many as it likes, on
//! any machine; they meet only in the database.
//!
//! One `play_pairs` call spans all the batches of a test, so engines stay
//! started from batch to batch: its job iterator (`claims`) claims the
//! next batch when the previous one's pairs are all handed out, and the
//! per-pair step (`collect`) completes a batch once its last pair is in.
//! A heartbeat thread (`heartbeat`) renews the leases held (`held`); a
//! stopped test (seen on claim or heartbeat) or a lost lease ends the work
//! on it. A datagen test's batches are games, played by `datagen` with
//! the harness's datagen library on the same claims, heartbeat and
//! completion core. `machine` checks that this machine plays the test as
//! recorded; `run` puts the steps in order.

mod claims;
mod collect;
mod datagen;
mod heartbeat;
mod held;
mod host;
mod machine;
mod options;
mod run;

pub use options::{Log, WorkerError, WorkerOptions, WorkerTotals};
pub use run::run_worker;
