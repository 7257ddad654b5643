//! A test's status as figures: [`MatchStatus`] (progress, the counted
//! tally, Elo and LLR through the harness's summary) and [`SpsaStatus`]
//! (iterations applied, theta), each with its per-worker figures and its
//! `status` text.
//!
//! A match counts what the SPRT counted: the pairs of the completed
//! prefix, in pair order, up to the pair where the SPRT decided. Pairs
//! played beyond that stay in the database and in the per-worker figures.

use karsinta_harness::config::MatchConfig;
use karsinta_harness::report::summary::Summary;
use karsinta_harness::run::ledger::PairEntry;
use karsinta_harness::run::tally::{RunStatus, Tally};
use karsinta_harness::tune::spsa::driver::SpsaState;
use postgres::Client;

use crate::db::{snapshot, DbError};
use crate::kinds::match_test::MatchSetup;
use crate::kinds::spsa::{self, SpsaTest};
use crate::queue::catalog::{test_by_name, Kind, TestRow};
use crate::queue::purge::{purges, PurgeRow};
use crate::queue::refusals::{refusals, refusals_text, Refusal};
use crate::queue::results::{batch_counts, stored_pairs};
use crate::status::datagen::{datagen_figures, DatagenStatus};
use crate::status::workers::{worker_figures, worker_table, WorkerFigures};
use karsinta_harness::stats::WorkerChi2;

/// A test's status, by kind.
pub enum TestStatus {
    /// A match test's.
    Match(Box<MatchStatus>),
    /// An SPSA test's.
    Spsa(Box<SpsaStatus>),
    /// A datagen test's.
    Datagen(Box<DatagenStatus>),
}

/// The status of test `name`, a match, SPSA or datagen test, read from
/// one snapshot of the database.
pub fn test_status(c: &mut Client, name: &str) -> Result<TestStatus, DbError> {
    snapshot(c, |c| {
        let test = test_by_name(c, name)?;
        figures_of(c, test)
    })
}

/// The status of the test of row `test` (inside a [`snapshot`]).
pub(crate) fn figures_of(c: &mut Client, test: TestRow) -> Result<TestStatus, DbError> {
    Ok(match test.kind {
        Kind::Match => TestStatus::Match(Box::new(match_figures(c, test)?)),
        Kind::Spsa => TestStatus::Spsa(Box::new(spsa_figures(c, test)?)),
        Kind::Datagen => TestStatus::Datagen(Box::new(datagen_figures(c, test)?)),
    })
}

/// What `status` prints for test `name`.
pub fn status_text(c: &mut Client, name: &str) -> Result<String, DbError> {
    Ok(test_status(c, name)?.text())
}

impl TestStatus {
    /// The `status` text.
    pub fn text(&self) -> String {
        match self {
            TestStatus::Match(m) => m.text(),
            TestStatus::Spsa(s) => s.text(),
            TestStatus::Datagen(d) => d.text(),
        }
    }
}

/// Figures of a match test.
pub struct MatchStatus {
    /// The test's row.
    pub test: TestRow,
    /// Its config and revisions.
    pub kind: MatchSetup,
    /// The counted pairs (see the module doc).
    pub tally: Tally,
    /// Running, finished, decided or stopped by hand.
    pub status: RunStatus,
    /// Batches done.
    pub batches_done: i64,
    /// Batches held under a running lease.
    pub batches_leased: i64,
    /// Per-worker figures over every stored pair.
    pub workers: Vec<WorkerFigures>,
    /// Workers that refused the test, and why.
    pub refusals: Vec<Refusal>,
    /// fishtest's chi-squared test of the workers (`None`: fewer than two
    /// with enough pairs).
    pub chi2: Option<WorkerChi2<i64>>,
    /// Workers purged so far.
    pub purges: Vec<PurgeRow>,
}

/// The run's status in the harness's terms.
pub(crate) fn run_status(t: &TestRow) -> RunStatus {
    if t.decision.is_some() {
        RunStatus::Stopped
    } else if t.prefix_batches == t.batches {
        RunStatus::Finished
    } else if t.stopped {
        RunStatus::Halted
    } else {
        RunStatus::Running
    }
}

/// The figures of match test `name`, read from one snapshot of the
/// database.
pub fn match_status(c: &mut Client, name: &str) -> Result<MatchStatus, DbError> {
    snapshot(c, |c| {
        let test = test_by_name(c, name)?;
        match_figures(c, test)
    })
}

/// The tally of a match test's counted pairs (in pair order).
pub(crate) fn match_tally<'a>(
    cfg: &MatchConfig,
    counted: impl IntoIterator<Item = &'a PairEntry>,
) -> Tally {
    let pairings = karsinta_harness::run::pairings(cfg.tournament, cfg.engines.len());
    let mut tally = Tally::new(pairings, cfg.sprt).counting(cfg.colours.counting());
    for e in counted {
        tally.add(e);
    }
    tally
}

/// Gather the figures of match test `test` (inside a [`snapshot`]).
fn match_figures(c: &mut Client, test: TestRow) -> Result<MatchStatus, DbError> {
    if test.kind != Kind::Match {
        return Err(DbError::Invalid(format!(
            "test {} is not a match ({}): it has no match figures",
            test.name,
            test.kind.as_str()
        )));
    }
    let kind = MatchSetup::of(&test)?;
    let counted = stored_pairs(c, test.id, test.counted_pairs())?;
    let tally = match_tally(&kind.cfg, counted.iter().map(|(e, _, _)| e));
    let (done, leased) = batch_counts(c, test.id)?;
    let (workers, chi2) = worker_figures(c, &test)?;
    let purges = purges(c, test.id)?;
    let refusals = refusals(c, test.id)?;
    let status = run_status(&test);
    Ok(MatchStatus {
        test,
        kind,
        tally,
        status,
        batches_done: done,
        batches_leased: leased,
        workers,
        refusals,
        chi2,
        purges,
    })
}

impl MatchStatus {
    /// The run's summary, as summary.json of one machine's run.
    pub fn summary(&self) -> Summary {
        Summary::build(&self.kind.cfg, &self.tally, self.status)
    }

    /// The `status` text.
    pub fn text(&self) -> String {
        let t = &self.test;
        let mut out = format!(
            "test {} ({}): {} of {} batches done, {} leased, prefix {} batches; {} pairs counted\n",
            t.name,
            self.status,
            self.batches_done,
            t.batches,
            self.batches_leased,
            t.prefix_batches,
            self.tally.pairs
        );
        out.push_str(&t.queue_line());
        if let Some(r) = &self.kind.revisions {
            out.push_str(&r.text());
            if let Some(g) = &r.gate {
                let ended = self.status != RunStatus::Running;
                out.push_str(&g.line(t.decision, ended));
            }
        }
        if let Some(r) = &t.stop_reason {
            out.push_str(&format!("stopped: {r}\n"));
        }
        out.push_str(&refusals_text(&self.refusals));
        out.push_str(&self.summary().text_block());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&worker_table(&self.workers));
        if let Some(t) = &self.chi2 {
            out.push_str(&format!(
                "residuals: chi2 {:.2} on {} dof (p = {:.3}); outlier past z {:.2} (99%, \
                 Bonferroni over {} workers)\n",
                t.chi2,
                t.dof,
                t.p,
                t.z_99,
                t.residual.len()
            ));
        }
        for p in &self.purges {
            out.push_str(&format!(
                "purged: worker {} ({}) at {}: {}; {} batches, {} pairs back in the queue\n",
                p.worker, p.host, p.at, p.reason, p.batches, p.pairs
            ));
        }
        out
    }
}

/// Figures of an SPSA test.
pub struct SpsaStatus {
    /// The test's row.
    pub test: TestRow,
    /// Its config, parameters and schedule.
    pub kind: SpsaTest,
    /// The run as `karsinta tune spsa` keeps it (theta, counts, applied).
    pub state: SpsaState,
    /// Iterations done.
    pub batches_done: i64,
    /// Iterations held under a running lease.
    pub batches_leased: i64,
    /// Per-worker figures over every stored pair.
    pub workers: Vec<WorkerFigures>,
    /// Workers that refused the test, and why.
    pub refusals: Vec<Refusal>,
}

/// Gather the figures of SPSA test `test` (inside a [`snapshot`]).
fn spsa_figures(c: &mut Client, test: TestRow) -> Result<SpsaStatus, DbError> {
    let kind = SpsaTest::of(&test, None)?;
    let state = spsa::state(c, &test, &kind)?;
    let (done, leased) = batch_counts(c, test.id)?;
    // fishtest shows no residuals for SPSA: its games are not one
    // distribution.
    let (workers, _) = worker_figures(c, &test)?;
    let refusals = refusals(c, test.id)?;
    Ok(SpsaStatus {
        test,
        kind,
        state,
        batches_done: done,
        batches_leased: leased,
        workers,
        refusals,
    })
}

impl SpsaStatus {
    /// `finished`, `stopped` or `running`.
    pub fn phase(&self) -> &'static str {
        if self.state.finished() {
            "finished"
        } else if self.test.stopped {
            "stopped"
        } else {
            "running"
        }
    }

    /// The `status` text.
    pub fn text(&self) -> String {
        let (test, st) = (&self.test, &self.state);
        let phase = self.phase();
        let mut out = format!(
            "test {} (spsa, {phase}): iteration {} of {} applied; {} done, {} leased; \
             window {}, {} pairs per iteration, seed {}\n",
            test.name,
            st.applied,
            st.iterations,
            self.batches_done,
            self.batches_leased,
            st.window,
            st.pairs_per_iteration,
            st.seed
        );
        out.push_str(&test.queue_line());
        if let Some(r) = &self.kind.revisions {
            out.push_str(&r.text());
        }
        if let Some(r) = &test.stop_reason {
            out.push_str(&format!("stopped: {r}\n"));
        }
        out.push_str(&refusals_text(&self.refusals));
        let n = st.counts;
        out.push_str(&format!(
            "plus side: {} games +{} ={} -{}, time losses {}, faults {}\n",
            n.games, n.wins, n.draws, n.losses, n.time_losses, n.faults
        ));
        out.push_str(&format!("theta after {} updates:\n", st.applied));
        for (p, v) in self.kind.setup.params.iter().zip(&st.theta) {
            out.push_str(&format!(
                "  {:<28} {:>12.4}  (start {}, [{}, {}])\n",
                p.name, v, p.start, p.min, p.max
            ));
        }
        out.push_str(&worker_table(&self.workers));
        out
    }
}
