//! Tablebase adjudication in whole matches: the repository's 3-piece
//! Syzygy tables end games the moment a capture reaches them, with the
//! tables' result, and python-chess's `chess.syzygy` agrees with every
//! adjudication (and with every game left unadjudicated).

use std::path::{Path, PathBuf};
use std::process::Command;

use karsinta_harness::config::Overrides;
use karsinta_harness::formats::pgn_write;

use crate::common::*;

fn tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/syzygy")
        .canonicalize()
        .unwrap()
}

/// Four pieces, one legal move, a capture into a 3-piece table; the
/// result after it (python-chess's `probe_wdl`).
const FORCED: &[(&str, &str)] = &[
    ("8/8/8/4P3/2qK4/5k2/8/8 w - - 0 1", "1-0"),
    ("8/8/1k6/8/8/2P5/4q3/4K3 w - - 0 1", "1/2-1/2"),
    ("8/6qK/8/8/1k6/8/5Q2/8 w - - 0 1", "1-0"),
    ("k6K/7q/8/8/8/8/1R6/8 w - - 0 1", "1-0"),
    ("6qK/8/8/8/8/8/5k2/4R3 w - - 0 1", "1/2-1/2"),
    ("8/8/7K/8/7k/p6Q/8/8 b - - 0 1", "0-1"),
    ("6Qk/8/8/4p3/8/K7/8/8 b - - 0 1", "1/2-1/2"),
    ("7q/8/1K1kQ3/8/8/8/8/8 b - - 0 1", "0-1"),
    ("kQ2K3/7r/8/8/8/8/8/8 b - - 0 1", "0-1"),
    ("8/kQ6/8/8/2r5/3K4/8/8 b - - 0 1", "1/2-1/2"),
];

fn config(dir: &Path, book: &[&str], extra: &str) -> PathBuf {
    std::fs::write(dir.join("book.epd"), book.join("\n") + "\n").unwrap();
    let text = format!(
        "engines:
  - {{ name: a, cmd: {FAKE}, args: [\"--seed\", \"3\"] }}
  - {{ name: b, cmd: {FAKE}, args: [\"--seed\", \"8\"] }}
games: {}
concurrency: 2
seed: 1
time_control: nodes=100
openings: {{ file: book.epd }}
adjudication: {{ max_moves: 80 }}
{extra}",
        2 * book.len()
    );
    let path = dir.join("tb.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// (start FEN, result, Termination tag, plies, final comment) per game.
fn games(out: &Path) -> Vec<(String, String, String, usize, String)> {
    let text = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let replayed = replay_pgn(&text);
    pgn_write::split_games(&text)
        .into_iter()
        .zip(replayed)
        .map(|(g, (result, tag, reason))| {
            let plies = pgn_write::tag_value(g, "PlyCount")
                .unwrap()
                .parse()
                .unwrap();
            let fen = pgn_write::tag_value(g, "FEN").unwrap().to_string();
            (fen, result, tag, plies, reason)
        })
        .collect()
}

#[test]
fn captures_into_the_tables_end_games_with_their_result() {
    let dir = tempfile::tempdir().unwrap();
    let book: Vec<&str> = FORCED.iter().map(|(f, _)| *f).collect();
    let section = format!("tablebases: {{ paths: [{}] }}\n", tables().display());
    let out = dir.path().join("run");
    let s = run(
        &config(dir.path(), &book, &section),
        &out,
        &Overrides::default(),
    );
    assert_eq!(s.games, 20);
    let played = games(&out);
    assert_eq!(played.len(), 20);
    for (fen, result, tag, plies, reason) in &played {
        let expected = FORCED.iter().find(|(f, _)| f == fen).unwrap().1;
        assert_eq!(result, expected, "{fen}");
        assert_eq!((tag.as_str(), *plies), ("adjudication", 1), "{fen}");
        let words = match expected {
            "1-0" => "White wins by adjudication: SyzygyTB",
            "0-1" => "Black wins by adjudication: SyzygyTB",
            _ => "Draw by adjudication: SyzygyTB",
        };
        assert_eq!(reason, words, "{fen}");
    }
    let j = summary_json(&out);
    assert_eq!(j["terminations"]["tablebase"], 20, "{}", j["terminations"]);

    // Only draws adjudicated: the won positions play on.
    let out = dir.path().join("draws");
    let section = format!(
        "tablebases: {{ paths: [{}], adjudicate: draw }}\n",
        tables().display()
    );
    run(
        &config(dir.path(), &book, &section),
        &out,
        &Overrides::default(),
    );
    for (fen, result, tag, plies, _) in games(&out) {
        let expected = FORCED.iter().find(|(f, _)| *f == fen).unwrap().1;
        if expected == "1/2-1/2" {
            assert_eq!((result.as_str(), plies), ("1/2-1/2", 1), "{fen}");
        } else {
            assert!(plies > 1, "{fen}: {tag}");
        }
    }

    // Without tables no game ends after its first move.
    let out = dir.path().join("plain");
    run(&config(dir.path(), &book, ""), &out, &Overrides::default());
    let plain = games(&out);
    assert!(plain.iter().all(|g| g.3 > 1), "{plain:?}");
    assert_eq!(summary_json(&out)["terminations"]["tablebase"], 0);
}

#[test]
fn a_bad_tablebase_folder_stops_the_run_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("syzygy");
    let cfg = config(
        dir.path(),
        &[FORCED[0].0],
        &format!("tablebases: {{ paths: [{}] }}\n", missing.display()),
    );
    let out = dir.path().join("run");
    let o = Command::new(KARSINTA)
        .args([
            "match",
            cfg.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&missing.display().to_string()) && err.contains("tablebases.paths"),
        "{err}"
    );
    assert!(!out.join("games.pgn").exists());
    // fastchess's flags reach the same check.
    let o = Command::new(KARSINTA)
        .args([
            "match",
            "-engine",
            &format!("cmd={FAKE}"),
            "-engine",
            &format!("cmd={FAKE}"),
        ])
        .args(["-each", "tc=inf", "nodes=100", "-rounds", "1", "-tb"])
        .arg(format!("{}:{}", tables().display(), missing.display()))
        .args(["--out", out.to_str().unwrap(), "-q"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&missing.display().to_string()), "{err}");
}

/// Four-piece positions played out by the fake engines, and 3-piece ones
/// late in the 50-move count.
const PLAYED: &[&str] = &[
    "1K1k4/8/8/8/R7/7r/8/8 w - - 0 1",
    "2k5/4n3/8/3R4/8/8/2K5/8 b - - 0 1",
    "8/8/K7/4R3/5k2/8/8/3n4 w - - 0 1",
    "8/2K2k2/8/8/1b6/8/1R6/8 b - - 0 1",
    "8/8/2Q5/7k/8/8/3K4/1q6 w - - 0 1",
    "8/8/8/8/2Q4r/8/1K1k4/8 b - - 0 1",
    "8/8/8/7Q/5p2/3k3K/8/8 w - - 0 1",
    "5n2/8/8/8/8/8/1R6/2k1K3 b - - 0 1",
    "8/8/8/8/3k4/8/8/KQ6 w - - 90 80",
    "8/8/8/8/3k4/8/8/KR6 w - - 84 80",
    "8/8/8/8/3k4/8/8/KR6 w - - 20 80",
    "8/8/8/8/8/4k3/8/4K2R b - - 60 80",
];

/// Every game replayed in python-chess: the first position after an
/// engine's move that the rule reaches (no castling rights, at most the
/// tables' pieces, a known WDL under the 50-move rule) must end the game
/// with the tables' result and the `adjudication` tag; a game that never
/// reaches one must not end by the tables.
#[test]
#[ignore]
fn every_adjudication_agrees_with_python_chess() {
    if karsinta_test_support::python_chess().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let section = format!("tablebases: {{ paths: [{}] }}\n", tables().display());
    let out = dir.path().join("run");
    let s = run(
        &config(dir.path(), PLAYED, &section),
        &out,
        &Overrides::default(),
    );
    let script = r#"
import sys, json, chess, chess.pgn, chess.syzygy
tb = chess.syzygy.open_tablebase(sys.argv[2])
def rules_end(b):
    return (b.is_checkmate() or b.is_stalemate() or b.is_insufficient_material()
            or b.halfmove_clock >= 100 or b.is_repetition(3))
def tb_result(b):
    if b.has_castling_rights(chess.WHITE) or b.has_castling_rights(chess.BLACK):
        return None
    if len(b.piece_map()) > 3:
        return None
    wdl = tb.get_wdl(b)
    if wdl is None:
        return None
    if b.halfmove_clock > 0 and wdl in (-2, 2):
        dtz = tb.probe_dtz(b)
        n = abs(dtz) + b.halfmove_clock
        if n == 100:
            return "ambiguous"
        if n > 100:
            wdl = 0
    if wdl in (-1, 0, 1):
        return "1/2-1/2"
    mover_wins = wdl == 2
    white_wins = mover_wins == (b.turn == chess.WHITE)
    return "1-0" if white_wins else "0-1"
counts = {"adjudicated": 0, "other": 0}
with open(sys.argv[1]) as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        b = g.board()
        expected = None
        for i, mv in enumerate(g.mainline_moves()):
            b.push(mv)
            assert expected is None, ("moves after the tables' end", g.headers["FEN"], i)
            if rules_end(b):
                break
            r = tb_result(b)
            assert r != "ambiguous", (g.headers["FEN"], b.fen())
            if r is not None:
                expected = r
        if expected is None:
            assert g.headers["Termination"] != "adjudication" or "SyzygyTB" not in g.end().comment, g.headers
            counts["other"] += 1
        else:
            assert g.headers["Result"] == expected, (g.headers, b.fen(), expected)
            assert g.headers["Termination"] == "adjudication", g.headers
            assert "SyzygyTB" in g.end().comment, g.end().comment
            counts["adjudicated"] += 1
print(json.dumps(counts))
"#;
    let o = Command::new("python3")
        .args(["-c", script])
        .arg(out.join("games.pgn"))
        .arg(tables())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let counts: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let adjudicated = counts["adjudicated"].as_u64().unwrap();
    assert_eq!(adjudicated + counts["other"].as_u64().unwrap(), s.games);
    assert_eq!(summary_json(&out)["terminations"]["tablebase"], adjudicated);
    // The 3-piece starts are all decided by the tables after one move.
    assert!(adjudicated >= 8, "{counts}");
}

/// KP v K with the opposition: only Kd6 and Kf6 keep the win (python-chess's
/// `chess.syzygy` agrees; the engine's own unit test checks the same).
const KPK: &str = "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1";

fn in_process_reply(options: &[(&str, &str)]) -> karsinta_harness::players::EngineMove {
    use karsinta_harness::players::{InProcessPlayer, MoveLimit, MoveRequest, Player};
    let options: Vec<(String, String)> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut p =
        InProcessPlayer::new("tb".into(), karsinta_engine::Params::default(), &options).unwrap();
    p.new_game().unwrap();
    p.go(&MoveRequest {
        start_fen: Some(KPK),
        moves: &[],
        variant: karsinta_harness::variant::Variant::Standard,
        limit: MoveLimit::Nodes(3000),
        deadline: std::time::Duration::from_secs(60),
    })
    .unwrap()
}

/// `SyzygyPath` (and `SyzygyProbeLimit`) of an in-process player: its
/// search probes the tables as `karsinta-engine` over UCI does; without
/// the option it probes nothing.
#[test]
fn in_process_players_probe_the_tables_of_their_syzygy_path() {
    let path = tables().display().to_string();
    let with = in_process_reply(&[("SyzygyPath", &path)]);
    assert!(with.detail.tbhits.unwrap_or(0) > 0, "{:?}", with.detail);
    assert!(
        ["e6d6", "e6f6"].contains(&with.uci.as_str()),
        "{}",
        with.uci
    );
    // Below the material: no probe, as over UCI.
    let limited = in_process_reply(&[("SyzygyPath", &path), ("SyzygyProbeLimit", "2")]);
    assert_eq!(limited.detail.tbhits, Some(0));
    let without = in_process_reply(&[]);
    assert_eq!(without.detail.tbhits, Some(0));
    // `<empty>`, the UCI option's default, is no tables.
    let empty = in_process_reply(&[("SyzygyPath", "<empty>")]);
    assert_eq!(empty.detail.tbhits, Some(0));
    assert_eq!((empty.uci, empty.nodes), (without.uci, without.nodes));
}

/// A `SyzygyPath` that cannot be used is a config error naming the engine,
/// the key and the folder, before any game; so is a bad probe limit.
#[test]
fn a_bad_syzygy_path_of_an_in_process_player_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let load = |options: &str| {
        let text = format!(
            "engines:
  - {{ name: tb, type: inprocess, options: {{ {options} }} }}
  - {{ name: plain, type: inprocess }}
games: 2
time_control: nodes=100
"
        );
        let path = dir.path().join("tb.yaml");
        std::fs::write(&path, text).unwrap();
        karsinta_harness::config::MatchConfig::load(&path, &Overrides::default())
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let err = load("SyzygyPath: /no/such/tables").unwrap_err();
    for part in [
        "engines[0].options.SyzygyPath",
        "engine 'tb'",
        "/no/such/tables: no such folder",
    ] {
        assert!(err.contains(part), "{err}");
    }
    let empty = tempfile::tempdir().unwrap();
    let err = load(&format!("SyzygyPath: {}", empty.path().display())).unwrap_err();
    assert!(err.contains("no Syzygy tables"), "{err}");
    let err = load("SyzygyProbeLimit: 9").unwrap_err();
    assert!(
        err.contains("engines[0].options.SyzygyProbeLimit") && err.contains("0 to 7"),
        "{err}"
    );
    let good = format!("SyzygyPath: {}, SyzygyProbeLimit: 3", tables().display());
    assert_eq!(load(&good), Ok(()));
}
