//! karsinta-dist: one match (or SPSA run, or datagen run) played by
//! workers on many machines, with PostgreSQL as the shared ledger. There is no coordinator
//! of ours: every process talks to the database, and the coordination (who
//! plays which batch, what counts, when the SPRT stops, which SPSA update
//! comes next) is in the transactions of [`queue`]. Workers play with the
//! harness's pair runner (datagen: its datagen library); `karsinta-harness`
//! itself has no database dependency.
//!
//! From the bottom up:
//! - [`db`]: the connection with retry/backoff, the schema.
//! - [`settings`]: the config's `dist:` block.
//! - [`signature`]: engine bench signatures workers must match.
//! - [`speed`]: a machine's bench speed and the clock scaled to it.
//! - [`revisions`]: tests of two git revisions that each worker builds.
//! - [`queue`]: tests, batches, leases, the one completion core.
//! - [`kinds`]: what a test plays and how its batches count (match, SPSA,
//!   datagen).
//! - [`worker`]: claims, plays and completes batches.
//! - [`status`] and [`export`]: what a test has done, as text and as a
//!   normal run folder.
//! - [`web`]: `serve`, the live view of every test and machine.

#![warn(missing_docs)]

pub mod db;
pub mod export;
pub mod kinds;
pub mod queue;
pub mod revisions;
pub mod settings;
pub mod signature;
pub mod speed;
pub mod status;
pub mod web;
pub mod worker;
