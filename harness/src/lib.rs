//! Karsinta harness library.
pub mod ab;
pub mod config;
pub mod fastchess;
pub mod game;
pub mod gate;
pub mod ledger;
pub mod openings;
pub mod openings_gen;
pub mod pgn;
pub mod players;
pub mod report;
pub mod revision;
pub mod stats;
pub mod summary;
pub mod timecontrol;
pub mod tournament;
