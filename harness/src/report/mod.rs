//! What a run reports: [`summary`] (the figures of a tally at one moment,
//! `summary.json`, and its text blocks), [`html`] (`report.html`, drawn
//! from the files of one or several run folders) and [`chart`] (the SVG
//! charts of the page and of the tuners' files).

pub mod chart;
pub mod html;
pub mod result_lines;
pub mod summary;

pub use html::{render, write, write_page, ReportError, Run};
