//! The kinds of test a fleet plays. They share the queue (batches, leases,
//! the completed prefix, [`crate::queue::complete`]); a kind says what a
//! batch plays and how the batches that join the prefix count.
//!
//! - [`match_test`]: a match config, its SPRT on the prefix pair by pair.
//! - [`spsa`]: a `karsinta tune spsa` config, its updates in k order.
//! - [`spsa_revision`]: SPSA tuning one git revision's build.
//! - [`datagen`]: a `karsinta datagen` config, its duplicate filter in
//!   game order.
//! - [`test_kind`]: [`TestKind`], the dispatch over them.

pub mod datagen;
pub mod match_test;
pub mod spsa;
pub mod spsa_revision;
pub mod test_kind;

pub use datagen::DatagenTest;
pub use match_test::{MatchSetup, MatchTest, Setups};
pub use spsa::SpsaTest;
pub use test_kind::TestKind;
