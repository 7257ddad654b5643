//! The engine's integration tests, one binary (as ripgrep builds them):
//! each file is a module named by its subject. The `#[ignore]`d suites run
//! in CI with `--ignored` in release mode.

mod bench;
mod cli;
mod eval;
mod fuzz;
mod info;
mod mate_pv;
mod perft;
mod position;
mod search;
mod selfplay;
mod tablebases;
mod threads;
mod uci;
