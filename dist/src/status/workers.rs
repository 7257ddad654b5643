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
    /// Its machine's median bench speed (0: unknown).
    pub nps: u64,
    /// Its speed over the test's reference speed (`None`: no reference).
    pub speed_factor: Option<f64>,
    /// Its machine's bench spread was over its threshold.
    pub noisy: bool,
    /// The clock it played (scaled to its speed), for a clock test.
    pub clock: Option<String>,
    /// Still on the test (not left).
    pub active: bool,
    /// Seconds it took to fetch, build and bench a test's revisions.
    pub build_seconds: Option<f64>,
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
        "SELECT w.id, w.host, coalesce(sum(b.seconds), 0), count(b.idx), m.nps, \
         coalesce(m.noisy, false), w.clock, w.left_at IS NULL, w.build_seconds \
         FROM dist_workers w \
         LEFT JOIN dist_machines m ON m.id = w.machine_id \
         LEFT JOIN dist_batches b ON b.worker_id = w.id AND b.state = 'done' \
         WHERE w.test_id = $1 GROUP BY w.id, w.host, m.nps, m.noisy ORDER BY w.id",
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
        let nps = r.get::<_, Option<i64>>(4).unwrap_or(0).max(0) as u64;
        let speed_factor = test
            .reference_nps
            .filter(|&n| n > 0 && nps > 0)
            .map(|n| nps as f64 / n as f64);
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
            nps,
            speed_factor,
            noisy: r.get(5),
            clock: r.get(6),
            active: r.get(7),
            build_seconds: r.get(8),
        });
    }
    Ok(workers)
}

/// The per-worker lines of `status`.
pub fn worker_table(workers: &[WorkerFigures]) -> String {
    let mut out = String::from(
        "worker  host                  pairs  games/min  time-losses  crashes  residual  \
         nps       speed  clock\n",
    );
    for w in workers {
        let nps = if w.nps > 0 {
            w.nps.to_string()
        } else {
            "-".to_string()
        };
        let factor = w
            .speed_factor
            .map_or("-".to_string(), |f| format!("{f:.2}"));
        let built = w
            .build_seconds
            .map_or(String::new(), |s| format!("  built in {s:.1} s"));
        out.push_str(&format!(
            "{:<7} {:<20} {:>6} {:>10.1} {:>12} {:>8} {:>9.2}  {:<9} {:>5}  {}{}{}{}{built}\n",
            w.id,
            w.host,
            w.pairs,
            w.games_per_minute,
            w.time_losses,
            w.crashes,
            w.residual,
            nps,
            factor,
            w.clock.as_deref().unwrap_or("-"),
            if w.noisy { "  NOISY" } else { "" },
            if w.active { "" } else { "  (left)" },
            if w.outlier { "  OUTLIER" } else { "" }
        ));
    }
    out
}
