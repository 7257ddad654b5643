//! The harness's integration tests, one binary with a module per subject.
//! Tests that touch process-wide state (killing every engine, counting
//! live engines, a panic hook) run alone in a fresh process of this binary
//! (`karsinta_test_support::in_own_process`).

mod common;

mod ab_bench;
mod ab_gate;
mod adjudication;
mod check_engine;
mod chess960;
mod cli_extras;
mod colours;
mod configs;
mod datagen;
mod engine_options;
mod faults;
mod fuzz;
mod kill_children;
mod match_runs;
mod odds;
mod openings;
mod players;
mod process_tree;
mod referee;
mod spsa;
mod stats_cli;
mod suite;
mod tablebases;
mod texel;
mod trust;
