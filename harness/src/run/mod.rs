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
pub mod listeners;
mod match_run;
pub mod schedule;
pub mod tally;

pub use error::MatchError;

/// The blocks of a match config that the commands built on a match read:
/// [`ab::SECTION`] and [`gate::SECTION`], which own them (spelled out here
/// so that this module does not import its children; the gate's tests
/// check the two agree). The commands that play such a config accept them.
pub const SECTIONS: &[&str] = &["build", "gate"];

/// The block of karsinta-dist, which plays and tunes these same configs on
/// many machines: a fleet test's config is one that `match` and `tune
/// spsa` also run on one machine, leaving the block to its owner.
pub const FLEET_SECTION: &str = "dist";
pub use fingerprint::config_fingerprint;
pub use folder::{claim_new_run_dir, remove_if_empty, stderr_log_name};
pub use listeners::{PairListener, PairObserver};
pub use match_run::{run_match, RunOptions};
pub use schedule::{pairings, round_tag, MatchPlan, Pairing};
