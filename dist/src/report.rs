//! What a test has done so far: `status` (progress, Elo, LLR, per-worker
//! figures with outliers flagged) and `export` (a normal run folder that
//! every harness tool reads, `karsinta report` included).
//!
//! Both count what the SPRT counted: the pairs of the completed prefix, in
//! pair order, up to the pair where the SPRT decided. Pairs played beyond
//! that stay in the database and in the per-worker figures.

use std::collections::BTreeMap;
use std::path::Path;

use karsinta_harness::game::Termination;
use karsinta_harness::ledger::{Ledger, PairEntry};
use karsinta_harness::summary::{RunStatus, Summary, Tally};
use karsinta_harness::tournament::config_fingerprint;
use postgres::Client;

use crate::db::DbError;
use crate::queue::{self, TestRow};

/// |residual| beyond which a worker is flagged (fishtest uses a similar
/// bound on its per-worker residuals).
pub const OUTLIER_Z: f64 = 3.0;

/// One worker's share of a test.
#[derive(Clone, Debug, Default)]
pub struct WorkerFigures {
    pub id: i64,
    pub host: String,
    pub pairs: u64,
    pub time_losses: u64,
    pub crashes: u64,
    /// Mean pair score of the first engine (0..=4 half points).
    pub mean: f64,
    /// (mean - overall mean) / standard error of this worker's mean.
    pub residual: f64,
    /// Games per minute over the batches it completed (per worker process).
    pub games_per_minute: f64,
    pub outlier: bool,
}

/// Figures of a test.
pub struct TestReport {
    pub test: TestRow,
    pub tally: Tally,
    pub status: RunStatus,
    pub batches_done: i64,
    pub batches_leased: i64,
    pub workers: Vec<WorkerFigures>,
}

/// The run's status in the harness's terms.
fn run_status(t: &TestRow, batches_done: i64) -> RunStatus {
    if t.decision.is_some() {
        RunStatus::Stopped
    } else if t.prefix_batches == t.batches {
        RunStatus::Finished
    } else if t.stopped {
        RunStatus::Halted
    } else {
        let _ = batches_done;
        RunStatus::Running
    }
}

/// Per-worker figures over every stored pair of `test`.
pub fn worker_figures(c: &mut Client, test: &TestRow) -> Result<Vec<WorkerFigures>, DbError> {
    // Every stored pair counts in the per-worker figures.
    let mut per: BTreeMap<i64, (Vec<f64>, u64, u64)> = BTreeMap::new();
    let rows = c.query(
        "SELECT entry, worker_id FROM dist_pairs WHERE test_id = $1",
        &[&test.id],
    )?;
    for r in &rows {
        let e: PairEntry = serde_json::from_str(r.get::<_, &str>(0))
            .map_err(|e| DbError::Invalid(format!("stored pair: {e}")))?;
        let w = per.entry(r.get(1)).or_default();
        w.0.push(e.first_points() as f64);
        for g in &e.games {
            match g.termination {
                Termination::TimeForfeit => w.1 += 1,
                Termination::Crash | Termination::Stall => w.2 += 1,
                _ => {}
            }
        }
    }
    let all: Vec<f64> = per.values().flat_map(|w| w.0.iter().copied()).collect();
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
        let (scores, time_losses, crashes) = per.remove(&id).unwrap_or_default();
        let k = scores.len() as f64;
        let wmean = if k > 0.0 {
            scores.iter().sum::<f64>() / k
        } else {
            mean
        };
        let se = (var / k.max(1.0)).sqrt();
        let residual = if se > 0.0 { (wmean - mean) / se } else { 0.0 };
        let seconds: f64 = r.get(2);
        let games = 2.0 * k;
        let rate_bad = (time_losses + crashes) as f64 > 0.02 * games.max(1.0);
        workers.push(WorkerFigures {
            id,
            host: r.get(1),
            pairs: scores.len() as u64,
            time_losses,
            crashes,
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

/// Gather the figures of test `name`.
pub fn test_report(c: &mut Client, name: &str) -> Result<TestReport, DbError> {
    let test = queue::test_by_name(c, name)?;
    if test.is_spsa() {
        return Err(DbError::Invalid(format!(
            "test {name} is an SPSA test: it has no match figures"
        )));
    }
    let cfg = test.config()?;
    let pairings = karsinta_harness::tally::pairings(cfg.tournament, cfg.engines.len());
    let mut tally = Tally::new(pairings, cfg.sprt);
    for (e, _, _) in queue::stored_pairs(c, test.id, test.counted_pairs())? {
        tally.add(&e);
    }
    let (done, leased) = queue::batch_counts(c, test.id)?;

    let workers = worker_figures(c, &test)?;
    let status = run_status(&test, done);
    Ok(TestReport {
        test,
        tally,
        status,
        batches_done: done,
        batches_leased: leased,
        workers,
    })
}

impl TestReport {
    /// The `status` text.
    pub fn text(&self) -> Result<String, DbError> {
        let t = &self.test;
        let cfg = t.config()?;
        let s = Summary::build(&cfg, &self.tally, self.status);
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
        out.push_str(&s.text_block());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&worker_table(&self.workers));
        Ok(out)
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

/// Export writes into a missing or empty folder only.
pub(crate) fn check_empty(out: &Path) -> Result<(), DbError> {
    if let Ok(mut entries) = std::fs::read_dir(out) {
        if entries.next().is_some() {
            return Err(DbError::Invalid(format!(
                "{}: not empty; export needs a missing or empty folder",
                out.display()
            )));
        }
    }
    Ok(())
}

/// What `status` prints for test `name`, a match or an SPSA test.
pub fn status_text(c: &mut Client, name: &str) -> Result<String, DbError> {
    let test = queue::test_by_name(c, name)?;
    if test.is_spsa() {
        let mut out = crate::spsa::status_text(c, &test)?;
        out.push_str(&worker_table(&worker_figures(c, &test)?));
        Ok(out)
    } else {
        test_report(c, name)?.text()
    }
}

/// Write test `name` as a run folder at `out` (missing or empty):
/// config.yaml, fingerprint.json, games.pgn, ledger.jsonl, summary.json.
pub fn export(c: &mut Client, name: &str, out: &Path) -> Result<Summary, DbError> {
    let io = |p: &Path, e: std::io::Error| DbError::Invalid(format!("{}: {e}", p.display()));
    check_empty(out)?;
    let report = test_report(c, name)?;
    let test = &report.test;
    let cfg = test.config()?;
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let p = out.join("config.yaml");
    std::fs::write(&p, cfg.resolved_yaml()).map_err(|e| io(&p, e))?;
    let p = out.join("fingerprint.json");
    let fp = serde_json::to_string_pretty(&config_fingerprint(&cfg)).unwrap_or_default();
    std::fs::write(&p, fp + "\n").map_err(|e| io(&p, e))?;
    let pairs = queue::stored_pairs(c, test.id, test.counted_pairs())?;
    let mut pgn = String::new();
    for (_, text, _) in &pairs {
        pgn.push_str(text.trim_end());
        pgn.push_str("\n\n");
    }
    let p = out.join("games.pgn");
    std::fs::write(&p, pgn).map_err(|e| io(&p, e))?;
    let p = out.join("ledger.jsonl");
    let (mut ledger, _) = Ledger::open(&p).map_err(|e| DbError::Invalid(e.to_string()))?;
    for (e, _, _) in &pairs {
        ledger
            .append(e)
            .map_err(|e| DbError::Invalid(e.to_string()))?;
    }
    let summary = Summary::build(&cfg, &report.tally, report.status);
    let p = out.join("summary.json");
    summary.write_atomic(&p).map_err(|e| io(&p, e))?;
    Ok(summary)
}
