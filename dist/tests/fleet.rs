//! Worker processes against a real PostgreSQL, playing real games at fixed
//! nodes: the outcome must equal one `karsinta match` with the same seed.
//! Slow: `cargo test --release -p karsinta-dist -- --ignored`.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use karsinta_dist::db::Db;
use karsinta_dist::kinds::TestKind;
use karsinta_dist::queue::{self, Completed, FinishedBatch, PairResult};
use karsinta_harness::config::TournamentKind;
use karsinta_harness::run::pairings;
use karsinta_harness::run::tally::{RunStatus, Tally};

use crate::pg::TempPg;
use crate::support::{cli, compare, summary, wait, wait_until_leasing, worker, write_config};

#[test]
#[ignore = "slow: real games with several worker processes"]
fn killed_worker_and_database_restart_lose_nothing_and_match_one_machine() {
    let Some(pg) = TempPg::start(50) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // No SPRT: every batch must be played, so each one's count is checked.
    let cfg = write_config(dir.path(), "e2e", 48, false, 2, 3);
    let out = cli(&pg, &["create", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A worker killed (SIGKILL) while it holds a lease.
    let mut victim = worker(&pg, "e2e");
    let mut c = pg.client();
    wait_until_leasing(&mut c, &victim);
    victim.kill().unwrap();
    victim.wait().unwrap();

    let (w1, w2) = (worker(&pg, "e2e"), worker(&pg, "e2e"));
    // The database goes away for a while mid-run.
    std::thread::sleep(Duration::from_millis(700));
    pg.stop_server();
    std::thread::sleep(Duration::from_secs(2));
    pg.start_server();
    for w in [w1, w2] {
        let o = wait(w, Duration::from_secs(600));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let mut c = pg.client();
    let row = c
        .query_one(
            "SELECT count(*) FILTER (WHERE state = 'done'), count(*), \
             (SELECT count(*) FROM dist_pairs), (SELECT count(DISTINCT worker_id) FROM dist_pairs) \
             FROM dist_batches",
            &[],
        )
        .unwrap();
    let (done, all, pairs): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!((done, all, pairs), (12, 12, 24));

    let exported = dir.path().join("exported");
    let out = cli(&pg, &["export", "e2e", "--out", exported.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    compare(dir.path(), &cfg, &exported);
    assert!(exported.join("report.html").is_file());
    let status = cli(&pg, &["status", "e2e"]).output().unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("12 of 12 batches done"), "{text}");
}

/// The "done when" for matches. Four worker processes play one
/// SPRT match (defaults against the weaker `simple` parameters, fixed
/// nodes); one is SIGKILLed while it holds a lease, one batch is completed a
/// second time through the queue API (its real token and pairs), and the
/// database server is stopped and started again midway. There is no
/// coordinator process to restart: the database is the coordinator (claims,
/// leases, the prefix SPRT and the stop flag are its transactions), so
/// restarting "the coordinator" means restarting PostgreSQL. The outcome
/// must be that of one `run_match` with the same seed, counted on the same
/// prefix of pairs, and the SPRT decision and LLR those computed offline
/// from the stored pairs.
#[test]
#[ignore = "slow: real games with several worker processes"]
fn four_workers_one_sprt_survive_kill_duplicate_and_restart_and_match_one_machine() {
    let began = Instant::now();
    let Some(pg) = TempPg::start(50) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Lease 3 s: the killed worker's batch is back in the pool soon.
    let cfg = write_config(dir.path(), "sprt", 400, true, 2, 3);
    let out = cli(&pg, &["create", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut ws: Vec<Child> = (0..4).map(|_| worker(&pg, "sprt")).collect();

    // Kill one worker (SIGKILL: no release, no goodbye) while it holds a
    // lease, once the others have completed something. (It may hold two:
    // the next batch is claimed while the last pair of one is played.)
    let mut c = pg.client();
    let victim_pid = ws[0].id() as i32;
    let start = Instant::now();
    let victim_id: i64 = loop {
        let row = c
            .query_opt(
                "SELECT w.id FROM dist_batches b JOIN dist_workers w ON w.id = b.worker_id \
                 WHERE b.state = 'leased' AND w.pid = $1 \
                   AND EXISTS (SELECT 1 FROM dist_batches WHERE state = 'done') LIMIT 1",
                &[&victim_pid],
            )
            .unwrap();
        if let Some(r) = row {
            break r.get(0);
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the worker never held a lease while others completed"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut victim = ws.remove(0);
    victim.kill().unwrap();
    victim.wait().unwrap();
    // What it held when it died (nothing changes it before the lease ends).
    let victim_batch: i32 = c
        .query_one(
            "SELECT min(idx) FROM dist_batches WHERE state = 'leased' AND worker_id = $1",
            &[&victim_id],
        )
        .unwrap()
        .get::<_, Option<i32>>(0)
        .expect("killed while holding a lease");
    // Its batch holds the prefix back until the lease expires and another
    // worker plays it again: no SPRT decision can have been made yet.
    let row = c
        .query_one("SELECT stopped, prefix_batches FROM dist_tests", &[])
        .unwrap();
    assert!(!row.get::<_, bool>(0), "decided before the kill");
    assert!(row.get::<_, i32>(1) <= victim_batch);

    // The database (the coordinator) goes away while three workers play.
    drop(c);
    pg.stop_server();
    std::thread::sleep(Duration::from_secs(2));
    pg.start_server();

    // A batch completed twice: the same pairs under the token that counted
    // them, through the queue API, while the workers go on. Refused, and
    // nothing is added.
    let mut db = Db::open(&pg.url(), Duration::from_secs(30)).unwrap();
    let test = db.run(|c| queue::test_by_name(c, "sprt")).unwrap();
    let kind = TestKind::of(&test, None).unwrap();
    let match_cfg = kind.config().expect("a match");
    let (idx, token, by): (i32, i64, i64) = {
        let mut c = pg.client();
        let r = c
            .query_one(
                "SELECT idx, lease_token, worker_id FROM dist_batches WHERE state = 'done' \
                 ORDER BY idx LIMIT 1",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1), r.get(2))
    };
    let pairs: Vec<PairResult> = db
        .run(|c| queue::stored_pairs(c, test.id, test.pairs_of(idx).end))
        .unwrap()
        .into_iter()
        .filter(|(e, _, _)| test.pairs_of(idx).contains(&e.pair))
        .map(|(entry, pgn, _)| PairResult { entry, pgn })
        .collect();
    assert_eq!(pairs.len(), test.batch_pairs as usize);
    let again = db
        .run(|c| {
            let batch = FinishedBatch {
                idx,
                token,
                worker: by,
                seconds: 1.0,
                pairs: &pairs,
            };
            queue::complete(c, &test, &kind, &batch)
        })
        .unwrap();
    assert_eq!(
        again,
        Completed::Rejected,
        "a second completion of batch {idx}"
    );

    // The SPRT decision stops every remaining worker before the cap.
    for w in ws {
        let o = wait(w, Duration::from_secs(600));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let test = db.run(|c| queue::test_by_name(c, "sprt")).unwrap();
    assert!(test.stopped);
    let decision = test.decision.expect("the SPRT decided");
    assert!(test.prefix_batches < test.batches, "stopped before the cap");
    let mut c = pg.client();
    let row = c
        .query_one(
            "SELECT state, claims, worker_id FROM dist_batches WHERE idx = $1",
            &[&victim_batch],
        )
        .unwrap();
    assert!(
        victim_batch < test.prefix_batches,
        "the killed worker's batch {victim_batch} is in the counted prefix"
    );
    assert_eq!(row.get::<_, &str>(0), "done");
    assert!(row.get::<_, i32>(1) >= 2, "played again after the kill");
    assert_ne!(row.get::<_, i64>(2), victim_id);
    let dup: i64 = c
        .query_one("SELECT count(*) FROM dist_pairs WHERE batch = $1", &[&idx])
        .unwrap()
        .get(0);
    assert_eq!(dup, test.batch_pairs, "the duplicate added no pairs");

    // Offline: the longest prefix of done batches, its pairs in pair order
    // through the harness's tally until the SPRT crosses a bound.
    let done: Vec<i32> = c
        .query(
            "SELECT idx FROM dist_batches WHERE state = 'done' ORDER BY idx",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let prefix = done
        .iter()
        .enumerate()
        .take_while(|(i, idx)| *i as i32 == **idx)
        .count() as i32;
    assert_eq!(prefix, test.prefix_batches);
    let stored = db
        .run(|c| queue::stored_pairs(c, test.id, prefix as u64 * test.batch_pairs as u64))
        .unwrap();
    let mut tally = Tally::new(pairings(TournamentKind::Match, 2), match_cfg.sprt);
    let mut offline = None;
    for (e, _, _) in &stored {
        offline = tally.add(e);
        if offline.is_some() {
            break;
        }
    }
    let offline = offline.expect("the offline SPRT decides on the prefix");
    assert_eq!(offline, decision);
    assert_eq!(tally.pairs, test.sprt_pairs as u64);
    let penta: [u64; 5] = serde_json::from_str(
        c.query_one("SELECT sprt_penta FROM dist_tests", &[])
            .unwrap()
            .get::<_, &str>(0),
    )
    .unwrap();
    assert_eq!(penta, tally.per_pairing[0].penta.0);

    let exported = dir.path().join("exported");
    let out = cli(
        &pg,
        &["export", "sprt", "--out", exported.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sprt = tally.sprt(RunStatus::Stopped).unwrap();
    let s = summary(&exported.join("summary.json"));
    assert_eq!(s["sprt"]["llr"].as_f64(), Some(sprt.llr), "LLR");
    assert_eq!(s["sprt"]["decision"].as_str(), Some(decision.as_str()));
    assert_eq!(s["sprt"]["pairs"].as_u64(), Some(sprt.pairs));
    assert_eq!(s["pentanomial"], serde_json::json!(penta));
    let wdl = tally.first_engine().wdl;
    assert_eq!(
        (
            s["wins"].as_u64(),
            s["draws"].as_u64(),
            s["losses"].as_u64()
        ),
        (Some(wdl.wins), Some(wdl.draws), Some(wdl.losses))
    );
    // And one machine, one worker thread, same seed: the same pairs, the
    // same games, the same counts and the same SPRT.
    compare(dir.path(), &cfg, &exported);
    eprintln!(
        "SPRT {} after {} pairs ({} of {} batches), LLR {:.3}, {:.1} s",
        decision.as_str(),
        test.sprt_pairs,
        test.prefix_batches,
        test.batches,
        sprt.llr,
        began.elapsed().as_secs_f64()
    );
}

#[test]
#[ignore = "slow: engines whose signature differs"]
fn a_worker_with_other_engines_refuses() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "sig", 8, false, 2, 5);
    assert!(cli(&pg, &["create", cfg.to_str().unwrap()])
        .status()
        .unwrap()
        .success());
    let mut c = pg.client();
    c.execute(
        "UPDATE dist_tests SET signatures = replace(signatures, 'bench ', 'bench 1')",
        &[],
    )
    .unwrap();
    let o = wait(worker(&pg, "sig"), Duration::from_secs(120));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("refusing to play"));
    let played: i64 = c
        .query_one("SELECT count(*) FROM dist_pairs", &[])
        .unwrap()
        .get(0);
    assert_eq!(played, 0);
}

#[test]
#[ignore = "slow: a worker asked for more games than the machine can run"]
fn a_worker_beyond_the_machine_refuses_before_claiming() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores * 8 >= 1000 {
        eprintln!("skipped: this machine could run 1000 games at once");
        return;
    }
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "many", 8, false, 2, 5);
    assert!(cli(&pg, &["create", cfg.to_str().unwrap()])
        .status()
        .unwrap()
        .success());
    let child = cli(
        &pg,
        &[
            "worker",
            "--test",
            "many",
            "--fleet",
            "--concurrency",
            "1000",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let o = wait(child, Duration::from_secs(120));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("at most {} games at once", cores * 8)),
        "{err}"
    );
    let mut c = pg.client();
    let played: i64 = c
        .query_one("SELECT count(*) FROM dist_pairs", &[])
        .unwrap()
        .get(0);
    assert_eq!(played, 0);
}
