//! karsinta-dist's integration tests, one binary (`autotests = false`),
//! one module per subject. Every test that needs PostgreSQL starts its own
//! throwaway cluster ([`pg`]) and skips, in one line, where PostgreSQL is
//! not installed (fails under `KARSINTA_CI=1`).
//!
//! Slow suites (real games with worker processes, 200 connections) are
//! `#[ignore]`d: `cargo test --release -p karsinta-dist -- --ignored`.

mod chaos;
mod clocks;
mod datagen;
mod fleet;
mod other_engines;
mod pg;
mod purge;
mod queue;
mod revisions;
mod scale;
mod shares;
mod skips;
mod spsa;
mod spsa_revision;
mod support;
mod web;
