//! Per-worker figures of a test: each registered worker's pairs, games
//! per minute, time losses, crashes and fishtest's chi-squared residual of
//! its results against the others', with outliers flagged; and their table.

use std::collections::BTreeMap;

use karsinta_harness::play::game::Termination;
use karsinta_harness::run::ledger::PairEntry;
use karsinta_harness::stats::{crash_or_time, worker_chi2, Pentanomial, WorkerChi2};

use crate::db::DbError;
use crate::queue::catalog::TestRow;
use crate::queue::results::pairs_by_worker;

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
    /// fishtest's residual: this worker's results against all the others'
    /// as a standard normal value (`None`: too few pairs to take part).
    pub residual: Option<f64>,
    /// Games per minute over the batches it completed (per worker process).
    pub games_per_minute: f64,
    /// Flagged: its residual is past the Bonferroni-corrected 99%
    /// threshold, or it crashed or lost on time too often (fishtest's rule).
    pub outlier: bool,
    /// Purged: its batches went back to the queue.
    pub purged: bool,
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
    /// Each revision's build speed here, as its own bench printed it:
    /// engine name and nps (empty: not a test of revisions).
    pub revision_nps: Vec<(String, u64)>,
}

/// `dist_workers.revision_nps`; a value that does not parse shows as none
/// (it is only a figure).
fn revision_nps(text: Option<&str>) -> Vec<(String, u64)> {
    let sides: Vec<serde_json::Value> = text
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default();
    sides
        .iter()
        .filter_map(|s| Some((s["engine"].as_str()?.to_string(), s["nps"].as_u64()?)))
        .collect()
}

/// Games per minute of `pairs` pairs over `seconds` of completed batches.
pub(crate) fn games_per_minute(pairs: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        (2 * pairs) as f64 * 60.0 / seconds
    } else {
        0.0
    }
}

/// A machine of speed `nps` over the test's reference speed (`None`: no
/// reference, or a speed unknown).
pub(crate) fn speed_factor(reference_nps: Option<i64>, nps: u64) -> Option<f64> {
    reference_nps
        .filter(|&n| n > 0 && nps > 0)
        .map(|n| nps as f64 / n as f64)
}

/// One worker's stored pairs: first-engine scores, time losses, crashes.
#[derive(Default)]
struct Played {
    penta: Pentanomial,
    time_losses: u64,
    crashes: u64,
}

impl Played {
    fn add(&mut self, e: &PairEntry) {
        self.penta.add(e.first_points());
        for g in &e.games {
            match g.termination {
                Termination::TimeForfeit => self.time_losses += 1,
                Termination::Crash | Termination::Stall => self.crashes += 1,
                _ => {}
            }
        }
    }
}

/// Per-worker figures over every stored pair of `test` (purged pairs are
/// no longer stored), with the chi-squared test they come from; in a
/// transaction too (the purge at a test's end reads them in its own).
pub fn worker_figures(
    c: &mut impl postgres::GenericClient,
    test: &TestRow,
) -> Result<(Vec<WorkerFigures>, Option<WorkerChi2<i64>>), DbError> {
    let mut per: BTreeMap<i64, Played> = BTreeMap::new();
    for (e, worker) in pairs_by_worker(c, test.id)? {
        per.entry(worker).or_default().add(&e);
    }
    let chi2 = worker_chi2(&per.iter().map(|(&k, p)| (k, p.penta)).collect());
    // Seconds summed in batch order (as the live view's machines sum
    // them), not in whatever order the plan joins them: the same figure
    // to the last bit wherever it shows.
    let info = c.query(
        "SELECT w.id, w.host, coalesce(sum(b.seconds ORDER BY b.test_id, b.idx), 0), \
         count(b.idx), m.nps, \
         coalesce(m.noisy, false), w.clock, w.left_at IS NULL, w.build_seconds, \
         w.purged IS NOT NULL, w.revision_nps \
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
        let pairs = played.penta.pairs();
        let mean = if pairs > 0 {
            played
                .penta
                .0
                .iter()
                .enumerate()
                .map(|(i, &k)| (i as u64 * k) as f64)
                .sum::<f64>()
                / pairs as f64
        } else {
            0.0
        };
        let residual = chi2.as_ref().and_then(|t| t.residual.get(&id).copied());
        let seconds: f64 = r.get(2);
        let nps = r.get::<_, Option<i64>>(4).unwrap_or(0).max(0) as u64;
        let speed_factor = speed_factor(test.reference_nps, nps);
        let games = 2 * pairs;
        let past_99 = residual.zip(chi2.as_ref()).is_some_and(|(r, t)| r > t.z_99);
        workers.push(WorkerFigures {
            id,
            host: r.get(1),
            pairs,
            time_losses: played.time_losses,
            crashes: played.crashes,
            mean,
            residual,
            games_per_minute: games_per_minute(pairs, seconds),
            outlier: past_99 || crash_or_time(games, played.crashes, played.time_losses),
            purged: r.get(9),
            nps,
            speed_factor,
            noisy: r.get(5),
            clock: r.get(6),
            active: r.get(7),
            build_seconds: r.get(8),
            revision_nps: revision_nps(r.get(10)),
        });
    }
    Ok((workers, chi2))
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
        let mut built = w
            .build_seconds
            .map_or(String::new(), |s| format!("  built in {s:.1} s"));
        if !w.revision_nps.is_empty() {
            let each: Vec<String> = w
                .revision_nps
                .iter()
                .map(|(e, n)| format!("{e} {n} nps"))
                .collect();
            built.push_str(&format!(", bench {}", each.join(", ")));
        }
        out.push_str(&format!(
            "{:<7} {:<20} {:>6} {:>10.1} {:>12} {:>8} {:>9}  {:<9} {:>5}  {}{}{}{}{}{built}\n",
            w.id,
            w.host,
            w.pairs,
            w.games_per_minute,
            w.time_losses,
            w.crashes,
            w.residual.map_or("-".to_string(), |r| format!("{r:.2}")),
            nps,
            factor,
            w.clock.as_deref().unwrap_or("-"),
            if w.noisy { "  NOISY" } else { "" },
            if w.active { "" } else { "  (left)" },
            if w.outlier { "  OUTLIER" } else { "" },
            if w.purged { "  PURGED" } else { "" }
        ));
    }
    out
}

/// fishtest's automatic purge choice over a test's figures: every worker
/// that crashed or lost on time too often, or, if there is none, the worst
/// worker by residual when the table as a whole is unlikely or its residual
/// passes fishtest's bound. Each with the reason the purge records.
pub fn bad_workers(
    workers: &[WorkerFigures],
    chi2: Option<&WorkerChi2<i64>>,
) -> Vec<(i64, String)> {
    let by_rate: Vec<(i64, String)> = workers
        .iter()
        .filter(|w| !w.purged && crash_or_time(2 * w.pairs, w.crashes, w.time_losses))
        .map(|w| {
            let reason = format!(
                "{} crashes and {} time losses in {} games",
                w.crashes,
                w.time_losses,
                2 * w.pairs
            );
            (w.id, reason)
        })
        .collect();
    if !by_rate.is_empty() {
        return by_rate;
    }
    let Some(t) = chi2 else {
        return Vec::new();
    };
    t.worst_outlier()
        .map(|(id, r)| {
            let reason = format!(
                "residual {r:.2} (chi2 p = {:.2e}; fishtest purges at p < {} or a residual over {})",
                t.p,
                karsinta_harness::stats::PURGE_P,
                karsinta_harness::stats::PURGE_RESIDUAL
            );
            (id, reason)
        })
        .into_iter()
        .collect()
}
