//! The engine's fixed measurements: the bench (fixed positions searched to
//! a fixed depth, whose node count is the signature of the engine's play)
//! and the ablation built on it (what each search technique is worth).

pub mod ablate;
mod run;

pub use run::{
    run_bench, run_bench_threads, run_bench_until, run_bench_with, BenchResult, BENCH_FENS,
    DEFAULT_BENCH_DEPTH,
};
