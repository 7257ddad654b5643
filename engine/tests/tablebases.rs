//! `SyzygyPath` and `SyzygyProbeLimit` through the UCI loop, on the
//! repository's 3-piece tables (tests/data/syzygy): probes in the tree
//! show as `tbhits`, the root keeps only the moves that keep a win, and a
//! bad path is reported without losing the engine.

use crate::uci::Session;

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/syzygy");

fn tbhits(info: &str) -> u64 {
    info.split_whitespace()
        .skip_while(|t| *t != "tbhits")
        .nth(1)
        .map_or(0, |v| v.parse().unwrap())
}

/// `go` at `fen`; the last info line and the best move.
fn search(s: &mut Session, fen: &str, go: &str) -> (String, String) {
    s.send(&format!("position fen {fen}"));
    s.send(go);
    let (best, lines) = s.expect(|l| l.starts_with("bestmove"));
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .cloned()
        .unwrap_or_default();
    (
        info,
        best.split_whitespace().nth(1).unwrap_or("").to_string(),
    )
}

#[test]
fn the_options_are_advertised() {
    let mut s = Session::new();
    s.send("uci");
    let (_, lines) = s.expect(|l| l == "uciok");
    assert!(lines.contains(&"option name SyzygyPath type string default <empty>".to_string()));
    assert!(
        lines.contains(&"option name SyzygyProbeLimit type spin default 7 min 0 max 7".to_string())
    );
}

#[test]
fn probes_after_captures_count_as_tbhits() {
    // White's rook takes on d5 into KR v K (a win); Black's queen can
    // take it back into KQ v K. Both are in the tables.
    let fen = "8/8/8/3qk3/8/8/8/3RK3 w - - 0 1";
    let mut s = Session::new();
    let (without, _) = search(&mut s, fen, "go depth 6");
    assert_eq!(tbhits(&without), 0, "{without}");
    s.send(&format!("setoption name SyzygyPath value {TABLES}"));
    let lines = s.sync();
    assert!(
        lines.iter().any(|l| l.contains("tables of up to 3 pieces")),
        "{lines:?}"
    );
    s.send("ucinewgame");
    let (with, best) = search(&mut s, fen, "go depth 6");
    assert!(tbhits(&with) > 0, "{with}");
    assert_eq!(best, "d1d5");
    // A probe limit below the material turns the probes off.
    s.send("setoption name SyzygyProbeLimit value 2");
    s.send("ucinewgame");
    let (limited, _) = search(&mut s, fen, "go depth 6");
    assert_eq!(tbhits(&limited), 0, "{limited}");
}

#[test]
fn the_root_plays_only_winning_moves() {
    // KP v K with the opposition: Kd6 and Kf6 win, Kd5 and Kf5 draw. A
    // shallow search alone cannot tell them apart; the tables can.
    let mut s = Session::new();
    s.send(&format!("setoption name SyzygyPath value {TABLES}"));
    for _ in 0..3 {
        s.send("ucinewgame");
        let (info, best) = search(&mut s, "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", "go depth 2");
        assert!(best == "e6d6" || best == "e6f6", "{best} ({info})");
        assert!(tbhits(&info) > 0, "{info}");
    }
}

#[test]
fn a_bad_path_is_reported_and_the_engine_plays_on() {
    let mut s = Session::new();
    s.send("setoption name SyzygyPath value /no/such/tables");
    let lines = s.sync();
    assert!(
        lines.iter().any(|l| l
            == "info string error: option SyzygyPath: /no/such/tables: no such folder; no tablebases in use"),
        "{lines:?}"
    );
    let (info, best) = search(&mut s, "8/8/8/3qk3/8/8/8/3RK3 w - - 0 1", "go depth 4");
    assert_eq!(tbhits(&info), 0, "{info}");
    assert!(!best.is_empty());
    s.send("setoption name SyzygyPath value <empty>");
    assert!(!s.sync().iter().any(|l| l.contains("error")));
}
