//! Shared pieces of the dist tests: a match config, the `karsinta-dist`
//! command line against a test cluster, worker processes and waiting on
//! them.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use karsinta_harness::config::{MatchConfig, Overrides};
use karsinta_harness::run::ledger::{Ledger, PairEntry};
use karsinta_harness::run::{run_match, RunOptions};

use crate::pg::TempPg;

/// A match config for the tests: two in-process engines at fixed nodes.
pub fn write_config(
    dir: &Path,
    name: &str,
    games: u64,
    sprt: bool,
    batch_pairs: u32,
    lease: u32,
) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let openings = root.join("openings/karsinta-8ply.epd");
    let params = root.join("configs/params/simple.yaml");
    let sprt = if sprt {
        "sprt: { elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05 }\n"
    } else {
        ""
    };
    let text = format!(
        "name: {name}\nengines:\n  - name: default\n    type: inprocess\n  - name: simple\n    type: inprocess\n    params_file: {}\n\
         time_control: nodes=400\nopenings:\n  file: {}\n  order: random\nseed: 7\ngames: {games}\nconcurrency: 1\n{sprt}\
         adjudication:\n  max_moves: 80\ndist:\n  batch_pairs: {batch_pairs}\n  lease_seconds: {lease}\n  bench_depth: 3\n",
        params.display(),
        openings.display()
    );
    let p = dir.join(format!("{name}.yaml"));
    std::fs::write(&p, text).unwrap();
    p
}

/// The `karsinta-dist` binary of this build.
pub const BIN: &str = env!("CARGO_BIN_EXE_karsinta-dist");

/// `karsinta-dist ARGS` against the test's server.
pub fn cli(pg: &TempPg, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("KARSINTA_DATABASE_URL", pg.url())
        .stdin(Stdio::null());
    c
}

/// A fleet worker with one game at a time, stderr captured.
pub fn worker(pg: &TempPg, test: &str) -> Child {
    cli(
        pg,
        &["worker", "--test", test, "--fleet", "--concurrency", "1"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap()
}

/// A fleet worker with one game at a time and an assumed speed (no bench
/// at start; fixed nodes are never scaled), `extra` flags after those;
/// stdout discarded, stderr left to the caller.
pub fn assumed_worker(pg: &TempPg, extra: &[&str]) -> Command {
    let mut args = vec![
        "worker",
        "--fleet",
        "--concurrency",
        "1",
        "--assume-nps",
        "1000000",
    ];
    args.extend(extra);
    let mut c = cli(pg, &args);
    c.stdout(Stdio::null());
    c
}

/// The worker's output once it exits; a worker still running after `limit` fails the test.
pub fn wait(mut child: Child, limit: Duration) -> std::process::Output {
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

/// Returns once `worker` holds a lease (its pid is the worker row's), so a
/// test can kill it mid-batch; fails after two minutes without one.
pub fn wait_until_leasing(c: &mut postgres::Client, worker: &Child) {
    let start = Instant::now();
    loop {
        let held: i64 = c
            .query_one(
                "SELECT count(*) FROM dist_batches b JOIN dist_workers w ON w.id = b.worker_id \
                 WHERE b.state = 'leased' AND w.pid = $1",
                &[&(worker.id() as i32)],
            )
            .unwrap()
            .get(0);
        if held > 0 {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the worker never claimed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A made-up pair of two drawn games (number `pair`), for tests that
/// complete batches without playing them.
pub fn drawn_pair(pair: u64) -> karsinta_dist::queue::PairResult {
    let g = |white, black| karsinta_harness::run::ledger::GameEntry {
        white,
        black,
        result: karsinta_harness::play::game::GameResult::Draw,
        termination: karsinta_harness::play::game::Termination::Repetition,
        plies: 30,
        warnings: [0, 0],
    };
    karsinta_dist::queue::PairResult {
        entry: karsinta_harness::run::ledger::PairEntry {
            pair,
            pairing: 0,
            first: 0,
            second: 1,
            opening: None,
            games: vec![g(0, 1), g(1, 0)],
        },
        pgn: String::new(),
    }
}

/// An SPSA test's recorded thetas, `(k, theta_k)` in update order.
pub fn thetas(c: &mut postgres::Client) -> Vec<(i32, Vec<f64>)> {
    c.query("SELECT k, theta FROM dist_spsa_history ORDER BY k", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), serde_json::from_str(r.get(1)).unwrap()))
        .collect()
}

pub fn ledger(path: &std::path::Path) -> Vec<PairEntry> {
    let (_, mut entries) = Ledger::open(path).unwrap();
    entries.sort_by_key(|e| e.pair);
    entries
}

pub fn summary(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Single machine (one worker thread: pairs counted in pair order) and the
/// distributed run of the same config (`exported`), which must agree: the
/// same pairs with the same games, and summary.json's counts and SPRT.
pub fn compare(dir: &std::path::Path, cfg_path: &std::path::Path, exported: &std::path::Path) {
    let blocks = karsinta_dist::settings::accepted_sections();
    let cfg = MatchConfig::load_with(cfg_path, &Overrides::default(), &blocks).unwrap();
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
    same_summary(&single.join("summary.json"), &exported.join("summary.json"));
}

/// Two runs' summary.json agree on the match's outcome (status, counts,
/// pentanomial, SPRT); times and paths may differ.
pub fn same_summary(a: &std::path::Path, b: &std::path::Path) {
    let (a, b) = (summary(a), summary(b));
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
