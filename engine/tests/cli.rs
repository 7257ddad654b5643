//! The command line: perft and bench output formats, parameter files
//! (`--params`, `params --yaml`, `params --spsa`, `eval` and `qeval` under
//! them) and their errors.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use karsinta_engine::eval::evaluate;
use karsinta_engine::Params;

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
    let eval = names(&["params", "--spsa", "--eval"]);
    // The evaluation has several times the search's tunables.
    assert!(
        search.len() * 4 < eval.len(),
        "{} {}",
        search.len(),
        eval.len()
    );
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
            "lmr_ttpv_less16",
            "lmr_cut_node16",
            "lmr_tt_capture16",
            "lmr_deeper_margin_cp",
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

/// The engine's UCI output for `commands` (then `quit`), with `--params`
/// if given.
fn uci(params: Option<&Path>, commands: &str) -> String {
    let mut cmd = engine();
    if let Some(p) = params {
        cmd.args(["--params", p.to_str().unwrap()]);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("engine runs");
    let mut stdin = child.stdin.take().unwrap();
    write!(stdin, "{commands}\nquit\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{commands}");
    String::from_utf8(out.stdout).unwrap()
}

/// The scores of the `info string {key} N cp (side to move)` lines, in order.
fn scores(out: &str, key: &str) -> Vec<i32> {
    let prefix = format!("info string {key} ");
    out.lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|r| {
            r.strip_suffix(" cp (side to move)")
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("not a {key} score: {r}"))
        })
        .collect()
}

#[test]
fn params_file_moves_eval_and_qeval() {
    // A pawn worth 30 cp more in the middlegame and 60 more in the endgame.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pawns.yaml");
    let pawn = Params::default().eval.material_pawn;
    std::fs::write(
        &path,
        format!(
            "material_pawn_mg: {}\nmaterial_pawn_eg: {}\n",
            pawn.0 + 30,
            pawn.1 + 60
        ),
    )
    .unwrap();
    // Both positions have a rook each (phase 4 of 24), so an extra pawn
    // gains (30 * 4 + 60 * 20) / 24 = 55 cp. In the first White is a pawn
    // up with nothing to capture; in the second the pawns are level, but
    // exd5 wins one: the static eval does not move, the quiescence score
    // (its leaf a pawn up) does.
    let up = "r3k3/pp3ppp/8/8/8/8/PPP2PPP/R3K3 w - - 0 1";
    let wins = "r3k3/pp3ppp/8/3p4/4P3/8/PP3PPP/R3K3 w - - 0 1";
    let commands = format!("position fen {up}\neval\nqeval\nposition fen {wins}\neval\nqeval");
    let before = uci(None, &commands);
    let after = uci(Some(&path), &commands);
    let delta = |key: &str| -> Vec<i32> {
        let (b, a) = (scores(&before, key), scores(&after, key));
        assert_eq!((b.len(), a.len()), (2, 2), "{before}{after}");
        a.iter().zip(&b).map(|(a, b)| a - b).collect()
    };
    assert_eq!(delta("eval"), [55, 0], "{before}{after}");
    assert_eq!(delta("qeval"), [55, 55], "{before}{after}");
    // And `eval` is the library's evaluation under the loaded file.
    let loaded = Params::load_yaml(&path).unwrap();
    let expected: Vec<i32> = [up, wins]
        .iter()
        .map(|f| evaluate(&f.parse().unwrap(), &loaded.eval))
        .collect();
    assert_eq!(scores(&after, "eval"), expected);
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
