//! fishtest's purge against a real PostgreSQL (see pg.rs): simulated
//! workers complete batches with made-up pairs; one reports results no
//! honest worker would. Its chi-squared residual flags it, the purge takes
//! its batches out of the counts and back to the queue (its pairs kept
//! aside), the SPRT it decided is counted again, and the honest workers'
//! replays give the counts an honest fleet gives.

use std::time::Duration;

use karsinta_dist::db::Db;
use karsinta_dist::kinds::{MatchTest, TestKind};
use karsinta_dist::queue::{self, Claim, Completed, FinishedBatch, NewWorker, PairResult, TestRow};
use karsinta_dist::status;
use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::play::game::GameResult;
use karsinta_harness::stats::Pentanomial;

use crate::pg::TempPg;
use crate::support::{cli, drawn_pair, write_config};

/// A pair in which the first engine scores `half_points` (0 = LL .. 4 = WW).
fn pair_scoring(pair: u64, half_points: usize) -> PairResult {
    let mut p = drawn_pair(pair);
    let [g1, g2] = &mut p.entry.games[..] else {
        unreachable!("drawn_pair makes two games")
    };
    // Game 1: the first engine is white; game 2: black.
    let (r1, r2) = match half_points {
        0 => (GameResult::BlackWins, GameResult::WhiteWins),
        1 => (GameResult::BlackWins, GameResult::Draw),
        2 => (GameResult::Draw, GameResult::Draw),
        3 => (GameResult::Draw, GameResult::BlackWins),
        _ => (GameResult::WhiteWins, GameResult::BlackWins),
    };
    g1.result = r1;
    g2.result = r2;
    assert_eq!(p.entry.first_points(), half_points.min(4));
    p
}

/// What an honest worker reports for pair `n`: LD, DD, DW, DD in turn.
fn honest(n: u64) -> usize {
    [1, 2, 3, 2][(n % 4) as usize]
}

/// The `sprt:` line of [`write_config`]'s config.
const DEFAULT_SPRT: &str = "sprt: { elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05 }";

struct Sim {
    worker: i64,
    /// Half points of each pair it reports.
    reports: fn(u64) -> usize,
}

struct Fixture {
    db: Db,
    row: TestRow,
    kind: TestKind,
    _dir: tempfile::TempDir,
}

impl Fixture {
    fn new(pg: &TempPg, pairs: u64, sprt: bool) -> Fixture {
        Fixture::with_purge(pg, pairs, sprt, false)
    }

    /// `auto_purge`: created with `--purge auto`.
    fn with_purge(pg: &TempPg, pairs: u64, sprt: bool, auto_purge: bool) -> Fixture {
        Fixture::with_sprt(pg, pairs, sprt.then_some(DEFAULT_SPRT), auto_purge)
    }

    /// `sprt`: the config's `sprt:` line, if any.
    fn with_sprt(pg: &TempPg, pairs: u64, sprt: Option<&str>, auto_purge: bool) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let path = write_config(dir.path(), "p", 2 * pairs, sprt.is_some(), 3, 600);
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace(DEFAULT_SPRT, sprt.unwrap_or(DEFAULT_SPRT))
            + "  window_batches: 100000\n";
        std::fs::write(&path, text).unwrap();
        let blocks = karsinta_dist::settings::accepted_sections();
        let cfg = MatchConfig::load_with(&path, &Overrides::default(), &blocks).unwrap();
        let mut db = Db::open(&pg.url(), Duration::from_secs(10)).unwrap();
        let row = MatchTest::new(&cfg)
            .unwrap()
            .create_queued(
                &mut db,
                "p",
                &queue::Queueing {
                    auto_purge,
                    ..queue::Queueing::default()
                },
            )
            .unwrap();
        let kind = TestKind::of(&row, None).unwrap();
        Fixture {
            db,
            row,
            kind,
            _dir: dir,
        }
    }

    fn sim(&mut self, host: &str, reports: fn(u64) -> usize) -> Sim {
        let new = NewWorker {
            test: self.row.id,
            host,
            signatures: "[]",
            bench_nps: 0,
            machine: None,
            concurrency: 1,
            clock: None,
            build_seconds: None,
            revision_nps: None,
        };
        let worker = self.db.run(|c| queue::register(c, &new)).unwrap();
        Sim { worker, reports }
    }

    /// One claim and completion by `s`; the claim's outcome.
    fn step(&mut self, s: &Sim) -> Claim {
        self.step_completed(s).0
    }

    /// One claim and completion by `s`: the claim's outcome and, for a
    /// batch, the completion's.
    fn step_completed(&mut self, s: &Sim) -> (Claim, Option<Completed>) {
        let claim = self
            .db
            .run(|c| queue::claim(c, self.row.id, s.worker))
            .unwrap();
        if let Claim::Batch { idx, token } = claim {
            let pairs: Vec<_> = self
                .row
                .pairs_of(idx)
                .map(|n| pair_scoring(n, (s.reports)(n)))
                .collect();
            let batch = FinishedBatch {
                idx,
                token,
                worker: s.worker,
                seconds: 1.0,
                pairs: &pairs,
            };
            let (row, kind) = (&self.row, &self.kind);
            let done = self
                .db
                .run(|c| queue::complete(c, row, kind, &batch))
                .unwrap();
            return (claim, Some(done));
        }
        (claim, None)
    }

    /// Rounds of one step per sim until none gets a batch.
    fn drain(&mut self, sims: &[&Sim]) {
        loop {
            let mut any = false;
            for s in sims {
                any |= matches!(self.step(s), Claim::Batch { .. });
            }
            if !any {
                return;
            }
        }
    }

    fn status(&mut self) -> status::MatchStatus {
        self.db.run(|c| status::match_status(c, "p")).unwrap()
    }
}

fn count(c: &mut postgres::Client, sql: &str) -> i64 {
    c.query_one(sql, &[]).unwrap().get(0)
}

#[test]
fn an_outlier_is_flagged_purged_and_its_batches_replayed_by_the_others() {
    let Some(pg) = TempPg::start(10) else {
        return;
    };
    // 180 pairs in 60 batches, 20 per worker; the cheat reports WW always.
    let mut f = Fixture::new(&pg, 180, false);
    let (a, b) = (f.sim("a", honest), f.sim("b", honest));
    let cheat = f.sim("cheat", |_| 4);
    f.drain(&[&a, &b, &cheat]);

    let st = f.status();
    let t = st.chi2.as_ref().expect("three workers with enough pairs");
    let fig = |id: i64| st.workers.iter().find(|w| w.id == id).unwrap().clone();
    assert!(t.p < 1e-6, "{t:?}");
    let worst = fig(cheat.worker).residual.unwrap();
    assert!(worst > t.z_99, "{t:?}");
    assert!(fig(cheat.worker).outlier);
    // Against others that include the cheat, the honest rows deviate too,
    // but less: the rule takes only the worst.
    for h in [&a, &b] {
        assert!(fig(h.worker).residual.unwrap() < worst, "{t:?}");
    }
    assert!(st.text().contains("OUTLIER"), "{}", st.text());

    // fishtest's rule picks the cheat and only the cheat.
    let done = f.db.run(|c| queue::purge_test(c, "p", None)).unwrap();
    assert_eq!(done.len(), 1, "{done:?}");
    let (w, reason, purged) = &done[0];
    assert_eq!(*w, cheat.worker);
    assert!(reason.contains("residual"), "{reason}");
    assert_eq!((purged.batches.len(), purged.pairs), (20, 60));

    let mut c = pg.client();
    assert_eq!(count(&mut c, "SELECT count(*) FROM dist_pairs"), 120);
    assert_eq!(count(&mut c, "SELECT count(*) FROM dist_purged_pairs"), 60);
    assert_eq!(
        count(
            &mut c,
            "SELECT count(*) FROM dist_batches WHERE state = 'pending'"
        ),
        20
    );
    let prefix: i32 = c
        .query_one("SELECT prefix_batches FROM dist_tests", &[])
        .unwrap()
        .get(0);
    assert_eq!(
        prefix, purged.batches[0],
        "the prefix ends at the first purged batch"
    );
    let st = f.status();
    assert_eq!(st.tally.pairs, prefix as u64 * 3);
    assert!(
        st.text()
            .contains(&format!("purged: worker {}", cheat.worker)),
        "{}",
        st.text()
    );
    assert!(fig_purged(&st, cheat.worker));

    // The purged registration plays no more of the test; the honest ones
    // replay its batches and the counts are an honest fleet's.
    assert_eq!(f.step(&cheat), Claim::Stopped);
    f.drain(&[&a, &b]);
    let st = f.status();
    let mut want = Pentanomial::default();
    for n in 0..180 {
        want.add(honest(n));
    }
    assert_eq!(st.tally.pairs, 180);
    assert_eq!(st.tally.per_pairing[0].penta, want);
    // Among honest workers alone nothing stands out.
    let t = st.chi2.as_ref().expect("two honest workers");
    assert!(t.p > 0.001, "{t:?}");
    assert!(st.workers.iter().all(|w| !w.outlier), "{}", st.text());

    // Nothing left to purge; a worker of no test is refused, unchanged.
    assert!(f
        .db
        .run(|c| queue::purge_test(c, "p", None))
        .unwrap()
        .is_empty());
    let err =
        f.db.run(|c| queue::purge_test(c, "p", Some(9999)))
            .unwrap_err();
    assert!(
        err.to_string().contains("worker 9999 did not play test p"),
        "{err}"
    );
    assert_eq!(count(&mut c, "SELECT count(*) FROM dist_purges"), 1);

    // The command line: fishtest's rule finds nothing more; a purge needs
    // a worker or --auto.
    let out = cli(&pg, &["purge", "p", "--auto"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "test p: no bad workers\n"
    );
    let out = cli(&pg, &["purge", "p"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--worker"));
}

fn fig_purged(st: &status::MatchStatus, id: i64) -> bool {
    st.workers
        .iter()
        .any(|w| w.id == id && w.purged && w.pairs == 0)
}

#[test]
fn purging_the_worker_that_decided_the_sprt_reopens_the_test() {
    let Some(pg) = TempPg::start(10) else {
        return;
    };
    let mut f = Fixture::new(&pg, 600, true);
    let honest_one = f.sim("honest", honest);
    let cheat = f.sim("cheat", |_| 4);
    // The cheat alone: WW pairs pass H1 within a few batches.
    while !matches!(f.step(&cheat), Claim::Stopped | Claim::Finished) {}
    let mut c = pg.client();
    let (stopped, reason): (bool, Option<String>) = {
        let r = c
            .query_one("SELECT stopped, stop_reason FROM dist_tests", &[])
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert!(stopped);
    assert_eq!(reason.as_deref(), Some("SPRT H1"));

    let done =
        f.db.run(|c| queue::purge_test(c, "p", Some(cheat.worker)))
            .unwrap();
    assert_eq!(done[0].2.decision, None, "no pair left to decide on");
    let r = c
        .query_one(
            "SELECT stopped, stop_reason, decision, prefix_batches FROM dist_tests",
            &[],
        )
        .unwrap();
    assert!(!r.get::<_, bool>(0));
    assert_eq!(r.get::<_, Option<String>>(1), None);
    assert_eq!(r.get::<_, Option<String>>(2), None);
    assert_eq!(r.get::<_, i32>(3), 0);
    // Running again: the honest worker gets the purged batches.
    assert!(matches!(f.step(&honest_one), Claim::Batch { idx: 0, .. }));
}

#[test]
fn an_spsa_test_is_not_purged() {
    let Some(pg) = TempPg::start(10) else {
        return;
    };
    let mut f = Fixture::new(&pg, 30, false);
    let a = f.sim("a", honest);
    f.step(&a);
    let mut c = pg.client();
    c.execute("UPDATE dist_tests SET kind = 'spsa'", &[])
        .unwrap();
    let row = f.db.run(|c| queue::test_by_name(c, "p")).unwrap();
    let err =
        f.db.run(|c| queue::purge_worker(c, &row, &f.kind, a.worker, "by hand"))
            .unwrap_err();
    assert!(
        err.to_string().contains("only match tests can be purged"),
        "{err}"
    );
    assert_eq!(count(&mut c, "SELECT count(*) FROM dist_purges"), 0);
}

#[test]
fn a_test_created_with_purge_auto_purges_its_outlier_when_it_ends_and_plays_on() {
    let Some(pg) = TempPg::start(10) else {
        return;
    };
    // As above, but the test purges itself: the completion that brings
    // the last batch into the prefix purges the cheat in its transaction,
    // its batches go back in the queue, the honest workers replay them in
    // the same drain, and the test's second end purges no one.
    let mut f = Fixture::with_purge(&pg, 180, false, true);
    let (a, b) = (f.sim("a", honest), f.sim("b", honest));
    let cheat = f.sim("cheat", |_| 4);
    f.drain(&[&a, &b, &cheat]);

    let mut c = pg.client();
    let rows = c
        .query("SELECT worker_id, reason, batches FROM dist_purges", &[])
        .unwrap();
    assert_eq!(rows.len(), 1, "one purge, at the first end");
    assert_eq!(rows[0].get::<_, i64>(0), cheat.worker);
    let reason: String = rows[0].get(1);
    assert!(
        reason.starts_with(&format!(
            "{} (its last batch): residual",
            queue::purge::AUTO_REASON
        )),
        "{reason}"
    );
    assert_eq!(rows[0].get::<_, i32>(2), 20);
    assert_eq!(count(&mut c, "SELECT count(*) FROM dist_purged_pairs"), 60);

    let st = f.status();
    let mut want = Pentanomial::default();
    for n in 0..180 {
        want.add(honest(n));
    }
    assert_eq!(st.tally.pairs, 180);
    assert_eq!(
        st.tally.per_pairing[0].penta, want,
        "an honest fleet's counts"
    );
    assert!(fig_purged(&st, cheat.worker));
    assert_eq!(st.test.prefix_batches, st.test.batches);
    assert!(
        st.text()
            .contains(&format!("purged: worker {}", cheat.worker)),
        "{}",
        st.text()
    );
    assert_eq!(f.step(&cheat), Claim::Stopped);
}

#[test]
fn purge_auto_is_refused_for_an_spsa_test() {
    let Some(pg) = TempPg::start(10) else {
        return;
    };
    let spsa = karsinta_test_support::workspace().join("configs/spsa.yaml");
    let o = cli(
        &pg,
        &[
            "create",
            spsa.to_str().unwrap(),
            "--name",
            "s",
            "--purge",
            "auto",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains("--purge auto") && said.contains("only match tests"),
        "{said}"
    );
    let o = cli(
        &pg,
        &["create", spsa.to_str().unwrap(), "--purge", "sometimes"],
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// An honest worker whose every batch (3 pairs) holds LD, DD, DW: with
/// [`honest`]'s period of 4, two workers taking turns would see different
/// mixes, which the residuals rightly flag.
fn steady(n: u64) -> usize {
    [1, 2, 3][(n % 3) as usize]
}

/// A worker whose every other pair is a double win: half its results
/// made up.
fn half_cheat(n: u64) -> usize {
    if n.is_multiple_of(2) {
        4
    } else {
        steady(n)
    }
}

/// The SPRT's decision, its pairs and pentanomial where a test ended.
fn outcome(st: &status::MatchStatus) -> (Option<&'static str>, u64, Pentanomial) {
    (
        st.test.decision.map(|d| d.as_str()),
        st.tally.pairs,
        st.tally.per_pairing[0].penta,
    )
}

#[test]
fn a_test_with_purge_auto_whose_sprt_decides_purges_its_outlier_in_that_completion() {
    let Some(pg) = TempPg::start(10) else {
        return;
    };
    // The honest fleet: two honest workers alone, on a cluster of its own.
    let honest_pg = TempPg::start(10).expect("a second cluster where the first started");
    let mut h = Fixture::with_purge(&honest_pg, 600, true, true);
    let (ha, hb) = (h.sim("a", steady), h.sim("b", steady));
    h.drain(&[&ha, &hb]);
    let want = outcome(&h.status());
    assert_eq!(
        count(&mut honest_pg.client(), "SELECT count(*) FROM dist_purges"),
        0
    );

    // With the half cheat, its double wins pass H1 well before the last
    // batch; the completion whose SPRT decides purges it, so no moment
    // shows the test stopped by that decision.
    let mut f = Fixture::with_purge(&pg, 600, true, true);
    let (a, b) = (f.sim("a", steady), f.sim("b", steady));
    let cheat = f.sim("cheat", half_cheat);
    let mut c = pg.client();
    let mut purged_by = None;
    'play: for _ in 0..f.row.batches {
        for s in [&a, &b, &cheat] {
            let (_, done) = f.step_completed(s);
            let r = c
                .query_one(
                    "SELECT stopped, decision, stop_reason, prefix_batches,                      (SELECT count(*) FROM dist_purges) FROM dist_tests",
                    &[],
                )
                .unwrap();
            let (stopped, decision, reason): (bool, Option<String>, Option<String>) =
                (r.get(0), r.get(1), r.get(2));
            let (prefix, purges): (i32, i64) = (r.get(3), r.get(4));
            if purges == 0 {
                assert!(!stopped, "stopped without a purge: {reason:?}");
                continue;
            }
            // That completion counted the batch and undid the decision.
            assert_eq!(done, Some(Completed::Counted { decision: None }));
            assert_eq!((stopped, decision, reason), (false, None, None));
            assert!(
                prefix < f.row.batches,
                "the SPRT ended it, not the last batch"
            );
            purged_by = Some(prefix);
            break 'play;
        }
    }
    let prefix = purged_by.expect("the SPRT decided and the cheat was purged");
    let rows = c
        .query("SELECT worker_id, reason, batches FROM dist_purges", &[])
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].get::<_, i64>(0), cheat.worker);
    let reason: String = rows[0].get(1);
    let head = format!("{} (SPRT H1): residual", queue::purge::AUTO_REASON);
    assert!(reason.starts_with(&head), "{reason}");
    let moved = count(&mut c, "SELECT count(*) FROM dist_purged_pairs");
    assert_eq!(moved, 3 * i64::from(rows[0].get::<_, i32>(2)));
    let first: i32 = c
        .query_one("SELECT min(batch) FROM dist_purged_pairs", &[])
        .unwrap()
        .get(0);
    assert_eq!(prefix, first, "the prefix ends at the first purged batch");

    // The test runs again: the cheat plays no more, the honest workers
    // replay its batches, the test ends where the honest fleet's did and
    // its second end purges no one.
    assert_eq!(f.step(&cheat), Claim::Stopped);
    f.drain(&[&a, &b]);
    let st = f.status();
    assert_eq!(outcome(&st), want, "{}", st.text());
    assert!(fig_purged(&st, cheat.worker));
    assert_eq!(count(&mut c, "SELECT count(*) FROM dist_purges"), 1);
    assert!(
        st.text()
            .contains(&format!("purged: worker {}", cheat.worker)),
        "{}",
        st.text()
    );
}
