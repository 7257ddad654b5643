//! An independent PGN oracle: python-chess replays the harness's games.

use std::path::Path;
use std::process::Command;

use crate::output::text;

/// The PGN oracle: replays every game of `pgn` with python-chess (an
/// implementation of the rules independent of the harness's shakmaty) and
/// prints one JSON object: games, per-result counts, the games it read as
/// Chess960 (a `Variant` tag), and for the player `first` its
/// wins/draws/losses. It fails on any illegal move, a PlyCount
/// that does not match the moves, or a Result that contradicts a final
/// checkmate, stalemate or insufficient material.
pub const PGN_ORACLE: &str = r#"
import sys, json, chess, chess.pgn
path, first = sys.argv[1], sys.argv[2]
out = {"games": 0, "1-0": 0, "0-1": 0, "1/2-1/2": 0, "wins": 0, "draws": 0, "losses": 0,
       "terminations": {}, "chess960": 0}
with open(path) as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        if g.errors:
            sys.exit(f"game {out['games'] + 1}: {g.errors}")
        for tag in ("Event", "Site", "Date", "Round", "White", "Black", "Result"):
            if tag not in g.headers:
                sys.exit(f"game {out['games'] + 1}: no {tag} tag")
        board = g.end().board()
        start = g.board()
        r = g.headers["Result"]
        if int(g.headers["PlyCount"]) != board.ply() - start.ply():
            sys.exit(f"game {out['games'] + 1}: PlyCount {g.headers['PlyCount']}")
        if board.is_checkmate() and r != ("0-1" if board.turn else "1-0"):
            sys.exit(f"game {out['games'] + 1}: checkmate scored {r}")
        if (board.is_stalemate() or board.is_insufficient_material()) and r != "1/2-1/2":
            sys.exit(f"game {out['games'] + 1}: dead draw scored {r}")
        out["games"] += 1
        out["chess960"] += int(start.chess960)
        out[r] += 1
        pts = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}[r]
        if g.headers["White"] == first:
            mine = pts
        elif g.headers["Black"] == first:
            mine = 2 - pts
        else:
            mine = None
        if mine is not None:
            out[{2: "wins", 1: "draws", 0: "losses"}[mine]] += 1
        t = g.headers.get("Termination", "?")
        out["terminations"][t] = out["terminations"].get(t, 0) + 1
print(json.dumps(out))
"#;

/// Run [`PGN_ORACLE`] on `pgn` from `first`'s point of view.
pub fn replay_with_python_chess(python: &Path, pgn: &Path, first: &str) -> serde_json::Value {
    let o = Command::new(python)
        .args(["-c", PGN_ORACLE])
        .arg(pgn)
        .arg(first)
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "python-chess rejected {}: {}",
        pgn.display(),
        text(&o)
    );
    serde_json::from_slice(&o.stdout).expect("oracle prints JSON")
}
