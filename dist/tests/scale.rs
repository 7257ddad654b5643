//! Many workers against one PostgreSQL without real games: each thread is
//! a worker with its own connection that claims a batch and completes it at
//! once with made-up pairs. Checks that no batch is lost or counted twice
//! and prints claims per second (measured, not asserted).
//! `cargo test --release -p karsinta-dist -- --ignored --nocapture scale::`

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use karsinta_dist::db::Db;
use karsinta_dist::kinds::{MatchTest, TestKind};
use karsinta_dist::queue::{self, Claim, Completed, FinishedBatch};
use karsinta_harness::config::{MatchConfig, Overrides};

use crate::pg::TempPg;
use crate::support::{drawn_pair, write_config};

const WORKERS: usize = 200;

#[test]
#[ignore = "slow: 200 connections"]
fn two_hundred_workers_lose_and_double_count_nothing() {
    let Some(pg) = TempPg::start(WORKERS as u32 + 20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "sim", 2000, false, 1, 600);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("  window_batches: 100000\n");
    std::fs::write(&path, text).unwrap();
    let blocks = karsinta_dist::settings::accepted_sections();
    let cfg = MatchConfig::load_with(&path, &Overrides::default(), &blocks).unwrap();
    let mut db = Db::open(&pg.url(), Duration::from_secs(30)).unwrap();
    let test = MatchTest::new(&cfg)
        .unwrap()
        .create(&mut db, "sim")
        .unwrap();
    let test = Arc::new((TestKind::of(&test, None).unwrap(), test));
    assert_eq!(test.1.batches, 1000);

    let (claims, counted, rejected, trips) = (
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
    );
    let start = Instant::now();
    let threads: Vec<_> = (0..WORKERS)
        .map(|i| {
            let (url, test) = (pg.url(), test.clone());
            let (claims, counted, rejected, trips) = (
                claims.clone(),
                counted.clone(),
                rejected.clone(),
                trips.clone(),
            );
            std::thread::spawn(move || {
                let mut db = Db::open(&url, Duration::from_secs(60)).unwrap();
                let w = db
                    .run(|c| queue::register_worker(c, test.1.id, &format!("sim{i}"), "[]", 0))
                    .unwrap();
                let mut wait = Duration::ZERO;
                loop {
                    let (kind, test) = &*test;
                    match db.run(|c| queue::claim(c, test.id, w)).unwrap() {
                        Claim::Batch { idx, token } => {
                            wait = Duration::ZERO;
                            claims.fetch_add(1, Ordering::Relaxed);
                            let pairs: Vec<_> = test.pairs_of(idx).map(drawn_pair).collect();
                            let batch = FinishedBatch {
                                idx,
                                token,
                                worker: w,
                                seconds: 0.0,
                                pairs: &pairs,
                            };
                            let done = |db: &mut Db| {
                                db.run(|c| queue::complete(c, test, kind, &batch)).unwrap()
                            };
                            assert!(matches!(done(&mut db), Completed::Counted { .. }));
                            counted.fetch_add(1, Ordering::Relaxed);
                            // Every tenth batch is completed twice: the
                            // second must add nothing.
                            if idx % 10 == 0 {
                                assert_eq!(done(&mut db), Completed::Rejected);
                                rejected.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        // Back off as the real worker does: 200 threads
                        // polling every few milliseconds at the tail would
                        // starve the completions they wait for.
                        Claim::Wait => {
                            wait = (wait * 2)
                                .clamp(Duration::from_millis(25), Duration::from_millis(500));
                            std::thread::sleep(wait);
                        }
                        Claim::Finished | Claim::Stopped => break,
                    }
                }
                trips.fetch_add(db.round_trips, Ordering::Relaxed);
            })
        })
        .collect();
    for t in threads {
        if t.join().is_err() {
            panic!("a simulated worker failed; server log:\n{}", pg.log_tail());
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let mut c = pg.client();
    let row = c
        .query_one(
            "SELECT (SELECT count(*) FROM dist_batches WHERE state = 'done'), \
             (SELECT count(*) FROM dist_pairs), (SELECT count(DISTINCT pair) FROM dist_pairs), \
             (SELECT prefix_batches FROM dist_tests), (SELECT max(claims) FROM dist_batches)",
            &[],
        )
        .unwrap();
    let (done, pairs, distinct, prefix, max_claims): (i64, i64, i64, i32, i32) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    assert_eq!((done, pairs, distinct, prefix), (1000, 1000, 1000, 1000));
    assert_eq!(max_claims, 1, "no batch was handed out twice");
    assert_eq!(claims.load(Ordering::Relaxed), 1000);
    assert_eq!(counted.load(Ordering::Relaxed), 1000);
    println!(
        "{WORKERS} simulated workers: 1000 batches claimed and completed in {secs:.1} s = {:.0} \
         claims/s; {} duplicate completions rejected; {:.2} transactions per batch",
        1000.0 / secs,
        rejected.load(Ordering::Relaxed),
        trips.load(Ordering::Relaxed) as f64 / 1000.0
    );
}
