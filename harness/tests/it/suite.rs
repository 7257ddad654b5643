//! `karsinta suite`: EPD parsing (operations, quoted strings, every bad line
//! named), solving with the in-process engine, reproducible results at fixed
//! nodes, and engine faults (no engine: setup error; a crash or hang on one
//! position: that position's failure, then a restarted engine).

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{FAKE, KARSINTA};
use karsinta_harness::play::suite::{
    engine_spec, parse_suite, run_suite, PositionResult, SuiteError, SuiteSettings,
};
use karsinta_harness::players::MoveLimit;
use serde_json::Value;

/// Easy positions with known answers: two mates in 1, a mate in 2 with two
/// solutions (1.Kb6 Kb8 2.Rh8#, 1.Kc7 Ka7 2.Ra1#) and a queen that must
/// not take a defended pawn.
const EASY: &str = r#"6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id "mate1.white";
r5k1/8/8/8/8/8/5PPP/6K1 b - - bm Ra1+; id "mate1.black";
k7/8/2K5/8/8/8/8/7R w - - bm Kb6 Kc7; id "mate2.two-solutions";
4k3/8/4p3/3p4/8/8/8/3QK3 w - - am Qxd5; id "avoid.hanging-queen";
"#;

/// Three Win-At-Chess positions (public test data) and the easy ones: what
/// the determinism and fault tests search.
fn mixed_suite() -> String {
    format!(
        "{}{EASY}",
        r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";
8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - bm Rxb2; id "WAC.002";
5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - bm Rg3; id "WAC.003";
"#
    )
}

fn karsinta(dir: &Path, args: &[&str]) -> Output {
    Command::new(KARSINTA)
        .arg("suite")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run karsinta")
}

fn describe(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The JSON without what legitimately differs between runs: times.
fn without_times(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("time_ms");
    for r in v["results"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("time_ms");
    }
    v
}

#[test]
fn operations_ids_and_quoted_semicolons_parse() {
    let text = "\u{feff}# a comment, then an empty line\n\n\
        r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5 Bc4 d4; \
          am Nxe5; id \"open; italian\"; c0 \"a comment; with semicolons\";\n\
        4k3/8/8/8/8/8/4P3/4K3 w - - 3 40 bm e4;\n\
        4k3/8/8/8/8/8/8/4K2R w K - hmvc 7; fmvn 51; am O-O; id solo\n";
    let recs = parse_suite(text, Path::new("dir/t.epd")).unwrap();
    assert_eq!(recs.len(), 3);

    let r = &recs[0];
    assert_eq!((r.line, r.id.as_str()), (3, "open; italian"));
    let bm: Vec<&str> = r.bm.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(bm, ["Bb5", "Bc4", "d4"]);
    assert_eq!(r.am[0].san, "Nxe5");
    assert_eq!(r.am[0].uci, "f3e5");
    assert!(r.fen.ends_with(" w KQkq - 0 1"), "{}", r.fen);
    assert_eq!(r.expected(), "bm Bb5 Bc4 d4 am Nxe5");
    assert!(r.is_solution("f1b5") && r.is_solution("d2d4"));
    assert!(!r.is_solution("f3e5") && !r.is_solution("h2h3"));

    // Six-field FEN, no id: the file and line name it.
    assert_eq!(recs[1].id, "t.epd:4");
    assert!(recs[1].fen.ends_with(" 3 40"));
    // Counters from hmvc/fmvn; castling as UCI king move; am only.
    assert!(recs[2].fen.ends_with(" 7 51"), "{}", recs[2].fen);
    assert_eq!(recs[2].am[0].uci, "e1g1");
    assert!(recs[2].bm.is_empty());
    assert!(recs[2].is_solution("h1h8") && !recs[2].is_solution("e1g1"));
}

#[test]
fn every_bad_line_is_named_before_any_search() {
    let good = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - -";
    let lines = [
        format!("{good} bm Qg6; id \"fine\";"),
        format!("{good} bm Qg7; id \"illegal\";"),
        "2rr3k/pp3pp1/8/8/8/8/8/R4RK9 w - - bm Qg6;".to_string(),
        format!("{good} id \"neither bm nor am\";"),
        format!("{good} bm Zz9;"),
        format!("{good} bm Qg6; id \"unterminated;"),
        format!("{good} bm Nd7 Qg6;"),
        format!("{good} bm Qg6; bm Qg6;"),
        format!("{good} bm Qg6; am Qg6;"),
        "just some words".to_string(),
    ];
    let text = lines.join("\n");
    let err = parse_suite(&text, Path::new("s/bad.epd")).unwrap_err();
    let SuiteError::BadLines { lines: bad, .. } = &err else {
        panic!("{err}")
    };
    let numbers: Vec<usize> = bad.iter().map(|b| b.line).collect();
    assert_eq!(numbers, [2, 3, 4, 5, 6, 7, 8, 9, 10]);
    let message = err.to_string();
    for n in 2..=10 {
        assert!(message.contains(&format!("s/bad.epd:{n}: ")), "{message}");
    }
    assert!(message.contains("bm 'Qg7': not a legal move"), "{message}");
    assert!(message.contains("bm 'Zz9': not a SAN move"), "{message}");
    assert!(message.contains("no bm or am"), "{message}");
    assert!(message.contains("unterminated"), "{message}");

    // The command refuses the file with status 2 and searches nothing.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.epd"), &text).unwrap();
    let out = karsinta(dir.path(), &["bad.epd", "--depth", "3"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(out.stdout.is_empty(), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.epd:7: bm 'Nd7'"), "{stderr}");
    assert!(stderr.contains("9 bad lines"), "{stderr}");

    let empty = parse_suite("# nothing\n\n", Path::new("e.epd")).unwrap_err();
    assert!(matches!(empty, SuiteError::Empty { .. }), "{empty}");
}

#[test]
fn in_process_engine_solves_mates_and_avoids_the_am_move() {
    let records = parse_suite(EASY, Path::new("easy.epd")).unwrap();
    let spec = engine_spec("inprocess", None, &[("Hash".into(), "4".into())]).unwrap();
    // Depth 8: karsinta-engine's reductions hide the quiet 1.Kb6 of the
    // mate in 2 up to depth 6 (it plays Rh7, then Rh8+ with mate in 3).
    let settings = SuiteSettings {
        limit: MoveLimit::Depth(8),
        timeout: SuiteSettings::default_timeout(&MoveLimit::Depth(8)),
        jobs: 2,
    };
    let mut seen = Vec::new();
    let report = run_suite(&spec, &records, &settings, &mut |r: &PositionResult| {
        seen.push(r.id.clone())
    })
    .unwrap();
    // Reported in file order whatever the workers' finishing order.
    let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(seen, ids);
    for r in &report.results {
        assert!(r.solved, "{r:?}");
        assert_eq!(r.error, None);
    }
    assert_eq!((report.solved, report.positions, report.errors), (4, 4, 0));
    assert!(report.unsolved.is_empty());
    assert!(report.summary_text().starts_with("Solved 4/4 (100.0%)"));
    let r = &report.results;
    assert_eq!(r[0].move_san.as_deref(), Some("Ra8#"));
    assert_eq!(r[1].move_uci.as_deref(), Some("a8a1"));
    assert!(["Kb6", "Kc7"].contains(&r[2].move_san.as_deref().unwrap_or("")));
    assert_ne!(r[3].move_san.as_deref(), Some("Qxd5"));
    assert!(matches!(
        r[2].score,
        Some(karsinta_harness::players::EngineScore::Mate(2))
    ));

    // A bm/am check the engine cannot pass: the hanging capture fails.
    assert!(!records[3].is_solution("d1d5"));
}

#[test]
fn fixed_nodes_give_the_same_json_apart_from_times() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mixed.epd"), mixed_suite()).unwrap();
    let run = |json: &str, jobs: &str| {
        let out = karsinta(
            dir.path(),
            &[
                "mixed.epd",
                "--nodes",
                "20000",
                "-j",
                jobs,
                "--json",
                json,
                "--option",
                "Hash=4",
            ],
        );
        assert!(out.status.success(), "{}", describe(&out));
        (out, without_times(read_json(&dir.path().join(json))))
    };
    let (out, a) = run("a.json", "2");
    let (_, b) = run("b.json", "2");
    assert_eq!(a, b);
    // Fresh engine state per position: one worker gives the same results.
    let (_, c) = run("c.json", "1");
    assert_eq!(a["results"], c["results"]);

    assert_eq!(a["positions"], 7);
    assert_eq!(a["file"], "mixed.epd");
    assert_eq!(a["limit"], "nodes=20000");
    let first = &a["results"][0];
    for key in [
        "id", "fen", "bm", "am", "move_san", "move_uci", "solved", "score", "depth", "nodes",
        "error",
    ] {
        assert!(first.get(key).is_some(), "{key} missing: {first}");
    }
    // One line per position in file order, then the summary.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    for (i, id) in ["WAC.001", "WAC.002", "WAC.003", "mate1.white"]
        .iter()
        .enumerate()
    {
        assert!(lines[i].starts_with(id), "{stdout}");
    }
    assert!(
        lines[3].contains("got Ra8#") && lines[3].contains(" ok "),
        "{stdout}"
    );
    let solved = a["solved"].as_u64().unwrap();
    assert!(stdout.contains(&format!("Solved {solved}/7 (")), "{stdout}");

    // --quiet: the summary only.
    let out = karsinta(dir.path(), &["mixed.epd", "--depth", "2", "--quiet"]);
    assert!(out.status.success(), "{}", describe(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("Solved "), "{stdout}");
    assert!(!stdout.contains("WAC.001  bm"), "{stdout}");
}

#[test]
fn an_engine_that_cannot_start_is_a_setup_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("easy.epd"), EASY).unwrap();
    let out = karsinta(
        dir.path(),
        &[
            "easy.epd",
            "--engine",
            "cmd=/nonexistent",
            "--nodes",
            "1000",
            "--json",
            "out.json",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(out.stdout.is_empty(), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent"));
    assert!(!dir.path().join("out.json").exists());

    let spec = format!("cmd={FAKE},arg=--crash-at-start");
    let out = karsinta(
        dir.path(),
        &["easy.epd", "--engine", &spec, "--nodes", "1000"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(out.stdout.is_empty(), "{}", describe(&out));
}

/// `mixed.epd` at 1000 nodes through `spec` with `extra` flags: a run that
/// must succeed, and its `--json` results.
fn mixed_run(dir: &Path, spec: &str, extra: &[&str], json: &str) -> (Output, Value) {
    let mut args = vec!["mixed.epd", "--engine", spec, "--nodes", "1000"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--json", json]);
    let out = karsinta(dir, &args);
    assert!(out.status.success(), "{}", describe(&out));
    let v = read_json(&dir.join(json));
    (out, v)
}

#[test]
fn a_crash_or_hang_fails_one_position_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mixed.epd"), mixed_suite()).unwrap();
    // Each process answers one move, then crashes on the next `go`; only a
    // restarted engine can answer the position after a crash.
    let spec = format!("cmd={FAKE},arg=--crash-after,arg=1");
    let (out, v) = mixed_run(dir.path(), &spec, &[], "crash.json");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 7);
    for (i, r) in results.iter().enumerate() {
        if i % 2 == 1 {
            let e = r["error"].as_str().unwrap_or("");
            assert!(e.contains("crashed"), "{r}");
            assert_eq!(r["solved"], false);
            assert!(r["move_uci"].is_null());
        } else {
            assert!(r["error"].is_null(), "{r}");
            assert!(r["move_uci"].is_string(), "{r}");
        }
    }
    assert_eq!(v["errors"], 3);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("WAC.002") && stdout.contains("ERROR engine crashed"));
    assert!(stdout.contains("Errors (3):"), "{stdout}");

    // A hang: the timeout ends the position, the engine is killed and
    // restarted for the next one.
    let spec = format!("cmd={FAKE},arg=--hang-after,arg=1");
    let (_, v) = mixed_run(dir.path(), &spec, &["--timeout-ms", "300"], "hang.json");
    let errors: Vec<bool> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["error"].as_str().is_some_and(|e| e.contains("in time")))
        .collect();
    assert_eq!(errors, [false, true, false, true, false, true, false]);
}
