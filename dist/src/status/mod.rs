//! What a test has done so far, as `status` prints it: progress, Elo, LLR
//! (a match) or theta (SPSA), and per-worker figures with outliers flagged.
//! The figures are values (a live view can render them as well as the
//! terminal); `text()` is the terminal's rendering.
//!
//! - [`figures`]: a test's figures by kind, and their text.
//! - [`workers`]: per-worker figures, fishtest's residuals and the outlier
//!   flag.

pub mod figures;
pub mod workers;

pub use figures::{match_status, status_text, test_status, MatchStatus, SpsaStatus, TestStatus};
pub use workers::{bad_workers, worker_figures, worker_table, WorkerFigures};
