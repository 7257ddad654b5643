//! A datagen test's figures: the games and positions of the completed
//! prefix with their counts per filter (duplicates counted in game order,
//! as one machine's report counts them), the batches, and per worker the
//! games, positions and speed it brought.

use karsinta_harness::datagen::filter::Counts;
use postgres::Client;

use crate::db::DbError;
use crate::kinds::datagen::{prefix_counts, DatagenTest};
use crate::queue::catalog::TestRow;
use crate::queue::refusals::{refusals, refusals_text, Refusal};
use crate::queue::results::batch_counts;

/// One worker of a datagen test.
#[derive(Clone, Debug, PartialEq)]
pub struct DatagenWorker {
    /// Its row's id.
    pub id: i64,
    /// The machine's name.
    pub host: String,
    /// Games of its completed batches.
    pub games: u64,
    /// Positions searched in them.
    pub positions: u64,
    /// Seconds its completed batches took, claim to last game.
    pub seconds: f64,
    /// Its engine's bench speed.
    pub nps: i64,
    /// Registered and heard from within the lease.
    pub active: bool,
}

impl DatagenWorker {
    /// Positions searched per second of its batches.
    pub fn positions_per_s(&self) -> f64 {
        self.positions as f64 / self.seconds.max(1e-9)
    }
}

/// Figures of a datagen test.
pub struct DatagenStatus {
    /// The test's row.
    pub test: TestRow,
    /// Its config.
    pub kind: DatagenTest,
    /// The completed prefix's counts, duplicates counted.
    pub counts: Counts,
    /// Batches done.
    pub batches_done: i64,
    /// Batches held under a running lease.
    pub batches_leased: i64,
    /// Per-worker figures.
    pub workers: Vec<DatagenWorker>,
    /// Workers that refused the test, and why.
    pub refusals: Vec<Refusal>,
}

fn workers(c: &mut Client, test: &TestRow) -> Result<Vec<DatagenWorker>, DbError> {
    let rows = c.query(
        "SELECT w.id, w.host, w.bench_nps, \
         (SELECT count(*) FROM dist_datagen_games g WHERE g.worker_id = w.id), \
         (SELECT coalesce(sum((g.counts::json->>'positions')::bigint), 0)::bigint \
          FROM dist_datagen_games g WHERE g.worker_id = w.id), \
         (SELECT coalesce(sum(b.seconds), 0) FROM dist_batches b \
          WHERE b.test_id = w.test_id AND b.worker_id = w.id AND b.state = 'done'), \
         (w.left_at IS NULL AND NOT t.stopped \
          AND w.last_seen > now() - make_interval(secs => t.lease_seconds)) \
         FROM dist_workers w JOIN dist_tests t ON t.id = w.test_id \
         WHERE w.test_id = $1 ORDER BY w.id",
        &[&test.id],
    )?;
    Ok(rows
        .iter()
        .map(|r| DatagenWorker {
            id: r.get(0),
            host: r.get(1),
            nps: r.get(2),
            games: r.get::<_, i64>(3).max(0) as u64,
            positions: r.get::<_, i64>(4).max(0) as u64,
            seconds: r.get(5),
            active: r.get(6),
        })
        .collect())
}

/// Gather the figures of datagen test `test` (inside a
/// [`crate::db::snapshot`]).
pub(crate) fn datagen_figures(c: &mut Client, test: TestRow) -> Result<DatagenStatus, DbError> {
    let kind = DatagenTest::of(&test)?;
    let counts = prefix_counts(c, test.id)?;
    let (done, leased) = batch_counts(c, test.id)?;
    let workers = workers(c, &test)?;
    let refusals = refusals(c, test.id)?;
    Ok(DatagenStatus {
        test,
        kind,
        counts,
        batches_done: done,
        batches_leased: leased,
        workers,
        refusals,
    })
}

impl DatagenStatus {
    /// `finished`, `stopped` or `running`.
    pub fn phase(&self) -> &'static str {
        if self.test.prefix_batches == self.test.batches {
            "finished"
        } else if self.test.stopped {
            "stopped"
        } else {
            "running"
        }
    }

    /// The counts per filter, named as the report names them, in the
    /// filters' order.
    pub fn dropped(&self) -> [(&'static str, u64); 5] {
        let c = &self.counts;
        [
            ("ply range", c.ply_range),
            ("in check", c.in_check),
            ("tactical best move", c.tactical),
            ("mate score", c.mate),
            ("duplicate", c.duplicates),
        ]
    }

    /// The `status` text.
    pub fn text(&self) -> String {
        let (t, c, cfg) = (&self.test, &self.counts, &self.kind.cfg);
        let mut out = format!(
            "test {} (datagen, {}): {} of {} batches done, {} leased, prefix {} batches; {} of {} \
             games counted\n",
            t.name,
            self.phase(),
            self.batches_done,
            t.batches,
            self.batches_leased,
            t.prefix_batches,
            c.games + c.starts_failed + c.failed,
            cfg.games
        );
        out.push_str(&t.queue_line());
        if let Some(r) = &t.stop_reason {
            out.push_str(&format!("stopped: {r}\n"));
        }
        out.push_str(&refusals_text(&self.refusals));
        out.push_str(&format!(
            "{} format, seed {}, {} games per batch\n\
             games {} (white {} / draw {} / black {}; ended by tablebases {}; no playable start \
             {}, engine failures {})\n\
             positions searched {}, written {}\n",
            cfg.format,
            cfg.seed,
            t.batch_pairs,
            c.games,
            c.white_wins,
            c.draws,
            c.black_wins,
            c.tablebase_games,
            c.starts_failed,
            c.failed,
            c.positions,
            c.written
        ));
        let dropped: Vec<String> = self
            .dropped()
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        out.push_str(&format!("dropped: {}\n", dropped.join(", ")));
        out.push_str("worker  host                 games  positions  positions/s  bench nps\n");
        for w in &self.workers {
            out.push_str(&format!(
                "{:<7} {:<20} {:>5} {:>10} {:>12.0} {:>10}{}\n",
                w.id,
                w.host,
                w.games,
                w.positions,
                w.positions_per_s(),
                w.nps,
                if w.active { "" } else { "  gone" }
            ));
        }
        out
    }
}
