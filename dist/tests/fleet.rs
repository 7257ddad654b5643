//! Worker processes against a real PostgreSQL, playing real games at fixed
//! nodes: the outcome must equal one `karsinta match` with the same seed.
//! Slow: `cargo test --release -p karsinta-dist -- --ignored`.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{write_config, TempPg};
use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::ledger::{Ledger, PairEntry};
use karsinta_harness::tournament::{run_match, RunOptions};

const BIN: &str = env!("CARGO_BIN_EXE_karsinta-dist");

fn cli(pg: &TempPg, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("KARSINTA_DATABASE_URL", pg.url())
        .stdin(Stdio::null());
    c
}

fn worker(pg: &TempPg, test: &str) -> Child {
    cli(
        pg,
        &["worker", "--test", test, "--fleet", "--concurrency", "1"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap()
}

fn wait(mut child: Child, limit: Duration) -> std::process::Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("worker still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn ledger(path: &std::path::Path) -> Vec<PairEntry> {
    let (_, mut entries) = Ledger::open(path).unwrap();
    entries.sort_by_key(|e| e.pair);
    entries
}

fn summary(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Single machine (one worker thread: pairs counted in pair order) and the
/// distributed run of the same config, which must agree.
fn compare(dir: &std::path::Path, cfg_path: &std::path::Path, exported: &std::path::Path) {
    let cfg = MatchConfig::load(cfg_path, &Overrides::default()).unwrap();
    let single = dir.join("single");
    run_match(
        &cfg,
        &RunOptions {
            out_dir: single.clone(),
            quiet: true,
            pair_lines: Some(false),
            ..RunOptions::default()
        },
    )
    .unwrap();
    let (a, b) = (
        ledger(&single.join("ledger.jsonl")),
        ledger(&exported.join("ledger.jsonl")),
    );
    assert!(!a.is_empty());
    assert_eq!(a, b, "the same pairs with the same games");
    let (a, b) = (
        summary(&single.join("summary.json")),
        summary(&exported.join("summary.json")),
    );
    for key in [
        "status",
        "games",
        "pairs",
        "pentanomial",
        "wins",
        "draws",
        "losses",
        "sprt",
    ] {
        assert_eq!(a[key], b[key], "summary.json {key}");
    }
}

#[test]
#[ignore = "slow: real games with several worker processes"]
fn killed_worker_and_database_restart_lose_nothing_and_match_one_machine() {
    let pg = TempPg::start(50);
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
    let start = Instant::now();
    loop {
        let held: i64 = c
            .query_one(
                "SELECT count(*) FROM dist_batches b JOIN dist_workers w ON w.id = b.worker_id \
                 WHERE b.state = 'leased' AND w.pid = $1",
                &[&(victim.id() as i32)],
            )
            .unwrap()
            .get(0);
        if held > 0 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the worker never claimed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
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

#[test]
#[ignore = "slow: real games with several worker processes"]
fn the_sprt_decision_stops_every_worker_and_matches_one_machine() {
    let pg = TempPg::start(50);
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "sprt", 400, true, 2, 5);
    let out = cli(&pg, &["create", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ws: Vec<Child> = (0..3).map(|_| worker(&pg, "sprt")).collect();
    for w in ws {
        let o = wait(w, Duration::from_secs(600));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let mut c = pg.client();
    let row = c
        .query_one(
            "SELECT stopped, decision, prefix_batches, batches FROM dist_tests",
            &[],
        )
        .unwrap();
    assert!(row.get::<_, bool>(0));
    assert!(
        row.get::<_, Option<String>>(1).is_some(),
        "the SPRT decided"
    );
    assert!(
        row.get::<_, i32>(2) < row.get::<_, i32>(3),
        "stopped before the cap"
    );
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
    compare(dir.path(), &cfg, &exported);
}

#[test]
#[ignore = "slow: engines whose signature differs"]
fn a_worker_with_other_engines_refuses() {
    let pg = TempPg::start(20);
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
    let pg = TempPg::start(20);
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
