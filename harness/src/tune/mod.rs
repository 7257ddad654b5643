//! Tuners: methods that change engine parameters from evidence.
pub mod spsa;
