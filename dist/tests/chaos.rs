//! The chaos run: worker processes play one fixed-node match while
//! a seeded schedule, every 1 to 3 seconds, SIGKILLs a random worker (and
//! starts a new one in its place) or kills PostgreSQL (`pg_ctl stop -m
//! immediate`) and starts it again. Nothing may be lost or counted twice:
//! every batch done once, every pair stored once, and the export equal to
//! one machine's `karsinta match` of the same config and seed.
//!
//! Small by default (`KARSINTA_CHAOS_GAMES`, 160 games);
//! `KARSINTA_CHAOS_GAMES=1000` is the full run.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::pg::TempPg;
use crate::support::{assumed_worker, cli, compare, write_config};

/// Worker processes at any time (the machine's 2 cores, a little over).
const WORKERS: usize = 3;

/// A fleet worker on `test`; speed assumed (a restarted worker plays at
/// once instead of benching for seconds; fixed nodes are never scaled).
fn spawn_worker(pg: &TempPg, test: &str) -> Child {
    assumed_worker(pg, &["--test", test])
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Batches done, or `None` while the server is down.
fn batches_done(pg: &TempPg) -> Option<i64> {
    let mut c = postgres::Client::connect(&pg.url(), postgres::NoTls).ok()?;
    c.query_one(
        "SELECT count(*) FROM dist_batches WHERE state = 'done'",
        &[],
    )
    .ok()
    .map(|r| r.get(0))
}

/// What the schedule did.
#[derive(Default, Debug)]
struct Chaos {
    worker_kills: u32,
    database_restarts: u32,
}

/// Kill workers and the server on a seeded schedule (the pauses and which
/// worker) until `batches` are done; every worker that ended by itself
/// must have succeeded.
fn run_chaos(pg: &TempPg, test: &str, batches: i64, seed: u64, limit: Duration) -> Chaos {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut chaos = Chaos::default();
    let mut ws: Vec<Child> = (0..WORKERS).map(|_| spawn_worker(pg, test)).collect();
    let start = Instant::now();
    while batches_done(pg) != Some(batches) {
        assert!(
            start.elapsed() < limit,
            "not done after {limit:?}: {:?} batches of {batches}; {chaos:?}\n{}",
            batches_done(pg),
            pg.log_tail()
        );
        std::thread::sleep(Duration::from_millis(rng.gen_range(1000..3000)));
        // Two worker kills to one database restart, the database second
        // so that a short run has both.
        if (chaos.worker_kills + chaos.database_restarts) % 3 != 1 {
            let i = rng.gen_range(0..ws.len());
            let _ = ws[i].kill();
            let _ = ws[i].wait();
            ws[i] = spawn_worker(pg, test);
            chaos.worker_kills += 1;
        } else {
            pg.kill_server();
            std::thread::sleep(Duration::from_millis(rng.gen_range(200..1500)));
            pg.start_server();
            chaos.database_restarts += 1;
        }
        for w in &mut ws {
            if let Some(st) = w.try_wait().unwrap() {
                // Only a worker that saw the test finished ends by itself.
                assert!(st.success(), "a worker failed: {st}");
            }
        }
    }
    for w in ws {
        let st = crate::support::wait(w, Duration::from_secs(120)).status;
        assert!(st.success(), "a worker failed at the end: {st}");
    }
    chaos
}

#[test]
#[ignore = "slow: real games with worker processes, killed on a schedule"]
fn workers_and_the_database_killed_on_a_schedule_lose_nothing_and_match_one_machine() {
    let games: u64 = std::env::var("KARSINTA_CHAOS_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&g: &u64| g >= 2)
        .unwrap_or(160)
        .next_multiple_of(2);
    let Some(pg) = TempPg::start(100) else {
        return;
    };
    let began = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    // No SPRT: every batch is played and counted. Lease 3 s: a killed
    // worker's batch is back in the pool soon.
    let cfg = write_config(dir.path(), "chaos", games, false, 2, 3);
    // Longer games than the other tests' 400 nodes: more of the schedule
    // lands mid-batch.
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("nodes=400", "nodes=1500");
    std::fs::write(&cfg, text).unwrap();
    let out = cli(&pg, &["create", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pairs = games / 2;
    let batches = pairs.div_ceil(2) as i64;
    // About a second per game on a loaded machine, however it is killed.
    let limit = Duration::from_secs(120 + games * 3);
    let chaos = run_chaos(&pg, "chaos", batches, 0xC4A05, limit);
    let fleet_time = began.elapsed();
    assert!(
        chaos.worker_kills > 0 && chaos.database_restarts > 0,
        "{chaos:?}"
    );

    let mut c = pg.client();
    let row = c
        .query_one(
            "SELECT count(*) FILTER (WHERE state = 'done'), count(*), sum(claims)::bigint, \
             (SELECT count(*) FROM dist_pairs), (SELECT count(DISTINCT pair) FROM dist_pairs) \
             FROM dist_batches",
            &[],
        )
        .unwrap();
    let (done, all, claims, stored, distinct): (i64, i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    assert_eq!((done, all), (batches, batches));
    assert_eq!((stored, distinct), (pairs as i64, pairs as i64));
    let exported = dir.path().join("exported");
    let out = cli(
        &pg,
        &["export", "chaos", "--out", exported.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    compare(dir.path(), &cfg, &exported);
    eprintln!(
        "chaos: {games} games in {batches} batches, {} worker kills, {} database restarts, \
         {claims} claims; fleet {:.0} s, total with the one-machine run {:.0} s; the export \
         equals one machine's",
        chaos.worker_kills,
        chaos.database_restarts,
        fleet_time.as_secs_f64(),
        began.elapsed().as_secs_f64()
    );
}
