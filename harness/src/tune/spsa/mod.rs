//! SPSA tuning of engine parameters by games (`karsinta tune spsa`):
//! [`schedule`] is the mathematics, [`setup`] reads the `spsa:` block,
//! [`driver`] plays the iterations on [`crate::play::pairs::play_pairs`] and
//! [`output`] writes the run folder.
pub mod driver;
pub mod output;
pub mod schedule;
pub mod session;
pub mod setup;
