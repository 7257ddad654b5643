//! Clocks scaled to each machine, with worker processes playing real
//! games against a real PostgreSQL (see pg.rs): two workers of different
//! (assumed) speeds record different scaled clocks for the same nominal
//! clock, and a noisy worker takes only the fixed-node test.

use std::time::Duration;

use crate::pg::TempPg;
use crate::support::{cli, wait, write_config, BIN};

/// A config of `pairs` one-pair batches at `tc`.
fn config(dir: &std::path::Path, name: &str, pairs: u64, tc: &str) -> String {
    let path = write_config(dir, name, 2 * pairs, false, 1, 30);
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("time_control: nodes=400", &format!("time_control: {tc}"))
        .replace("max_moves: 80", "max_moves: 30");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn ok(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{BIN}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn worker(pg: &TempPg, args: &[&str]) -> std::process::Output {
    let mut all = vec!["worker", "--fleet", "--concurrency", "1"];
    all.extend_from_slice(args);
    let child = cli(pg, &all)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait(child, Duration::from_secs(300))
}

#[test]
fn workers_of_different_speeds_play_different_scaled_clocks() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for name in ["fast", "slow"] {
        let cfg = config(dir.path(), name, 1, "0.5+0.01");
        ok(cli(&pg, &["create", &cfg, "--reference-nps", "1000000"])
            .output()
            .unwrap());
    }
    let fast = worker(&pg, &["--test", "fast", "--assume-nps", "2000000"]);
    assert!(
        fast.status.success(),
        "{}",
        String::from_utf8_lossy(&fast.stderr)
    );
    let slow = worker(&pg, &["--test", "slow", "--assume-nps", "500000"]);
    assert!(
        slow.status.success(),
        "{}",
        String::from_utf8_lossy(&slow.stderr)
    );
    let mut c = pg.client();
    let rows = c
        .query(
            "SELECT t.name, b.clock FROM dist_batches b JOIN dist_tests t ON t.id = b.test_id \
             ORDER BY t.name",
            &[],
        )
        .unwrap();
    let got: Vec<(String, Option<String>)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(
        got,
        vec![
            ("fast".to_string(), Some("0.25+0.005".to_string())),
            ("slow".to_string(), Some("1+0.02".to_string())),
        ]
    );
    let status = ok(cli(&pg, &["status", "slow"]).output().unwrap());
    assert!(
        status.contains("clock scaled to reference 1000000 nps"),
        "{status}"
    );
    assert!(status.contains("500000"), "{status}");
    assert!(status.contains(" 0.50  1+0.02"), "{status}");
}

#[test]
fn a_noisy_worker_takes_only_the_fixed_node_test() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let timed = config(dir.path(), "timed", 2, "0.5+0.01");
    let fixed = config(dir.path(), "fixed", 2, "nodes=400");
    // The clock test first in the queue: any other machine would take it.
    ok(cli(
        &pg,
        &[
            "create",
            &timed,
            "--priority",
            "1",
            "--reference-nps",
            "1000000",
        ],
    )
    .output()
    .unwrap());
    ok(cli(&pg, &["create", &fixed]).output().unwrap());
    let out = worker(&pg, &["--assume-nps", "1000000", "--assume-spread", "0.5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut c = pg.client();
    let done = |c: &mut postgres::Client, name: &str| -> i64 {
        c.query_one(
            "SELECT count(*) FROM dist_batches b JOIN dist_tests t ON t.id = b.test_id \
             WHERE t.name = $1 AND b.state = 'done'",
            &[&name],
        )
        .unwrap()
        .get(0)
    };
    assert_eq!(done(&mut c, "fixed"), 2);
    assert_eq!(done(&mut c, "timed"), 0);
    let clocks: i64 = c
        .query_one(
            "SELECT count(*) FROM dist_batches WHERE clock IS NOT NULL",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(
        clocks, 0,
        "node limits are not scaled or recorded as clocks"
    );
    let status = ok(cli(&pg, &["status", "fixed"]).output().unwrap());
    assert!(status.contains("NOISY"), "{status}");
}
