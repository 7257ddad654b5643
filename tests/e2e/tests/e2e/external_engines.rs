//! Matches against real engines from Debian, over UCI and xboard, checked
//! end to end: every game replays in python-chess, its result agrees with
//! `summary.json`, and the harness's counts add up. Needs `apt-get install
//! stockfish fairymax phalanx` and `pip install chess` (`.ci/run` does both).

use std::path::Path;
use std::process::Command;

use karsinta_test_support::{
    bin, debian_engine, python_chess, replay_with_python_chess, text, workspace,
};
use serde_json::Value;

/// Play `config` into `dir/run` and return its summary.
fn play(dir: &Path, config: &str) -> Value {
    let cfg = dir.join("match.yaml");
    std::fs::write(&cfg, config).unwrap();
    let o = Command::new(bin("karsinta"))
        .args(["match", "--quiet", "--json", "--out"])
        .arg(dir.join("run"))
        .arg(&cfg)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The oracle's counts must equal the summary's, for `first`'s view.
fn check_against_oracle(dir: &Path, s: &Value, first: &str) {
    let games = s["games"].as_u64().unwrap();
    let Some(py) = python_chess() else { return };
    let r = replay_with_python_chess(&py, &dir.join("run/games.pgn"), first);
    assert_eq!(r["games"].as_u64().unwrap(), games, "{r}");
    for key in ["wins", "draws", "losses"] {
        assert_eq!(r[key], s[key], "{key}: oracle {r} summary {s}");
    }
}

fn epd(dir: &Path) -> String {
    // The first openings of a shipped suite: real, balanced positions.
    let suite = std::fs::read_to_string(workspace().join("openings/karsinta-8ply.epd")).unwrap();
    let path = dir.join("open.epd");
    std::fs::write(&path, suite.lines().take(8).collect::<Vec<_>>().join("\n")).unwrap();
    path.display().to_string()
}

/// karsinta-engine over UCI against Stockfish at its weakest calibrated
/// level, on a real clock: the harness keeps the clocks and sends them.
#[test]
#[ignore = "needs Debian's stockfish; plays on a clock"]
fn uci_engine_against_stockfish_on_a_clock() {
    let Some(sf) = debian_engine("stockfish") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "name: e2e-uci
engines:
  - name: karsinta
    cmd: {engine}
    options: {{ Hash: 8 }}
  - name: stockfish
    cmd: {sf}
    options: {{ Threads: 1, Hash: 8, UCI_LimitStrength: true, UCI_Elo: 1350 }}
games: 4
concurrency: 2
time_control: 2+0.05
time_margin_ms: 200
seed: 3
openings: {{ file: {epd} }}
adjudication: {{ max_moves: 120 }}
",
        engine = bin("karsinta-engine").display(),
        sf = sf.display(),
        epd = epd(dir.path()),
    );
    let s = play(dir.path(), &config);
    assert_eq!(s["games"], 4);
    check_against_oracle(dir.path(), &s, "karsinta");
    // Both engines' stderr is kept in the run folder.
    for name in ["karsinta", "stockfish"] {
        let log = dir.path().join(format!("run/{name}.stderr.log"));
        assert!(log.exists(), "{}", log.display());
    }
}

/// A gauntlet of the in-process engine against xboard engines (Fairy-Max,
/// Phalanx) and a UCI one, at fixed depth: three protocols in one run, with
/// a rating list.
#[test]
#[ignore = "needs Debian's fairymax, phalanx and stockfish"]
fn gauntlet_across_protocols() {
    let (Some(fm), Some(ph), Some(sf)) = (
        debian_engine("fairymax"),
        debian_engine("phalanx"),
        debian_engine("stockfish"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "name: e2e-gauntlet
tournament: gauntlet
engines:
  - name: karsinta
    type: inprocess
  - name: fairymax
    type: xboard
    cmd: {fm}
  - name: phalanx
    type: xboard
    cmd: {ph}
  - name: stockfish
    cmd: {sf}
    options: {{ Threads: 1, Hash: 8 }}
games: 4
concurrency: 2
time_control: depth=3
seed: 5
openings: {{ file: {epd} }}
adjudication: {{ max_moves: 100 }}
",
        fm = fm.display(),
        ph = ph.display(),
        sf = sf.display(),
        epd = epd(dir.path()),
    );
    let s = play(dir.path(), &config);
    assert_eq!(s["games"], 12, "4 games against each of 3 opponents");
    let pairings = s["pairings"].as_array().unwrap();
    assert_eq!(pairings.len(), 3);
    for p in pairings {
        assert_eq!(p["games"], 4, "{p}");
    }
    let ratings = s["ratings"].as_array().expect("a rating list");
    assert_eq!(ratings.len(), 4, "{ratings:?}");
    check_against_oracle(dir.path(), &s, "karsinta");
    // Nothing was lost to protocol trouble with these well-behaved engines.
    for bad in ["crash", "protocol_error", "stall", "illegal_move"] {
        assert_eq!(s["terminations"][bad], 0, "{bad}: {s}");
    }
}
