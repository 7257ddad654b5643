//! Datagen tests on the fleet against a real PostgreSQL: worker processes
//! play a small fixed-node `karsinta datagen` config batch by batch, and
//! the export must be, byte for byte, the run folder one machine writes
//! for the same config, also after a worker is killed mid-batch.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use karsinta_harness::datagen::{self, DatagenConfig};
use karsinta_harness::formats::records::RecordFormat;

use crate::pg::TempPg;
use crate::support::{assumed_worker, cli, wait, wait_until_leasing};

/// A small datagen config at fixed nodes. One random ply from the start
/// position and every ply kept make games meet the same positions, so the
/// run-wide duplicate filter has work across batches.
fn write_config(dir: &Path, name: &str, games: u64, batch_games: u32) -> PathBuf {
    write_config_in(dir, name, games, batch_games, "text")
}

/// [`write_config`] writing `format`.
fn write_config_in(dir: &Path, name: &str, games: u64, batch_games: u32, format: &str) -> PathBuf {
    let text = format!(
        "games: {games}\nformat: {format}\nseed: 3\nthreads: 1\nhash_mb: 1\n\
         limit: {{ soft_nodes: 200, nodes: 2000 }}\n\
         start: {{ random_plies: 1, check_nodes: 100, max_score_cp: 400 }}\n\
         filter: {{ min_ply: 0 }}\n\
         adjudication: {{ max_plies: 40 }}\n\
         dist: {{ batch_games: {batch_games}, lease_seconds: 3, bench_depth: 3 }}\n"
    );
    let p = dir.join(format!("{name}.yaml"));
    std::fs::write(&p, text).unwrap();
    p
}

/// `karsinta datagen CONFIG` on one machine, through the library the
/// command is a thin layer over: its run folder.
fn one_machine(dir: &Path, cfg_path: &Path) -> PathBuf {
    let cfg = DatagenConfig::load(cfg_path).unwrap();
    let out = dir.join(format!("single-{}", cfg.format.extension()));
    datagen::create_run(&cfg, &out).unwrap();
    datagen::run(&cfg, &out, &mut |_| {}).unwrap();
    out
}

/// A fleet worker on `test` with one game at a time and an assumed speed
/// (no bench at start), stderr captured.
fn dg_worker(pg: &TempPg, test: &str) -> Child {
    assumed_worker(pg, &["--test", test])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The exported folder holds the one machine's files, byte for byte, and
/// the same counts; returns the one machine's report.
fn same_run(single: &Path, exported: &Path) -> serde_json::Value {
    let cfg = DatagenConfig::load(&single.join("config.yaml")).unwrap();
    let data = datagen::run::data_file_name(cfg.format);
    // viriformat keeps whole games and applies no duplicate filter: no keys.
    let keys = cfg.format != RecordFormat::Viriformat;
    let files = ["config.yaml", &data, "ledger.jsonl"]
        .into_iter()
        .chain(keys.then_some("keys.bin"));
    for f in files {
        let (a, b) = (
            std::fs::read(single.join(f)).unwrap(),
            std::fs::read(exported.join(f)).unwrap(),
        );
        assert!(!a.is_empty(), "{f} is empty");
        assert!(a == b, "{f} differs from one machine's");
    }
    let report = |d: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("report.json")).unwrap()).unwrap()
    };
    let (a, b) = (report(single), report(exported));
    assert_eq!(a["counts"], b["counts"]);
    assert_eq!(a["data_bytes"], b["data_bytes"]);
    a
}

/// Wait for `workers` to play test `name` to the end.
fn play_out(pg: &TempPg, name: &str, workers: Vec<Child>) {
    for w in workers {
        let o = wait(w, Duration::from_secs(300));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let status = ok(&cli(pg, &["status", name]).output().unwrap());
    assert!(status.contains("(datagen, finished)"), "{status}");
}

#[test]
fn two_workers_export_one_machines_files() {
    let Some(pg) = TempPg::start(30) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "dg", 12, 2);
    let created = ok(&cli(&pg, &["create", "--config", cfg.to_str().unwrap()])
        .output()
        .unwrap());
    assert!(
        created.contains("created datagen test dg: 12 games in 6 batches of 2"),
        "{created}"
    );
    play_out(&pg, "dg", vec![dg_worker(&pg, "dg"), dg_worker(&pg, "dg")]);
    let exported = dir.path().join("exported");
    let line = ok(
        &cli(&pg, &["export", "dg", "--out", exported.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    assert!(line.contains("datagen, 12 games"), "{line}");
    let single = one_machine(dir.path(), &cfg);
    let report = same_run(&single, &exported);
    // Games met earlier games' positions: the filter worked across batches.
    let dups = report["counts"]["duplicates"].as_u64().unwrap();
    assert!(dups > 0, "{report}");
    let status = ok(&cli(&pg, &["status", "dg"]).output().unwrap());
    assert!(status.contains(&format!("duplicate {dups}")), "{status}");
    assert!(status.contains("12 of 12 games counted"), "{status}");
    let mut c = pg.client();
    let stored: i64 = c
        .query_one("SELECT count(*) FROM dist_datagen_games", &[])
        .unwrap()
        .get(0);
    assert_eq!(stored, 12);
    // The live view's JSON: the list's line and the test's counts per filter.
    let list = karsinta_dist::web::api::tests(&mut c).unwrap();
    let line = &list["tests"][0];
    assert_eq!(line["kind"], "datagen");
    assert_eq!(line["status"], "finished");
    assert_eq!(line["written"], report["counts"]["written"]);
    let page = karsinta_dist::web::api::test(&mut c, "dg")
        .unwrap()
        .unwrap();
    let d = &page["datagen"];
    assert_eq!(d["positions"], report["counts"]["positions"]);
    let dropped: Vec<(String, u64)> = d["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["filter"].as_str().unwrap().into(),
                f["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(dropped.contains(&("duplicate".into(), dups)), "{dropped:?}");
    let tactical = report["counts"]["tactical"].as_u64().unwrap();
    assert!(dropped.contains(&("tactical best move".into(), tactical)));
    let games: u64 = d["workers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["games"].as_u64().unwrap())
        .sum();
    assert_eq!(games, 12, "every game under the worker that played it");
    // A second export of the same test is refused into a full folder.
    let again = cli(&pg, &["export", "dg", "--out", exported.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
}

/// The binary formats go through the fleet as the text one does: each
/// worker encodes its games' records in the run's format, and the export
/// is one machine's data file byte for byte (viriformat: whole games).
#[test]
fn binary_formats_export_one_machines_files() {
    let Some(pg) = TempPg::start(30) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for format in ["bullet", "marlinformat", "viriformat"] {
        let name = format!("dg-{format}");
        let cfg = write_config_in(dir.path(), &name, 6, 2, format);
        ok(&cli(&pg, &["create", "--config", cfg.to_str().unwrap()])
            .output()
            .unwrap());
        play_out(
            &pg,
            &name,
            vec![dg_worker(&pg, &name), dg_worker(&pg, &name)],
        );
        let exported = dir.path().join(format!("exported-{format}"));
        let line = ok(
            &cli(&pg, &["export", &name, "--out", exported.to_str().unwrap()])
                .output()
                .unwrap(),
        );
        assert!(line.contains("datagen, 6 games"), "{line}");
        let single = one_machine(dir.path(), &cfg);
        let report = same_run(&single, &exported);
        assert!(
            report["counts"]["written"].as_u64().unwrap() > 0,
            "{report}"
        );
    }
}

#[test]
fn a_worker_killed_mid_batch_loses_and_duplicates_nothing() {
    let Some(pg) = TempPg::start(30) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Batches of 4 games: long enough for the kill to land inside one.
    let cfg = write_config(dir.path(), "dgkill", 12, 4);
    ok(&cli(&pg, &["create", cfg.to_str().unwrap()])
        .output()
        .unwrap());
    let mut victim = dg_worker(&pg, "dgkill");
    let mut c = pg.client();
    wait_until_leasing(&mut c, &victim);
    victim.kill().unwrap(); // SIGKILL
    victim.wait().unwrap();
    let held: i64 = c
        .query_one(
            "SELECT count(*) FROM dist_batches WHERE state = 'leased'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(held >= 1, "the victim died holding its batch");
    play_out(
        &pg,
        "dgkill",
        vec![dg_worker(&pg, "dgkill"), dg_worker(&pg, "dgkill")],
    );
    let row = c
        .query_one(
            "SELECT (SELECT count(*) FROM dist_datagen_games), \
             (SELECT count(DISTINCT game) FROM dist_datagen_games), \
             (SELECT count(*) FILTER (WHERE state = 'done') FROM dist_batches)",
            &[],
        )
        .unwrap();
    let (games, distinct, done): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!((games, distinct, done), (12, 12, 3));
    let exported = dir.path().join("exported");
    ok(&cli(
        &pg,
        &["export", "dgkill", "--out", exported.to_str().unwrap()],
    )
    .output()
    .unwrap());
    let single = one_machine(dir.path(), &cfg);
    same_run(&single, &exported);
}

#[test]
fn a_datagen_config_is_checked_before_any_connection() {
    use karsinta_dist::kinds::TestKind;
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "dgbad", 4, 2);
    let text = std::fs::read_to_string(&cfg).unwrap();
    let kind = TestKind::load(&text, &cfg).unwrap();
    assert!(matches!(kind, TestKind::Datagen(_)));
    assert!(kind.config().is_none() && kind.fixed_limit());
    let refused = |text: &str| TestKind::load(text, &cfg).err().unwrap().to_string();
    let e = refused(&text.replace("batch_games", "batch_pairs"));
    assert!(
        e.contains("dgbad.yaml: dist.batch_pairs") && e.contains("dist.batch_games"),
        "{e}"
    );
    let e = refused(&text.replace("batch_games: 2", "batch_games: 0"));
    assert!(e.contains("dist.batch_games: must be at least 1"), "{e}");
    let e = refused(&text.replace("lease_seconds", "lease_secs"));
    assert!(
        e.contains("dgbad.yaml: dist: unknown field `lease_secs`"),
        "{e}"
    );
    let e = refused(&text.replace("games: 4", "games: 0"));
    assert!(e.contains("games") && e.contains("at least 1"), "{e}");
}
