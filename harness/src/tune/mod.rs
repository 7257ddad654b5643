//! Tuners: [`texel`] fits the evaluation weights to labelled positions.
//! Each tuner owns its config, data and run folder; the CLI (`karsinta
//! tune ...`) only maps flags onto them.

pub mod texel;
