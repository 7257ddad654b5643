//! Texel tuning end to end, as a user runs it: self-play games from
//! `karsinta match` -> `karsinta tune texel-data` -> `karsinta tune texel`
//! -> `tuned.yaml` -> `karsinta-engine --params` -> `eval` changes the way
//! the tuned weights say.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use karsinta_engine::eval::evaluate;
use karsinta_engine::Params;
use karsinta_test_support::{bin, text, workspace};

fn run(cmd: &mut Command) -> String {
    let o = cmd.output().expect("runs");
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `eval` of `fen` by the engine binary with a parameter file.
fn engine_eval(params: &Path, fen: &str) -> i32 {
    let mut child = Command::new(bin("karsinta-engine"))
        .args(["--params", params.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    write!(
        child.stdin.take().unwrap(),
        "position fen {fen}\neval\nquit\n"
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    out.lines()
        .find_map(|l| l.strip_prefix("info string eval "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no eval line: {out}"))
}

#[test]
fn selfplay_pgn_to_tuned_weights_the_engine_loads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let openings = workspace().join("openings/karsinta-4ply.epd");
    let match_cfg = d.join("selfplay.yaml");
    std::fs::write(
        &match_cfg,
        format!(
            "name: selfplay\nengines:\n  - {{ name: a, type: inprocess }}\n  - {{ name: b, type: inprocess }}\n\
             games: 16\nconcurrency: 2\nseed: 5\ntime_control: nodes=400\n\
             openings: {{ file: {}, order: random }}\nadjudication: {{ max_moves: 80 }}\n",
            openings.display()
        ),
    )
    .unwrap();
    let games = d.join("games");
    run(Command::new(bin("karsinta")).args([
        "match",
        match_cfg.to_str().unwrap(),
        "--out",
        games.to_str().unwrap(),
        "-q",
    ]));
    let pgn = games.join("games.pgn");
    let data = d.join("data.bin");
    let report = run(Command::new(bin("karsinta")).args([
        "tune",
        "texel-data",
        pgn.to_str().unwrap(),
        "-o",
        data.to_str().unwrap(),
        "--skip-plies",
        "4",
        "--lambda",
        "0.3",
        "-q",
    ]));
    assert!(report.contains("16 read, 16 used, 0 skipped"), "{report}");
    assert!(report.contains("bytes per position"), "{report}");

    let cfg = d.join("texel.yaml");
    std::fs::write(
        &cfg,
        "dataset: data.bin\nepochs: 30\nlearning_rate: 4\ntune: [material_, psqt_knight]\n\
         validation_fraction: 0.2\ncheckpoint_every: 10\n",
    )
    .unwrap();
    let out = d.join("run");
    let summary = run(Command::new(bin("karsinta")).args([
        "tune",
        "texel",
        cfg.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
        "-j",
        "2",
    ]));
    assert!(summary.contains("(finished), 30 epochs"), "{summary}");
    for f in [
        "config.yaml",
        "loss.csv",
        "loss.svg",
        "checkpoint.json",
        "report.md",
        "summary.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    assert_eq!(
        std::fs::read_to_string(out.join("loss.csv"))
            .unwrap()
            .lines()
            .count(),
        1 + 31
    );

    // The engine loads the tuned file; only the tuned weights moved, and
    // its `eval` is the evaluation under them.
    let tuned_path = out.join("tuned.yaml");
    let tuned = Params::load_yaml(&tuned_path).unwrap();
    let default = Params::default();
    assert_eq!(tuned.search, default.search);
    assert_eq!(tuned.eval.tempo, default.eval.tempo, "not tuned");
    assert_ne!(tuned.eval.material_knight, default.eval.material_knight);
    // White is a knight up: the tuned knight values show.
    let fen = "r1bqkb1r/pppp1ppp/5n2/4p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 5";
    let board = fen.parse().unwrap();
    let defaults_file = d.join("defaults.yaml");
    std::fs::write(&defaults_file, "").unwrap();
    let before = engine_eval(&defaults_file, fen);
    let after = engine_eval(&tuned_path, fen);
    assert_eq!(before, evaluate(&board, &default.eval));
    assert_eq!(after, evaluate(&board, &tuned.eval));
    assert_ne!(
        before, after,
        "the tuned knights and material change the eval"
    );
}
