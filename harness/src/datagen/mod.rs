//! `karsinta datagen`: training data from self-play of the in-process
//! engine or any UCI engine, in the formats NNUE trainers read ([`crate::formats::records`]).
//!
//! - [`config`]: the YAML config, resolved;
//! - [`start`]: random start positions with a playability check;
//! - [`mover`]: the engine that plays, in-process or UCI;
//! - [`selfplay`]: one game, searched at fixed nodes or depth;
//! - [`filter`]: which positions are written, counts per filter;
//! - [`run`](mod@run): the workers, the ordered writer, the ledger and resume
//!   (its pieces public for karsinta-dist's datagen kind);
//! - [`convert`]: between formats.
//!
//! The games are played by a loop of their own over `Searcher` rather than
//! the match runner's pair runner: one engine against itself needs no
//! clock, pairing or opening schedule, and the records need the search's
//! score and best move of every ply.

pub mod config;
pub mod convert;
pub mod filter;
pub mod mover;
pub mod run;
pub mod selfplay;
pub mod start;

pub use config::DatagenConfig;
pub use run::{
    admit, create_run, play_one, resume_config, run, Admitted, DatagenError, DatagenReport,
    EncodedRecord, GameOutput, Progress, RunWriter,
};

#[cfg(test)]
mod tests;
