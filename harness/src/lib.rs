//! Karsinta harness library.
pub mod engine;
