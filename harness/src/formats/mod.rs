//! File formats the harness reads and writes: PGN games out
//! ([`pgn_write`]: the games file of a run folder, split back on resume).

pub mod pgn_write;
