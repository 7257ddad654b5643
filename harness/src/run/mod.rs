//! A match run into a folder, and the runs built on it.
//!
//! [`run_match`] plays a config's [`schedule`] with
//! [`crate::play::pairs::play_pairs`] and records every finished pair: PGN,
//! then the [`ledger`] (the durable record, one line per pair), then the
//! [`tally`] (the counts in memory), then `summary.json`
//! ([`crate::report::summary`]). The fingerprint (`fingerprint.rs`) lets
//! `--resume` check that the config still decides the games; `folder.rs`
//! owns the folder's files. [`ab`] and [`gate`] build two versions of an engine and run such
//! a match between them.

pub mod ab;
mod error;
mod fingerprint;
mod folder;
pub mod gate;
pub mod ledger;
mod match_run;
pub mod schedule;
pub mod tally;

pub use error::MatchError;
pub use fingerprint::config_fingerprint;
pub use folder::{claim_new_run_dir, remove_if_empty, stderr_log_name};
pub use match_run::{run_match, PairObserver, RunOptions};
pub use schedule::{pairings, round_tag, MatchPlan, Pairing};
