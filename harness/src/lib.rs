//! Karsinta's harness: matches between chess engines, their statistics,
//! A/B tests and the CI gate, and the tuners that play or fit their way to
//! better parameters.
//!
//! Data flows from a config to a run folder:
//! - [`config`]: YAML or fastchess/cutechess flags -> a resolved
//!   [`config::MatchConfig`] (engines as [`players::PlayerSpec`]s, the time
//!   control, the openings, the SPRT).
//! - [`players`]: the engines (UCI and xboard processes, the in-process
//!   engine) behind one [`players::Player`] trait; builds of git revisions.
//! - [`play`]: one game judged by the harness, the clock, and the pair
//!   runner [`play::pairs::play_pairs`] that every caller shares.
//! - [`run`]: a match into a folder (schedule, ledger, tally, resume
//!   fingerprint), and A/B and gate runs built on it.
//! - [`report`]: `summary.json`, text blocks and `report.html`.
//! - [`stats`]: Elo, LOS, nElo and the GSPRT; [`openings`]: suites and
//!   their generator; [`formats`]: file formats; [`tune`]: Texel and SPSA.
//!
//! Four words for results, each with one meaning and one home:
//! - the **ledger** ([`run::ledger`]): the durable record, `ledger.jsonl`,
//!   one line per finished game pair, written before the pair is counted;
//! - the **tally** ([`run::tally`]): the counts in memory (pentanomial,
//!   W/D/L, terminations, the SPRT state), rebuilt from the ledger;
//! - the **summary** ([`report::summary`]): the figures of a tally at one
//!   moment (Elo, LLR, per-pairing tables), `summary.json`;
//! - a **report** ([`report`]): what a person reads, `report.html` and the
//!   text and Markdown blocks.

#![warn(missing_docs)]

pub mod config;
pub mod datagen;
pub mod formats;
pub mod openings;
pub mod play;
pub mod players;
pub mod report;
pub mod run;
pub mod stats;
pub mod tune;
pub mod variant;
