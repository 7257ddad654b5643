//! Karsinta harness library.
pub mod ab;
pub mod config;
pub mod game;
pub mod gate;
pub mod ledger;
pub mod openings;
pub mod openings_gen;
pub mod pgn;
pub mod players;
pub mod revision;
pub mod stats;
pub mod summary;
pub mod timecontrol;
pub mod tournament;
pub mod tune;
