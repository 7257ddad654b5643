//! Per-worker figures of a test: each registered worker's pairs, games
//! per minute, time losses, crashes and the residual of its mean pair
//! score against the others', with outliers flagged; and their table.

use std::collections::BTreeMap;

use karsinta_harness::play::game::Termination;
use karsinta_harness::run::ledger::PairEntry;
use postgres::Client;

use crate::db::DbError;
use crate::queue::catalog::TestRow;
use crate::queue::results::pairs_by_worker;

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
