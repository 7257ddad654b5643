//! fishtest's test of whether every worker of a test measured the same
//! thing (`server/fishtest/util.py`, `get_chi2` and `get_bad_workers`).
//!
//! Each worker's pairs are bucketed as won (WW, WD), lost (LL, LD) or even
//! (DD, WL): the full pentanomial has too few WW and LL pairs for a
//! chi-squared test. The workers' rows form a contingency table; workers
//! whose expected count in some bucket is at most 5 are left out (they
//! break the test), repeatedly, since each removal changes the others'
//! expectations. A worker's residual is the chi-squared of the 2x3 table of
//! it against all the others, turned into a standard normal value (capped
//! below at 0); its thresholds are Bonferroni-corrected for the number of
//! workers, so under the null hypothesis a test shows a residual over
//! `z_99` about 1% of the time whatever its number of workers.

use std::collections::BTreeMap;

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

use super::counts::Pentanomial;

/// fishtest's purge rule: the table as a whole is this unlikely ...
pub const PURGE_P: f64 = 0.001;
/// ... or a worker's residual is beyond this.
pub const PURGE_RESIDUAL: f64 = 7.0;

/// The chi-squared test of a test's workers.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerChi2<K> {
    /// Chi-squared of the whole table.
    pub chi2: f64,
    /// Its degrees of freedom, `(workers - 1) * 2`.
    pub dof: usize,
    /// Probability of a chi-squared at least this large if every worker
    /// played the same engines.
    pub p: f64,
    /// Each qualifying worker's residual (standard normal, >= 0).
    pub residual: BTreeMap<K, f64>,
    /// Bonferroni-corrected 95% threshold for a residual.
    pub z_95: f64,
    /// Bonferroni-corrected 99% threshold.
    pub z_99: f64,
}

fn buckets(p: &Pentanomial) -> [f64; 3] {
    let c = p.0.map(|k| k as f64);
    [c[4] + c[3], c[0] + c[1], c[2]]
}

/// The test over per-worker pentanomials; `None` when fewer than two
/// workers qualify or nothing was played.
pub fn worker_chi2<K: Ord + Clone>(workers: &BTreeMap<K, Pentanomial>) -> Option<WorkerChi2<K>> {
    let mut rows: BTreeMap<K, [f64; 3]> = workers
        .iter()
        .map(|(k, p)| (k.clone(), buckets(p)))
        .collect();
    let expected = loop {
        if rows.len() <= 1 {
            return None;
        }
        let expected = expectations(&rows)?;
        let before = rows.len();
        rows.retain(|k, _| expected[k].iter().all(|&e| e > 5.0));
        if rows.len() == before {
            break expected;
        }
    };
    let grand: f64 = rows.values().flatten().sum();
    let columns = 3;
    let dof = (rows.len() - 1) * (columns - 1);
    let mut chi2 = 0.0;
    let mut residual = BTreeMap::new();
    let per_row = ChiSquared::new((columns - 1) as f64).ok()?;
    let normal = Normal::standard();
    for (k, obs) in &rows {
        let exp = &expected[k];
        let row_chi2: f64 = obs.iter().zip(exp).map(|(o, e)| (o - e).powi(2) / e).sum();
        chi2 += row_chi2;
        // The 2x3 table of this row against the others collapsed.
        let row_sum: f64 = obs.iter().sum();
        let adjusted = row_chi2 / (1.0 - row_sum / grand);
        // isf(sf(x)) rather than ppf(cdf(x)): exact for tiny p-values.
        let z = -normal.inverse_cdf(per_row.sf(adjusted));
        residual.insert(k.clone(), z.max(0.0));
    }
    let p = ChiSquared::new(dof as f64).ok()?.sf(chi2);
    let rows_n = rows.len() as f64;
    let z = |q: f64| normal.inverse_cdf(1.0 - q / rows_n);
    Some(WorkerChi2 {
        chi2,
        dof,
        p,
        residual,
        z_95: z(0.05),
        z_99: z(0.01),
    })
}

/// Expected counts under independence, or `None` for an empty table.
fn expectations<K: Ord + Clone>(rows: &BTreeMap<K, [f64; 3]>) -> Option<BTreeMap<K, [f64; 3]>> {
    let mut columns = [0.0; 3];
    for r in rows.values() {
        for (c, v) in columns.iter_mut().zip(r) {
            *c += v;
        }
    }
    let grand: f64 = columns.iter().sum();
    if grand <= 0.0 {
        return None;
    }
    Some(
        rows.iter()
            .map(|(k, r)| {
                let sum: f64 = r.iter().sum();
                (k.clone(), columns.map(|c| sum * c / grand))
            })
            .collect(),
    )
}

impl<K: Ord + Clone> WorkerChi2<K> {
    /// fishtest's automatic choice: the worst worker, if the table is
    /// unlikely as a whole (p < [`PURGE_P`]) or its residual passes
    /// [`PURGE_RESIDUAL`].
    pub fn worst_outlier(&self) -> Option<(K, f64)> {
        self.residual
            .iter()
            .filter(|(_, &r)| self.p < PURGE_P || r > PURGE_RESIDUAL)
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(k, &r)| (k.clone(), r))
    }
}

/// fishtest's other reason to distrust a worker: more than 3 crashes, or
/// over 10% of its games lost on time once it has played more than 20.
pub fn crash_or_time(games: u64, crashes: u64, time_losses: u64) -> bool {
    crashes > 3 || (games > 20 && time_losses as f64 / games as f64 > 0.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[[u64; 5]]) -> BTreeMap<usize, Pentanomial> {
        rows.iter().copied().map(Pentanomial).enumerate().collect()
    }

    /// Reference: fishtest's `get_chi2` run on these rows (as tasks with
    /// pentanomial stats) with numpy 2 and scipy 1.17.
    #[test]
    fn agrees_with_fishtest() {
        let rows = table(&[
            [10, 80, 200, 90, 12],
            [12, 85, 190, 88, 9],
            [9, 70, 210, 95, 14],
            [40, 120, 150, 60, 5],
            [1, 2, 3, 1, 0],
        ]);
        let t = worker_chi2(&rows).unwrap();
        // Worker 4 expects <= 5 pairs in a bucket: left out.
        assert_eq!(t.residual.len(), 4);
        assert_eq!(t.dof, 6);
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9 * b.abs().max(1.0), "{a} vs {b}");
        close(t.chi2, REF_CHI2);
        close(t.p, REF_P);
        for (k, r) in REF_RESIDUAL.iter().enumerate() {
            close(t.residual[&k], *r);
        }
        close(t.z_95, REF_Z95);
        close(t.z_99, REF_Z99);
        assert_eq!(t.worst_outlier().map(|w| w.0), Some(3));
    }

    const REF_CHI2: f64 = 60.88534783473945;
    const REF_P: f64 = 2.9741542562078394e-11;
    const REF_RESIDUAL: [f64; 4] = [
        1.520560923834178,
        0.0,
        3.391105899430494,
        7.2209327281724995,
    ];
    const REF_Z95: f64 = 2.241402727604947;
    const REF_Z99: f64 = 2.807033768343811;

    #[test]
    fn agreeing_workers_are_not_purged() {
        let rows = table(&[
            [10, 80, 200, 90, 12],
            [12, 85, 190, 88, 9],
            [9, 70, 210, 95, 14],
        ]);
        let t = worker_chi2(&rows).unwrap();
        assert!(t.p > PURGE_P, "{t:?}");
        assert!(t.residual.values().all(|&r| r < t.z_95), "{t:?}");
        assert_eq!(t.worst_outlier(), None);
    }

    #[test]
    fn too_few_workers_or_games_give_none() {
        assert_eq!(worker_chi2(&table(&[[10, 80, 200, 90, 12]])), None);
        assert_eq!(worker_chi2(&table(&[[0; 5], [0; 5]])), None);
        // Both rows too small for the test.
        assert_eq!(
            worker_chi2(&table(&[[1, 1, 1, 1, 1], [1, 2, 1, 1, 0]])),
            None
        );
    }

    #[test]
    fn crash_and_time_rule() {
        assert!(crash_or_time(10, 4, 0));
        assert!(
            !crash_or_time(10, 3, 5),
            "time losses count only past 20 games"
        );
        assert!(crash_or_time(100, 0, 11));
        assert!(!crash_or_time(100, 0, 10));
    }
}
