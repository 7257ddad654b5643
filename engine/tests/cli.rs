//! The command line: perft and bench output formats, parameter files
//! (`--params`, `params --yaml`, `params --spsa`) and their errors.

use std::process::Command;

fn engine() -> Command {
    Command::new(env!("CARGO_BIN_EXE_karsinta-engine"))
}

fn run_ok(args: &[&str]) -> String {
    let out = engine().args(args).output().expect("engine runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn perft_prints_divide_then_nodes_and_nps() {
    let out = run_ok(&["perft", "3"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 21, "{out}");
    assert!(lines.contains(&"e2e4: 600"), "{out}");
    let last: Vec<&str> = lines[20].split(' ').collect();
    assert_eq!(
        (last[0], last[1], last[3]),
        ("8902", "nodes", "nps"),
        "{out}"
    );
    assert!(last[2].parse::<u64>().is_ok());

    let out = run_ok(&["perft", "2", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"]);
    assert!(out.contains("e1g1: ") && out.contains("e1c1: "), "{out}");
    assert!(
        out.lines().last().unwrap().starts_with("568 nodes "),
        "{out}"
    );

    let out = engine().args(["perft", "2", "not a fen"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid FEN"));
}

#[test]
fn params_yaml_round_trips_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tuned.yaml");
    std::fs::write(&path, "null_move_r: 2\nsearch_algorithm: mtdf\n").unwrap();
    let yaml = run_ok(&["--params", path.to_str().unwrap(), "params", "--yaml"]);
    assert!(yaml.lines().any(|l| l == "null_move_r: 2"), "{yaml}");
    assert!(
        yaml.lines().any(|l| l == "search_algorithm: mtdf"),
        "{yaml}"
    );
    // The printed set loads back to itself.
    let full = dir.path().join("full.yaml");
    std::fs::write(&full, &yaml).unwrap();
    assert_eq!(
        run_ok(&["--params", full.to_str().unwrap(), "params", "--yaml"]),
        yaml
    );
    assert_eq!(run_ok(&["params"]), run_ok(&["params", "--yaml"]));

    let spsa = run_ok(&["--params", path.to_str().unwrap(), "params", "--spsa"]);
    assert!(
        spsa.lines()
            .any(|l| l == "null_move_r, int, 2, 1, 6, 1, 0.002"),
        "{spsa}"
    );
}

#[test]
fn params_spsa_selects_search_eval_all_or_prefixes() {
    let names = |args: &[&str]| -> Vec<String> {
        run_ok(args)
            .lines()
            .map(|l| l.split(',').next().unwrap().to_string())
            .collect()
    };
    let search = names(&["params", "--spsa"]);
    assert!(search.contains(&"null_move_r".to_string()));
    assert!(
        !search.iter().any(|n| n.starts_with("material_")),
        "default is the search parameters only"
    );
    assert!(search.len() < 100, "{}", search.len());
    let eval = names(&["params", "--spsa", "--eval"]);
    assert!(eval.contains(&"material_knight_mg".to_string()));
    assert!(!eval.contains(&"null_move_r".to_string()));
    let all = names(&["params", "--spsa", "--all"]);
    assert_eq!(all.len(), search.len() + eval.len());
    let some = names(&["params", "--spsa", "lmr_", "material_pawn"]);
    assert_eq!(
        some,
        [
            "lmr_base",
            "lmr_divisor",
            "lmr_min_depth",
            "lmr_min_move",
            "lmr_pv_less16",
            "lmr_killer_less16",
            "lmr_not_improving16",
            "lmr_history_divisor",
            "material_pawn_mg",
            "material_pawn_eg"
        ]
    );
    let eval_prefix = names(&["params", "--spsa", "--eval", "lmr_", "tempo"]);
    assert_eq!(eval_prefix, ["tempo_mg", "tempo_eg"]);
    let out = engine().args(["params", "--eval"]).output().unwrap();
    assert!(!out.status.success(), "--eval needs --spsa");
}

#[test]
fn bad_params_file_fails_with_file_key_and_range() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    std::fs::write(&path, "null_move_r: 42\n").unwrap();
    let out = engine()
        .args(["--params", path.to_str().unwrap(), "params"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.yaml") && err.contains("null_move_r") && err.contains("1..=6"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one clean line: {err}");

    std::fs::write(&path, "no_such_knob: 1\n").unwrap();
    let out = engine()
        .args(["--params", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no_such_knob"));

    let out = engine()
        .args(["--params", "/nonexistent/x.yaml", "bench"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/x.yaml"));
}

#[test]
fn bench_last_line_is_nodes_and_nps() {
    let a = run_ok(&["bench", "2"]);
    let b = run_ok(&["bench", "2"]);
    let last = a.lines().last().unwrap();
    let f: Vec<&str> = last.split(' ').collect();
    assert_eq!(f.len(), 4, "{last}");
    assert_eq!((f[1], f[3]), ("nodes", "nps"));
    assert!(f[0].parse::<u64>().unwrap() > 0);
    assert_eq!(f[0], b.lines().last().unwrap().split(' ').next().unwrap());
}

#[test]
fn bench_and_ablate_refuse_depth_zero() {
    for args in [
        &["bench", "0"][..],
        &["bench", "--", "-3"],
        &["ablate", "0"],
    ] {
        let out = engine().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("expected a depth in 1..=100"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn ablate_runs_minimax_only_on_request() {
    let out = run_ok(&["ablate", "1"]);
    assert!(out.contains("reference (given parameters)"), "{out}");
    assert!(!out.contains("minimax"), "{out}");
    let out = run_ok(&["ablate", "1", "--minimax", "1"]);
    assert!(out.contains("alpha-beta saving, depth 1"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("minimax ")), "{out}");
}

#[test]
fn perft_refuses_positions_the_board_cannot_hold() {
    for (fen, why) in [
        (
            "8/8/8/4kK2/8/8/8/8 w - - 0 1",
            "kings stand on adjacent squares",
        ),
        ("4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", "white has 9 pawns"),
    ] {
        let out = engine().args(["perft", "2", fen]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{fen}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why) && !err.contains("panicked"), "{err}");
    }
    // More legal moves (238) than any reachable position: counted, not a panic.
    let out = run_ok(&[
        "perft",
        "1",
        "1Q3Qbk/3Q2pp/Q5Q1/Q3Q3/2Q4Q/Q4Q1Q/3Q4/KQ4Q1 w - - 0 1",
    ]);
    assert!(
        out.lines().last().unwrap().starts_with("238 nodes"),
        "{out}"
    );
}
