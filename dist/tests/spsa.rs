//! Distributed SPSA against a real PostgreSQL (see pg.rs): the
//! queue's rules with made-up results, then worker processes playing real
//! games at fixed nodes, whose final parameters must equal one
//! `karsinta tune spsa` run with the same config, seed and window.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use karsinta_dist::db::Db;
use karsinta_dist::kinds::spsa::{self, SpsaTest};
use karsinta_dist::kinds::TestKind;
use karsinta_dist::queue::{self, Claim, Completed, FinishedBatch, PairResult, TestRow};
use karsinta_harness::play::game::{GameResult, Termination};
use karsinta_harness::play::pairs::{play_pairs, Flow, PlayOptions};
use karsinta_harness::run::ledger::{GameEntry, PairEntry};
use karsinta_harness::tune::spsa::driver::{self, Counts};
use karsinta_harness::tune::spsa::output;
use karsinta_harness::tune::spsa::session::Session;

use crate::pg::TempPg;
use crate::support::{cli, thetas, wait, wait_until_leasing, worker};

/// A tuning config as `karsinta tune spsa` reads it: a detuned start,
/// short games (fixed nodes, early adjudication), `extra` appended. The
/// knight's value is perturbed by +-100 so the two sides play different
/// games: with search parameters alone, 300-node games are mostly the same
/// game twice and a whole run can tie, leaving theta where it started.
fn config(dir: &Path, iterations: u64, window: u64, lease: u32, extra: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = dir.join("tune.yaml");
    std::fs::write(
        &path,
        format!(
            "name: dspsa\nengines:\n  - name: k\n    type: inprocess\ntime_control: nodes=300\n\
             openings: {{ file: {}, order: random }}\nseed: 3\nconcurrency: 1\n\
             adjudication: {{ resign: {{ score_cp: 400, move_count: 2 }}, draw: {{ move_number: 20, score_cp: 20, move_count: 4 }}, max_moves: 60 }}\n\
             spsa:\n  iterations: {iterations}\n  pairs_per_iteration: 2\n  window: {window}\n  seed: 11\n  params:\n    null_move_r: {{ start: 4 }}\n    material_knight_mg: {{ start: 200, c_end: 100, r_end: 0.02 }}\n\
             dist:\n  lease_seconds: {lease}\n  bench_depth: 3\n{extra}",
            root.join("openings/karsinta-4ply.epd").display()
        ),
    )
    .unwrap();
    path
}

fn create(db: &mut Db, path: &Path, name: &str) -> Result<TestRow, String> {
    let text = std::fs::read_to_string(path).unwrap();
    let run = SpsaTest::load(&text, path, None, None).map_err(|e| e.to_string())?;
    run.create(db, name).map_err(|e| e.to_string())
}

/// A made-up pair: the plus side (engine 0) wins `wins` of its two games,
/// draws the rest.
fn fake_pair(pair: u64, wins: u32) -> PairResult {
    let game = |white, black, plus_wins: bool| GameEntry {
        white,
        black,
        result: match (plus_wins, white == 0) {
            (false, _) => GameResult::Draw,
            (true, true) => GameResult::WhiteWins,
            (true, false) => GameResult::BlackWins,
        },
        termination: Termination::Mate,
        plies: 40,
        warnings: [0, 0],
    };
    PairResult {
        entry: PairEntry {
            pair,
            pairing: 0,
            first: 0,
            second: 1,
            opening: None,
            games: vec![game(0, 1, wins >= 1), game(1, 0, wins >= 2)],
        },
        pgn: String::new(),
    }
}

#[test]
fn updates_apply_in_iteration_order_once_and_within_the_window() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = config(dir.path(), 4, 2, 1, "");
    let mut db = Db::open(&pg.url(), Duration::from_secs(5)).unwrap();
    let t = create(&mut db, &path, "s").unwrap();
    assert_eq!((t.kind.as_str(), t.batches, t.batch_pairs), ("spsa", 4, 2));
    assert_eq!(t.window_batches, 2);
    let kind = TestKind::of(&t, None).unwrap();
    let TestKind::Spsa(run) = &kind else {
        panic!("an SPSA test")
    };
    let w = db
        .run(|c| queue::register_worker(c, t.id, "h", "[]", 0))
        .unwrap();
    let claim = |db: &mut Db| db.run(|c| queue::claim(c, t.id, w)).unwrap();
    let complete = |db: &mut Db, idx: i32, token: i64, wins: u32| {
        let pairs: Vec<PairResult> = t.pairs_of(idx).map(|p| fake_pair(p, wins)).collect();
        let batch = FinishedBatch {
            idx,
            token,
            worker: w,
            seconds: 1.0,
            pairs: &pairs,
        };
        db.run(|c| queue::complete(c, &t, &kind, &batch)).unwrap()
    };
    let Claim::Batch { idx: 0, token: t0 } = claim(&mut db) else {
        panic!()
    };
    let Claim::Batch { idx: 1, token: t1 } = claim(&mut db) else {
        panic!()
    };
    // Iteration 3 needs update 1: beyond the window.
    assert_eq!(claim(&mut db), Claim::Wait);
    // Iteration 2 finishes first: recorded, not applied.
    let counted = Completed::Counted { decision: None };
    assert_eq!(complete(&mut db, 1, t1, 2), counted);
    assert_eq!(complete(&mut db, 1, t1, 2), Completed::Rejected);
    let mut c = pg.client();
    assert_eq!(thetas(&mut c).len(), 1);
    assert_eq!(complete(&mut db, 0, t0, 1), counted);
    // Both updates, in k order, each drawn around theta_0 (W = 2).
    let start = vec![4.0, 200.0];
    let p = &run.setup.params;
    let counts = |wins: u64| Counts {
        games: 4,
        wins: 2 * wins,
        draws: 4 - 2 * wins,
        ..Counts::default()
    };
    let (_, th1) = driver::apply(p, &run.schedule, 11, 1, &start, &start, &counts(1));
    let (_, th2) = driver::apply(p, &run.schedule, 11, 2, &start, &th1, &counts(2));
    assert_eq!(
        thetas(&mut c),
        vec![(0, start.clone()), (1, th1.clone()), (2, th2.clone())]
    );
    assert_ne!(th2, start, "the fake wins moved theta");
    // Iteration 3 is drawn around theta_1.
    let Claim::Batch { idx: 2, token: t2 } = claim(&mut db) else {
        panic!()
    };
    let jobs = run.jobs(&t, 2, &db.run(|c| spsa::theta(c, t.id, 1)).unwrap());
    let want = driver::sides(p, &run.schedule, &th1, 11, 3);
    assert_eq!(jobs.len(), 2);
    assert!(jobs.iter().all(|j| j.options.as_deref() == Some(&*want)));
    // Its lease expires; another worker's claim replaces the token.
    std::thread::sleep(Duration::from_millis(1300));
    let w2 = db
        .run(|c| queue::register_worker(c, t.id, "h2", "[]", 0))
        .unwrap();
    let Claim::Batch { idx: 2, .. } = db.run(|c| queue::claim(c, t.id, w2)).unwrap() else {
        panic!()
    };
    assert_eq!(complete(&mut db, 2, t2, 0), Completed::Rejected);
    assert_eq!(thetas(&mut c).len(), 3);
    let status = db
        .run(|c| karsinta_dist::status::status_text(c, "s"))
        .unwrap();
    assert!(status.contains("iteration 2 of 4 applied"), "{status}");
    assert!(status.contains("null_move_r"), "{status}");
}

#[test]
fn bad_spsa_tests_are_refused_naming_the_key() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open(&pg.url(), Duration::from_secs(5)).unwrap();
    let path = config(dir.path(), 4, 2, 5, "  batch_pairs: 4\n");
    let e = create(&mut db, &path, "a").unwrap_err();
    assert!(e.contains("dist.batch_pairs"), "{e}");
    let path = config(dir.path(), 4, 2, 0, "");
    let e = create(&mut db, &path, "a").unwrap_err();
    assert!(e.contains("dist.lease_seconds"), "{e}");
    let path = config(dir.path(), 4, 0, 5, "");
    let e = create(&mut db, &path, "a").unwrap_err();
    assert!(e.contains("spsa.window"), "{e}");
    // Through the command line: exit status 2, the key named, no test.
    let path = config(dir.path(), 0, 2, 5, "");
    let err = refused_create(&pg, &path);
    assert!(err.contains("spsa.iterations"), "{err}");
    let path = config(dir.path(), 4, 2, 5, "");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("null_move_r: { start: 4 }", "null_move_r: { start: x }");
    std::fs::write(&path, text).unwrap();
    let err = refused_create(&pg, &path);
    assert!(err.contains("spsa.params.null_move_r"), "{err}");
    let n: i64 = pg
        .client()
        .query_one("SELECT count(*) FROM dist_tests", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 0);
}

fn ok(o: std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Iteration 1 played here through the library (real games), completed,
/// then completed again: the duplicate must add nothing.
fn play_first_iteration_twice(pg: &TempPg, t: &TestRow) {
    let mut db = Db::open(&pg.url(), Duration::from_secs(30)).unwrap();
    let kind = TestKind::of(t, Some(1)).unwrap();
    let TestKind::Spsa(run) = &kind else {
        panic!("an SPSA test")
    };
    let w = db
        .run(|c| queue::register_worker(c, t.id, "test", "[]", 0))
        .unwrap();
    let Claim::Batch { idx: 0, token } = db.run(|c| queue::claim(c, t.id, w)).unwrap() else {
        panic!("iteration 1 is claimed first")
    };
    let theta = db.run(|c| spsa::theta(c, t.id, 0)).unwrap();
    let mut pairs = Vec::new();
    play_pairs(
        &run.cfg.engines,
        &run.cfg.settings,
        run.jobs(t, 0, &theta).into_iter(),
        &PlayOptions::default(),
        |fp| {
            pairs.push(PairResult {
                entry: fp.entry(0, Some(fp.job.opening.id)),
                pgn: String::new(),
            });
            Ok::<_, ()>(Flow::Continue)
        },
    )
    .unwrap();
    pairs.sort_by_key(|p| p.entry.pair);
    let done = |db: &mut Db| {
        let batch = FinishedBatch {
            idx: 0,
            token,
            worker: w,
            seconds: 1.0,
            pairs: &pairs,
        };
        db.run(|c| queue::complete(c, t, &kind, &batch)).unwrap()
    };
    assert_eq!(done(&mut db), Completed::Counted { decision: None });
    let after_first = thetas(&mut pg.client());
    assert_eq!(done(&mut db), Completed::Rejected);
    assert_eq!(thetas(&mut pg.client()), after_first);
    assert_eq!(after_first.len(), 2);
}

#[test]
#[ignore = "slow: real games with several worker processes"]
fn workers_killed_duplicated_and_cut_off_end_with_the_single_machine_parameters() {
    // Before anything else, so that a machine without PostgreSQL skips
    // at once.
    let Some(pg) = TempPg::start(50) else {
        return;
    };
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let path = config(dir.path(), 12, 3, 2, "");
    // One machine, as `karsinta tune spsa -j 2` runs it.
    let single = dir.path().join("single");
    let mut s = Session::create(&path, &single, None, Some(2)).unwrap();
    s.run(vec![], |_, _| {}).unwrap();
    assert_eq!(s.state.applied, 12);
    assert_ne!(s.state.theta, vec![4.0, 200.0], "the run moved");
    let single_secs = started.elapsed().as_secs_f64();

    let out = ok(cli(&pg, &["create", path.to_str().unwrap(), "--name", "d"])
        .output()
        .unwrap());
    assert!(out.contains("12 iterations of 2 pairs, window 3"), "{out}");
    let mut c = pg.client();
    let t = queue::test_by_name(&mut c, "d").unwrap();
    play_first_iteration_twice(&pg, &t);

    // A worker SIGKILLed while it holds an iteration's lease.
    let mut victim = worker(&pg, "d");
    wait_until_leasing(&mut c, &victim);
    victim.kill().unwrap();
    victim.wait().unwrap();

    let dist_started = Instant::now();
    let ws: Vec<Child> = (0..3).map(|_| worker(&pg, "d")).collect();
    // The database goes away for a while mid-run (the victim's iteration
    // holds the prefix back until its 2 s lease expires).
    std::thread::sleep(Duration::from_millis(700));
    let prefix: i32 = c
        .query_one("SELECT prefix_batches FROM dist_tests", &[])
        .unwrap()
        .get(0);
    assert!(prefix < 12, "finished before the outage");
    drop(c);
    pg.stop_server();
    std::thread::sleep(Duration::from_secs(2));
    pg.start_server();
    for w in ws {
        ok(wait(w, Duration::from_secs(300)));
    }
    let dist_secs = dist_started.elapsed().as_secs_f64();
    let mut c = pg.client();
    let row = c
        .query_one(
            "SELECT count(*) FILTER (WHERE state = 'done'), (SELECT count(*) FROM dist_pairs), \
             (SELECT count(*) FROM dist_spsa_history), (SELECT max(k) FROM dist_spsa_history), \
             (SELECT prefix_batches FROM dist_tests) FROM dist_batches",
            &[],
        )
        .unwrap();
    let got: (i64, i64, i64, i32, i32) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    assert_eq!(got, (12, 24, 13, 12, 12));
    // The victim's iteration was leased again and counted once.
    let reclaimed: i64 = c
        .query_one("SELECT count(*) FROM dist_batches WHERE claims > 1", &[])
        .unwrap()
        .get(0);
    assert!(reclaimed >= 1);
    let players: i64 = c
        .query_one(
            "SELECT count(DISTINCT worker_id) FROM dist_batches WHERE idx > 0",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(players >= 2, "the iterations were shared");
    let last = thetas(&mut c).pop().unwrap().1;
    assert_eq!(last, s.state.theta, "theta_12 bit for bit");

    let exported = dir.path().join("exported");
    ok(
        cli(&pg, &["export", "d", "--out", exported.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    for f in [
        output::CSV_FILE,
        output::OPENBENCH_FILE,
        output::PARAMS_FILE,
        output::SVG_FILE,
    ] {
        assert_eq!(
            std::fs::read_to_string(exported.join(f)).unwrap(),
            std::fs::read_to_string(single.join(f)).unwrap(),
            "{f}"
        );
    }
    let html = std::fs::read_to_string(exported.join("report.html")).unwrap();
    assert!(html.contains("material_knight_mg"), "report.html");
    let state = output::load_state(&exported).unwrap();
    assert_eq!(
        (state.applied, &state.theta, &state.exact, state.counts),
        (12, &s.state.theta, &s.state.exact, s.state.counts)
    );
    // The export is a run folder `karsinta tune spsa --resume` continues
    // as it continues the single-machine one.
    let more = |dir: &Path| {
        let mut r = Session::resume(dir, Some(13), Some(1)).unwrap();
        r.run(vec![], |_, _| {}).unwrap();
        r.state.theta
    };
    assert_eq!(more(&exported), more(&single));
    let status = ok(cli(&pg, &["status", "d"]).output().unwrap());
    assert!(status.contains("iteration 12 of 12 applied"), "{status}");
    eprintln!("{status}");
    eprintln!(
        "single machine (-j 2): {single_secs:.1} s; distributed (3 workers, 2 s outage): \
         {dist_secs:.1} s; test total {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// `karsinta-dist create PATH`, which must refuse the config with exit
/// status 2; its stderr.
fn refused_create(pg: &TempPg, path: &Path) -> String {
    let o = cli(pg, &["create", path.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    err
}
