//! Helpers for the workspace's end-to-end tests (`tests/tests/*.rs`): where
//! the built binaries are, external tools (Debian engines, the Python `chess`
//! package) that the slow suites need, and an independent PGN oracle.
//!
//! The tests drive the `karsinta` and `karsinta-engine` binaries exactly as a
//! user does. They are binaries of other packages, so Cargo does not build
//! them for this package's tests: [`bin`] finds those Cargo built with the
//! same profile when the whole workspace is tested.

pub mod shape;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// The target folder of the running test's profile (`target/release` when
/// the test binary is `target/release/deps/NAME-HASH`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .and_then(Path::parent)
        .expect("test binary lives in <target>/<profile>/deps")
        .to_path_buf()
}

/// Path of a workspace binary (`karsinta`, `karsinta-engine`) in the test's
/// own profile folder. `cargo test --workspace` builds them (they are the
/// subjects of the engine's and harness's own integration tests); a test run
/// of this package alone needs `cargo build` with the same profile first.
/// (Building from here would wait forever on the lock the outer cargo holds.)
pub fn bin(name: &str) -> PathBuf {
    let path = profile_dir().join(name);
    assert!(
        path.exists(),
        "{} is missing: run `cargo test --workspace` (or `cargo build --bins` with this profile) first",
        path.display()
    );
    path
}

/// When set (CI does), a missing external tool fails the test instead of
/// skipping it, so a broken install cannot pass as green.
fn required() -> bool {
    std::env::var_os("KARSINTA_CI").is_some_and(|v| v == "1")
}

fn skip(what: &str) -> Option<PathBuf> {
    assert!(!required(), "KARSINTA_CI=1 but {what} is missing");
    eprintln!("skipped: {what} is not installed");
    None
}

/// A Debian chess engine (`/usr/games/NAME`), if installed.
pub fn debian_engine(name: &str) -> Option<PathBuf> {
    let path = Path::new("/usr/games").join(name);
    if path.exists() {
        Some(path)
    } else {
        skip(&path.display().to_string())
    }
}

/// `python3` with the `chess` package, if installed.
pub fn python_chess() -> Option<PathBuf> {
    let ok = Command::new("python3")
        .args(["-c", "import chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some(PathBuf::from("python3"))
    } else {
        skip("python3 with the chess package")
    }
}

/// Stdout and stderr of a finished command, for assertion messages.
pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The PGN oracle: replays every game of `pgn` with python-chess (an
/// implementation of the rules independent of the harness's shakmaty) and
/// prints one JSON object: games, per-result counts, and for the player
/// `first` its wins/draws/losses. It fails on any illegal move, a PlyCount
/// that does not match the moves, or a Result that contradicts a final
/// checkmate, stalemate or insufficient material.
pub const PGN_ORACLE: &str = r#"
import sys, json, chess, chess.pgn
path, first = sys.argv[1], sys.argv[2]
out = {"games": 0, "1-0": 0, "0-1": 0, "1/2-1/2": 0, "wins": 0, "draws": 0, "losses": 0,
       "terminations": {}}
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
