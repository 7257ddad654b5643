//! What a test has done so far, as `status` prints it: progress, Elo, LLR
//! (a match) or theta (SPSA), and per-worker figures with outliers flagged.
//!
//! A match counts what the SPRT counted: the pairs of the completed
//! prefix, in pair order, up to the pair where the SPRT decided. Pairs
//! played beyond that stay in the database and in the per-worker figures.

use std::collections::BTreeMap;

use karsinta_harness::game::Termination;
use karsinta_harness::ledger::PairEntry;
use karsinta_harness::summary::{RunStatus, Summary, Tally};
use postgres::Client;

use crate::db::DbError;
use crate::kinds::match_test::MatchTest;
use crate::kinds::spsa::{self, SpsaTest};
use crate::queue::catalog::{test_by_name, Kind, TestRow};
use crate::queue::results::{batch_counts, pairs_by_worker, stored_pairs};

/// |residual| beyond which a worker is flagged (fishtest uses a similar
/// bound on its per-worker residuals).
pub const OUTLIER_Z: f64 = 3.0;

/// One registered worker's share of a test.
#[derive(Clone, Debug, Default)]
pub struct WorkerFigures {
    /// The worker's row (one per worker process and test).
    pub id: i64,
    /// The machine it ran on.
    pub host: String,
    /// Pairs it stored.
    pub pairs: u64,
    /// Its games lost on time.
    pub time_losses: u64,
    /// Its games ended by a crash or a stall.
    pub crashes: u64,
    /// Mean pair score of the first engine (0..=4 half points).
    pub mean: f64,
    /// (mean - overall mean) / standard error of this worker's mean.
    pub residual: f64,
    /// Games per minute over the batches it completed (per worker process).
    pub games_per_minute: f64,
    /// Flagged: its residual or its rate of time losses and crashes is high.
    pub outlier: bool,
}

/// Figures of a match test.
pub struct TestReport {
    /// The test's row.
    pub test: TestRow,
    /// Its config and schedule.
    pub kind: MatchTest,
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
}

/// The run's status in the harness's terms.
fn run_status(t: &TestRow) -> RunStatus {
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

/// One worker's stored pairs: first-engine scores, time losses, crashes.
#[derive(Default)]
struct Played {
    scores: Vec<f64>,
    time_losses: u64,
    crashes: u64,
}

impl Played {
    fn add(&mut self, e: &PairEntry) {
        self.scores.push(e.first_points() as f64);
        for g in &e.games {
            match g.termination {
                Termination::TimeForfeit => self.time_losses += 1,
                Termination::Crash | Termination::Stall => self.crashes += 1,
                _ => {}
            }
        }
    }
}

/// Per-worker figures over every stored pair of `test`.
pub fn worker_figures(c: &mut Client, test: &TestRow) -> Result<Vec<WorkerFigures>, DbError> {
    let mut per: BTreeMap<i64, Played> = BTreeMap::new();
    for (e, worker) in pairs_by_worker(c, test.id)? {
        per.entry(worker).or_default().add(&e);
    }
    let all: Vec<f64> = per
        .values()
        .flat_map(|w| w.scores.iter().copied())
        .collect();
    let n = all.len().max(1) as f64;
    let mean = all.iter().sum::<f64>() / n;
    let var = all.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let info = c.query(
        "SELECT w.id, w.host, coalesce(sum(b.seconds), 0), count(b.idx) FROM dist_workers w \
         LEFT JOIN dist_batches b ON b.worker_id = w.id AND b.state = 'done' \
         WHERE w.test_id = $1 GROUP BY w.id, w.host ORDER BY w.id",
        &[&test.id],
    )?;
    let mut workers = Vec::new();
    for r in info {
        let id: i64 = r.get(0);
        let played = per.remove(&id).unwrap_or_default();
        let k = played.scores.len() as f64;
        let wmean = if k > 0.0 {
            played.scores.iter().sum::<f64>() / k
        } else {
            mean
        };
        let se = (var / k.max(1.0)).sqrt();
        let residual = if se > 0.0 { (wmean - mean) / se } else { 0.0 };
        let seconds: f64 = r.get(2);
        let games = 2.0 * k;
        let rate_bad = (played.time_losses + played.crashes) as f64 > 0.02 * games.max(1.0);
        workers.push(WorkerFigures {
            id,
            host: r.get(1),
            pairs: played.scores.len() as u64,
            time_losses: played.time_losses,
            crashes: played.crashes,
            mean: wmean,
            residual,
            games_per_minute: if seconds > 0.0 {
                games * 60.0 / seconds
            } else {
                0.0
            },
            outlier: residual.abs() > OUTLIER_Z || rate_bad,
        });
    }
    Ok(workers)
}

/// Gather the figures of match test `name`.
pub fn test_report(c: &mut Client, name: &str) -> Result<TestReport, DbError> {
    let test = test_by_name(c, name)?;
    if test.is_spsa() {
        return Err(DbError::Invalid(format!(
            "test {name} is an SPSA test: it has no match figures"
        )));
    }
    let kind = MatchTest::of(&test)?;
    let cfg = &kind.cfg;
    let pairings = karsinta_harness::tally::pairings(cfg.tournament, cfg.engines.len());
    let mut tally = Tally::new(pairings, cfg.sprt);
    for (e, _, _) in stored_pairs(c, test.id, test.counted_pairs())? {
        tally.add(&e);
    }
    let (done, leased) = batch_counts(c, test.id)?;
    let workers = worker_figures(c, &test)?;
    let status = run_status(&test);
    Ok(TestReport {
        test,
        kind,
        tally,
        status,
        batches_done: done,
        batches_leased: leased,
        workers,
    })
}

impl TestReport {
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
        if let Some(r) = &t.stop_reason {
            out.push_str(&format!("stopped: {r}\n"));
        }
        out.push_str(&self.summary().text_block());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&worker_table(&self.workers));
        out
    }
}

/// The per-worker lines of `status`.
pub fn worker_table(workers: &[WorkerFigures]) -> String {
    let mut out = String::from(
        "worker  host                  pairs  games/min  time-losses  crashes  residual\n",
    );
    for w in workers {
        out.push_str(&format!(
            "{:<7} {:<20} {:>6} {:>10.1} {:>12} {:>8} {:>9.2}{}\n",
            w.id,
            w.host,
            w.pairs,
            w.games_per_minute,
            w.time_losses,
            w.crashes,
            w.residual,
            if w.outlier { "  OUTLIER" } else { "" }
        ));
    }
    out
}

/// The `status` text of an SPSA test, without the worker table.
fn spsa_text(c: &mut Client, test: &TestRow) -> Result<String, DbError> {
    let run = SpsaTest::of(test, None)?;
    let st = spsa::state(c, test, &run)?;
    let (done, leased) = batch_counts(c, test.id)?;
    let phase = if st.finished() {
        "finished"
    } else if test.stopped {
        "stopped"
    } else {
        "running"
    };
    let mut out = format!(
        "test {} (spsa, {phase}): iteration {} of {} applied; {done} done, {leased} leased; \
         window {}, {} pairs per iteration, seed {}\n",
        test.name, st.applied, st.iterations, st.window, st.pairs_per_iteration, st.seed
    );
    if let Some(r) = &test.stop_reason {
        out.push_str(&format!("stopped: {r}\n"));
    }
    let n = st.counts;
    out.push_str(&format!(
        "plus side: {} games +{} ={} -{}, time losses {}, faults {}\n",
        n.games, n.wins, n.draws, n.losses, n.time_losses, n.faults
    ));
    out.push_str(&format!("theta after {} updates:\n", st.applied));
    for (p, v) in run.setup.params.iter().zip(&st.theta) {
        out.push_str(&format!(
            "  {:<28} {:>12.4}  (start {}, [{}, {}])\n",
            p.name, v, p.start, p.min, p.max
        ));
    }
    Ok(out)
}

/// What `status` prints for test `name`, a match or an SPSA test.
pub fn status_text(c: &mut Client, name: &str) -> Result<String, DbError> {
    let test = test_by_name(c, name)?;
    match test.kind {
        Kind::Match => Ok(test_report(c, name)?.text()),
        Kind::Spsa => {
            let mut out = spsa_text(c, &test)?;
            out.push_str(&worker_table(&worker_figures(c, &test)?));
            Ok(out)
        }
    }
}
