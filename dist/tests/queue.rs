//! The queue's transactions against a real PostgreSQL (see pg.rs):
//! schema, claims, leases, complete-once, the window, the stop flag and
//! the SPRT on the completed prefix.

use std::time::Duration;

use karsinta_dist::db::{self, Db, DbError};
use karsinta_dist::kinds::{MatchTest, TestKind};
use karsinta_dist::queue::{self, Beat, Claim, Completed, FinishedBatch, PairResult, TestRow};
use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::play::game::{GameResult, Termination};
use karsinta_harness::run::ledger::{GameEntry, PairEntry};
use karsinta_harness::run::tally::Tally;

use crate::pg::TempPg;
use crate::support::write_config;

/// A made-up finished pair: `score` half points (0..=4) for the first engine.
fn fake_pair(pair: u64, score: u32) -> PairResult {
    let r = |half: u32, first_white: bool| match (half, first_white) {
        (2, true) | (0, false) => GameResult::WhiteWins,
        (1, _) => GameResult::Draw,
        _ => GameResult::BlackWins,
    };
    let (g1, g2) = match score {
        0 => (0, 0),
        1 => (1, 0),
        2 => (1, 1),
        3 => (2, 1),
        _ => (2, 2),
    };
    let game = |white, black, result| GameEntry {
        white,
        black,
        result,
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
            opening: Some(pair as usize),
            games: vec![game(0, 1, r(g1, true)), game(1, 0, r(g2, false))],
        },
        pgn: format!("[Round \"{}.1\"]\n\n*\n", pair + 1),
    }
}

fn setup(
    pg: &TempPg,
    games: u64,
    sprt: bool,
    batch: u32,
    lease: u32,
    extra: &str,
) -> (Db, TestRow, TestKind) {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "t", games, sprt, batch, lease);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(extra);
    std::fs::write(&path, text).unwrap();
    let blocks = karsinta_dist::settings::accepted_sections();
    let cfg = MatchConfig::load_with(&path, &Overrides::default(), &blocks).unwrap();
    let mut db = Db::open(&pg.url(), Duration::from_secs(5)).unwrap();
    let t = MatchTest::new(&cfg).unwrap().create(&mut db, "t").unwrap();
    let kind = TestKind::of(&t, None).unwrap();
    (db, t, kind)
}

fn worker(db: &mut Db, t: &TestRow) -> i64 {
    db.run(|c| queue::register_worker(c, t.id, "host", "[]", 0))
        .unwrap()
}

fn complete(
    db: &mut Db,
    t: &TestRow,
    kind: &TestKind,
    idx: i32,
    token: i64,
    w: i64,
    scores: &[u32],
) -> Completed {
    let pairs: Vec<PairResult> = t
        .pairs_of(idx)
        .zip(scores)
        .map(|(p, s)| fake_pair(p, *s))
        .collect();
    let batch = FinishedBatch {
        idx,
        token,
        worker: w,
        seconds: 1.0,
        pairs: &pairs,
    };
    db.run(|c| queue::complete(c, t, kind, &batch)).unwrap()
}

fn claim(db: &mut Db, t: &TestRow, w: i64) -> Claim {
    db.run(|c| queue::claim(c, t.id, w)).unwrap()
}

#[test]
fn schema_is_created_once_and_newer_schemas_are_refused() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let mut c = pg.client();
    assert_eq!(db::migrate(&mut c).unwrap(), 0);
    assert_eq!(db::migrate(&mut c).unwrap(), db::SCHEMA_VERSION);
    let v: i32 = c
        .query_one("SELECT version FROM dist_schema_version", &[])
        .unwrap()
        .get(0);
    assert_eq!(v, db::SCHEMA_VERSION);
    c.execute("UPDATE dist_schema_version SET version = 99", &[])
        .unwrap();
    assert!(matches!(
        db::migrate(&mut c),
        Err(DbError::NewerSchema { found: 99, .. })
    ));
}

#[test]
fn a_batch_is_counted_once_and_only_under_its_lease() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let (mut db, t, kind) = setup(&pg, 12, false, 2, 1, "");
    assert_eq!((t.batches, t.total_pairs), (3, 6));
    let (a, b) = (worker(&mut db, &t), worker(&mut db, &t));
    let Claim::Batch { idx: 0, token: ta } = claim(&mut db, &t, a) else {
        panic!()
    };
    let Claim::Batch { idx: 1, token: tb } = claim(&mut db, &t, b) else {
        panic!()
    };
    // Wrong token: nothing counted.
    assert_eq!(
        complete(&mut db, &t, &kind, 0, tb, b, &[4, 4]),
        Completed::Rejected
    );
    assert_eq!(
        complete(&mut db, &t, &kind, 0, ta, a, &[4, 2]),
        Completed::Counted { decision: None }
    );
    // The same completion again (a retry after a lost reply): nothing added.
    assert_eq!(
        complete(&mut db, &t, &kind, 0, ta, a, &[4, 2]),
        Completed::Rejected
    );
    // b's lease expires; a claims batch 1 anew, b's heartbeat and completion fail.
    std::thread::sleep(Duration::from_millis(1300));
    let Claim::Batch { idx: 1, token: ta1 } = claim(&mut db, &t, a) else {
        panic!()
    };
    assert_eq!(
        db.run(|c| queue::heartbeat(c, t.id, 1, tb)).unwrap(),
        Beat::Lost
    );
    assert_eq!(
        complete(&mut db, &t, &kind, 1, tb, b, &[0, 0]),
        Completed::Rejected
    );
    assert_eq!(
        db.run(|c| queue::heartbeat(c, t.id, 1, ta1)).unwrap(),
        Beat::Held
    );
    assert_eq!(
        complete(&mut db, &t, &kind, 1, ta1, a, &[3, 1]),
        Completed::Counted { decision: None }
    );
    let Claim::Batch { idx: 2, token: t2 } = claim(&mut db, &t, b) else {
        panic!()
    };
    assert_eq!(claim(&mut db, &t, a), Claim::Wait);
    complete(&mut db, &t, &kind, 2, t2, b, &[2, 2]);
    assert_eq!(claim(&mut db, &t, a), Claim::Finished);
    let mut c = pg.client();
    let rows = c
        .query("SELECT pair, worker_id FROM dist_pairs ORDER BY pair", &[])
        .unwrap();
    let got: Vec<(i64, i64)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(got, vec![(0, a), (1, a), (2, a), (3, a), (4, b), (5, b)]);
    let t = db.run(|c| queue::test_by_name(c, "t")).unwrap();
    assert_eq!((t.prefix_batches, t.counted_pairs()), (3, 6));
}

#[test]
fn claims_stay_within_the_window_and_stop_reaches_claims_and_heartbeats() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let (mut db, t, kind) = setup(&pg, 40, false, 1, 60, "");
    let mut c = pg.client();
    c.execute("UPDATE dist_tests SET window_batches = 3", &[])
        .unwrap();
    let w = worker(&mut db, &t);
    let mut tokens = Vec::new();
    for want in 0..3 {
        let Claim::Batch { idx, token } = claim(&mut db, &t, w) else {
            panic!()
        };
        assert_eq!(idx, want);
        tokens.push(token);
    }
    // Batch 3 is beyond the window until batch 0 is done.
    assert_eq!(claim(&mut db, &t, w), Claim::Wait);
    complete(&mut db, &t, &kind, 1, tokens[1], w, &[2]);
    assert_eq!(claim(&mut db, &t, w), Claim::Wait);
    complete(&mut db, &t, &kind, 0, tokens[0], w, &[2]);
    let Claim::Batch { idx: 3, .. } = claim(&mut db, &t, w) else {
        panic!()
    };
    let Claim::Batch { idx: 4, .. } = claim(&mut db, &t, w) else {
        panic!()
    };
    assert_eq!(claim(&mut db, &t, w), Claim::Wait);
    assert!(db.run(|c| queue::stop(c, "t", "test")).unwrap());
    assert_eq!(claim(&mut db, &t, w), Claim::Stopped);
    assert_eq!(
        db.run(|c| queue::heartbeat(c, t.id, 2, tokens[2])).unwrap(),
        Beat::Stopped
    );
}

#[test]
fn the_sprt_runs_on_the_completed_prefix_in_pair_order() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let (mut db, t, kind) = setup(&pg, 400, true, 4, 60, "");
    let w = worker(&mut db, &t);
    // A strong first engine: mostly wins, some draws.
    let score = |p: u64| [4, 3, 2, 4, 2, 1, 3, 4][(p % 8) as usize];
    let mut leases = Vec::new();
    for _ in 0..40 {
        let Claim::Batch { idx, token } = claim(&mut db, &t, w) else {
            panic!()
        };
        leases.push((idx, token));
    }
    // Completed in reverse: nothing is counted before batch 0 is in.
    let mut decision = None;
    for &(idx, token) in leases.iter().rev() {
        let scores: Vec<u32> = t.pairs_of(idx).map(score).collect();
        let before = db.run(|c| queue::test_by_name(c, "t")).unwrap();
        let got = complete(&mut db, &t, &kind, idx, token, w, &scores);
        if idx > 0 {
            assert_eq!(got, Completed::Counted { decision: None });
            assert_eq!(before.prefix_batches, 0);
        } else if let Completed::Counted { decision: d } = got {
            decision = d;
        }
    }
    let after = db.run(|c| queue::test_by_name(c, "t")).unwrap();
    assert_eq!(after.prefix_batches, 40);
    // Offline: the tally fed pairs 0, 1, 2, ... as one worker would.
    let cfg = kind.config().expect("a match");
    let pairings = karsinta_harness::run::pairings(cfg.tournament, 2);
    let mut tally = Tally::new(pairings, cfg.sprt);
    for p in 0..160 {
        if tally.add(&fake_pair(p, score(p)).entry).is_some() {
            break;
        }
    }
    assert!(
        tally.decision().is_some(),
        "the fake results decide within 160 pairs"
    );
    assert_eq!(decision, tally.decision());
    assert_eq!(after.sprt_pairs as u64, tally.pairs);
    assert!(after.stopped);
    assert_eq!(claim(&mut db, &t, w), Claim::Stopped);
    // Status counts what the SPRT counted.
    let r = db
        .run(|c| karsinta_dist::status::match_status(c, "t"))
        .unwrap();
    assert_eq!(r.tally.pairs, tally.pairs);
    assert_eq!(r.tally.per_pairing[0].penta, tally.per_pairing[0].penta);
}

#[test]
fn an_unreachable_database_is_retried_then_reported() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let mut db = Db::open(&pg.url(), Duration::from_secs(1)).unwrap();
    pg.stop_server();
    let started = std::time::Instant::now();
    let r = db.run(|c| Ok(c.query_one("SELECT 1", &[])?.get::<_, i32>(0)));
    assert!(matches!(r, Err(DbError::Unreachable { .. })), "{r:?}");
    assert!(started.elapsed() >= Duration::from_secs(1));
    pg.start_server();
    db.patience = Duration::from_secs(30);
    let v = db
        .run(|c| Ok(c.query_one("SELECT 1", &[])?.get::<_, i32>(0)))
        .unwrap();
    assert_eq!(v, 1);
}
