//! What a run reports: [`summary`] (the figures of a tally at one moment,
//! `summary.json`, and its text blocks) and [`html`] (`report.html`, drawn
//! from the files of one or several run folders).

pub mod html;
pub mod summary;

pub use html::{render, write, write_page, ReportError, Run};
