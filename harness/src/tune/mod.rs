//! Tuners: [`texel`] fits the evaluation weights to labelled positions;
//! [`spsa`] tunes search parameters by playing games. Each tuner owns its
//! config, data and run folder; the CLI (`karsinta tune ...`) only maps
//! flags onto them.

pub mod spsa;
pub mod texel;
