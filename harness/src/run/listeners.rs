//! What a match run does with each counted pair besides counting it, one
//! listener per output: `summary.json` ([`SummaryFile`]), the progress bar
//! and pair lines ([`ProgressPrinter`]), the caller's observer (`--json-lines`,
//! [`Observer`]) and the SPRT's stop ([`SprtStop`]). [`super::run_match`]
//! hands each of them the pair's ledger entry and the summary after it, in
//! order; a tuner or a fleet worker can run its own set.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};

use super::error::{io_err, MatchError};
use super::ledger::PairEntry;
use super::tally::SprtVerdict;
use crate::play::pairs::Flow;
use crate::report::summary::Summary;

/// Called with each counted pair and the summary after it (`--json-lines`).
pub type PairObserver = std::sync::Arc<dyn Fn(&PairEntry, &Summary) + Send + Sync>;

/// One output of a match run.
pub trait PairListener {
    /// Before the first new pair, with the run's state (a resumed run's
    /// counted pairs included).
    fn started(&mut self, _summary: &Summary) -> Result<(), MatchError> {
        Ok(())
    }

    /// A pair was made durable and counted; `summary` is the state after
    /// it. [`Flow::Stop`] ends the run.
    fn counted(&mut self, entry: &PairEntry, summary: &Summary) -> Result<Flow, MatchError>;

    /// The run ended (finished, stopped, interrupted or halted).
    fn ended(&mut self, _summary: &Summary) -> Result<(), MatchError> {
        Ok(())
    }
}

/// Keeps `summary.json` current, replaced atomically after every pair.
pub struct SummaryFile {
    path: PathBuf,
}

impl SummaryFile {
    /// A listener that writes the summary to `path` (the run folder's `summary.json`).
    pub fn new(path: PathBuf) -> SummaryFile {
        SummaryFile { path }
    }

    fn write(&self, summary: &Summary) -> Result<(), MatchError> {
        summary.write_atomic(&self.path).map_err(io_err(&self.path))
    }
}

impl PairListener for SummaryFile {
    fn started(&mut self, summary: &Summary) -> Result<(), MatchError> {
        self.write(summary)
    }

    fn counted(&mut self, _: &PairEntry, summary: &Summary) -> Result<Flow, MatchError> {
        self.write(summary)?;
        Ok(Flow::Continue)
    }

    fn ended(&mut self, summary: &Summary) -> Result<(), MatchError> {
        self.write(summary)
    }
}

/// The progress bar on a terminal, and one line per pair where stderr is
/// not one (CI, `nohup`, `tee`), unless quiet.
pub struct ProgressPrinter {
    bar: ProgressBar,
    pair_lines: bool,
    total_pairs: u64,
    /// `pair`, or `game` when each opening is played once.
    unit: &'static str,
}

impl ProgressPrinter {
    /// `pair_lines: None` prints them when stderr is not a terminal;
    /// `games_per_pair` is 2, or 1 in a schedule of one game per opening.
    pub fn new(
        total_pairs: u64,
        games_per_pair: u64,
        quiet: bool,
        pair_lines: Option<bool>,
    ) -> ProgressPrinter {
        let bar = if quiet {
            ProgressBar::hidden()
        } else {
            let b = ProgressBar::new(total_pairs * games_per_pair);
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}",
            ) {
                b.set_style(style.progress_chars("=> "));
            }
            b
        };
        ProgressPrinter {
            bar,
            pair_lines: pair_lines.unwrap_or(!quiet && !std::io::stderr().is_terminal()),
            total_pairs,
            unit: if games_per_pair == 1 { "game" } else { "pair" },
        }
    }

    fn show(&self, summary: &Summary) {
        self.bar.set_position(summary.games);
        self.bar.set_message(summary.progress_line());
    }
}

impl PairListener for ProgressPrinter {
    fn started(&mut self, summary: &Summary) -> Result<(), MatchError> {
        self.show(summary);
        Ok(())
    }

    fn counted(&mut self, _: &PairEntry, summary: &Summary) -> Result<Flow, MatchError> {
        self.show(summary);
        if self.pair_lines {
            eprintln!(
                "{} {}/{} ({} games): {}",
                self.unit,
                summary.pairs,
                self.total_pairs,
                summary.games,
                summary.progress_line()
            );
        }
        Ok(Flow::Continue)
    }

    fn ended(&mut self, _: &Summary) -> Result<(), MatchError> {
        self.bar.finish_and_clear();
        Ok(())
    }
}

/// The caller's callback (`--json-lines`) as a listener.
pub struct Observer(pub PairObserver);

impl PairListener for Observer {
    fn counted(&mut self, entry: &PairEntry, summary: &Summary) -> Result<Flow, MatchError> {
        (self.0)(entry, summary);
        Ok(Flow::Continue)
    }
}

/// Stops the run once the SPRT has accepted a hypothesis.
pub struct SprtStop;

impl PairListener for SprtStop {
    fn counted(&mut self, _: &PairEntry, summary: &Summary) -> Result<Flow, MatchError> {
        let decided = summary
            .sprt
            .as_ref()
            .is_some_and(|s| matches!(s.decision, SprtVerdict::H0 | SprtVerdict::H1));
        Ok(if decided { Flow::Stop } else { Flow::Continue })
    }
}
