//! `karsinta datagen` with a UCI engine: karsinta-engine's own binary
//! gives the same records as the in-process engine at fixed nodes, the
//! files are the same for any thread count, an engine that cannot start is
//! a setup error, and an engine that plays an illegal move loses the game,
//! never a record.

use std::path::Path;

use karsinta_harness::datagen::{self, DatagenConfig, DatagenError};
use karsinta_harness::formats::fen::position_fen;
use karsinta_harness::formats::records::RecordFormat;
use karsinta_harness::formats::training::decode_records;

use crate::common::FAKE;

fn config(dir: &Path, engine: &str, threads: usize) -> DatagenConfig {
    let yaml = format!(
        "games: 3\nformat: bullet\nthreads: {threads}\nseed: 5\nhash_mb: 1\n{engine}\
         limit: {{ nodes: 1500 }}\n\
         start: {{ random_plies: 6, check_nodes: 300, max_score_cp: 300 }}\n\
         filter: {{ min_ply: 2 }}\nadjudication: {{ max_plies: 40 }}\n"
    );
    let path = dir.join("datagen.yaml");
    std::fs::write(&path, yaml).unwrap();
    DatagenConfig::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn generate(dir: &Path, name: &str, cfg: &DatagenConfig) -> (Vec<u8>, datagen::DatagenReport) {
    let out = dir.join(name);
    datagen::create_run(cfg, &out).unwrap();
    let report = datagen::run(cfg, &out, &mut |_| {}).unwrap();
    (std::fs::read(out.join("data.bin")).unwrap(), report)
}

#[test]
fn a_uci_engine_gives_the_in_process_engines_records() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let engine_bin = karsinta_test_support::bin("karsinta-engine");
    let uci = format!(
        "engine: {{ name: k, cmd: {}, options: {{ Hash: 1 }} }}\n",
        engine_bin.display()
    );
    let (over_uci, report) = generate(dir, "uci", &config(dir, &uci, 1));
    assert_eq!(report.counts.failed, 0);
    assert!(report.counts.written >= 20, "{:?}", report.counts);
    let (two, _) = generate(dir, "uci2", &config(dir, &uci, 2));
    assert!(over_uci == two, "different files for 1 and 2 threads");
    // The binary searches as the library does (hard nodes, a fresh table
    // per game) and its last `info` before `bestmove` carries the score of
    // a cut final iteration too: the same games, positions, results and
    // scores, so the same bytes.
    let (in_process, _) = generate(dir, "inprocess", &config(dir, "", 1));
    let records = |bytes: &[u8]| {
        let mut out = Vec::new();
        decode_records(bytes, RecordFormat::Bullet, &mut |r| {
            out.push((position_fen(&r.pos), r.score_white, r.result))
        })
        .unwrap();
        out
    };
    assert_eq!(records(&over_uci), records(&in_process));
    assert!(over_uci == in_process);
}

#[test]
fn engines_that_cannot_play_are_refused_or_lose_the_game() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Cannot start: a setup error before any game.
    let cfg = config(
        dir,
        &format!(
            "engine: {{ name: dead, cmd: {}, args: [--crash-at-start] }}\n",
            &*FAKE
        ),
        1,
    );
    let out = dir.join("dead");
    datagen::create_run(&cfg, &out).unwrap();
    match datagen::run(&cfg, &out, &mut |_| {}) {
        Err(e @ DatagenError::Engine { .. }) => assert!(e.to_string().contains("dead"), "{e}"),
        other => panic!("expected a setup error, got {other:?}"),
    }
    assert_eq!(
        std::fs::read(out.join("data.bin"))
            .unwrap_or_default()
            .len(),
        0
    );
    // An illegal move in the game: that game fails, the others are written.
    let cfg = config(
        dir,
        &format!(
            "engine: {{ name: cheat, cmd: {}, args: [--illegal-after, '25'] }}\n",
            &*FAKE
        ),
        1,
    );
    let out = dir.join("cheat");
    datagen::create_run(&cfg, &out).unwrap();
    let report = datagen::run(&cfg, &out, &mut |_| {}).unwrap();
    assert!(report.counts.failed >= 1, "{:?}", report.counts);
    let ledger = std::fs::read_to_string(out.join("ledger.jsonl")).unwrap();
    assert!(ledger.contains("not legal"), "{ledger}");
    // Limits UCI does not have, and keys of the in-process engine, are refused.
    for (extra, key) in [
        ("limit: { soft_nodes: 100 }\n", "limit.soft_nodes"),
        ("params: x.yaml\n", "params"),
    ] {
        let yaml = format!(
            "games: 1\nengine: {{ name: e, cmd: {} }}\n{extra}{}",
            &*FAKE,
            if extra.starts_with("limit") {
                ""
            } else {
                "limit: { nodes: 10 }\n"
            }
        );
        let path = dir.join("bad.yaml");
        std::fs::write(&path, yaml).unwrap();
        let err = DatagenConfig::load(&path).unwrap_err().to_string();
        assert!(err.contains(key), "{err}");
    }
}
