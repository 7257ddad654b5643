//! Texel tuning: evaluation weights fitted to game results.
//!
//! The loop: PGN games (or datagen's training records, [`records`]) -> quiet positions -> sparse traces
//! ([`mod@extract`], `karsinta tune texel-data`) -> a binary dataset
//! ([`dataset`]) -> K fit and full-batch Adam/AdaGrad on the MSE of
//! `sigmoid(K * eval)` against the result ([`tuner`]) -> a run folder with
//! the tuned weights as a parameter file and an optional SPRT verification
//! ([`run`], `karsinta tune texel CONFIG.yaml`). Scoring and gradients come
//! from the engine ([`karsinta_engine::eval::TraceView`]), so the tuner
//! optimises exactly the evaluation the engine plays with.

pub mod config;
pub mod dataset;
pub mod extract;
mod plot;
pub mod records;
pub mod run;
pub mod tuner;

pub use config::TexelConfig;
pub use dataset::{Dataset, Positions};
pub use extract::{extract, ExtractOptions, ExtractReport};
pub use run::{run_texel, TexelRunOptions, TexelSummary};
