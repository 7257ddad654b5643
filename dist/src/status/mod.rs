//! What a test has done so far, as `status` prints it: progress, Elo, LLR
//! (a match), theta (SPSA) or positions and counts per filter (datagen),
//! and per-worker figures with outliers flagged.
//! The figures are values (a live view can render them as well as the
//! terminal); `text()` is the terminal's rendering.
//!
//! - [`figures`]: a test's figures by kind, and their text.
//! - [`datagen`]: a datagen test's games, positions and counts per filter.
//! - [`list`]: every test's line of the live view's list, in bulk.
//! - [`workers`]: per-worker figures, fishtest's residuals and the outlier
//!   flag.

pub mod datagen;
pub mod figures;
pub mod list;
pub mod workers;

pub use datagen::{DatagenStatus, DatagenWorker};
pub use figures::{match_status, status_text, test_status, MatchStatus, SpsaStatus, TestStatus};
pub use list::{test_list, ListEntry, MatchLine};
pub use workers::{bad_workers, worker_figures, worker_table, WorkerFigures};
