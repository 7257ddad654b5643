//! The `info` lines of a search, driven through the UCI loop: principal
//! variations that stop at a draw by rule (fastchess replays every PV and
//! warns about a move played after the game is over), mate scores with
//! their sign and distance, `seldepth` and `hashfull`.

use karsinta_engine::board::position::GameState;
use karsinta_engine::uci::parse_position;

use crate::uci::{last_info, Session};

/// The value after `key` in an `info` line.
fn field<'a>(info: &'a str, key: &str) -> Option<&'a str> {
    info.split_whitespace().skip_while(|t| *t != key).nth(1)
}

fn number(info: &str, key: &str) -> i64 {
    field(info, key)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number after '{key}' in: {info}"))
}

fn pv_of(info: &str) -> Vec<&str> {
    info.split(" pv ")
        .nth(1)
        .map_or_else(Vec::new, |pv| pv.split_whitespace().collect())
}

/// The `info depth` lines among `lines`.
fn infos(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect()
}

/// Replay every PV of `lines` from `position` (the arguments of the
/// `position` command) as fastchess does: each move must be legal and
/// played while the game, its history included, is still going on.
fn assert_pvs_stay_in_the_game(position: &str, lines: &[String]) {
    let args: Vec<&str> = position.split_whitespace().collect();
    let root = parse_position(&args, false).unwrap();
    for info in infos(lines) {
        let mut pos = root.clone();
        for mv in pv_of(info) {
            assert_eq!(
                pos.state(),
                GameState::Ongoing,
                "{mv} played after the game ended in: {info}"
            );
            pos.play_uci(mv)
                .unwrap_or_else(|e| panic!("{e} in: {info}"));
        }
    }
}

/// Search `go` at `position`; the lines before `bestmove`.
fn search(s: &mut Session, position: &str, go: &str) -> Vec<String> {
    s.send(&format!("position {position}"));
    s.send(go);
    s.expect(|l| l.starts_with("bestmove")).1
}

/// Two rooks mate in 2 from here (Ra7, then Rb8).
const LADDER: &str = "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1";

/// The table knows the mating line from a search at a fresh halfmove clock;
/// at 98 the 50-move rule ends the game after two plies, and the PV, read
/// from that table (which does not key the clock), used to run on to Rb8.
#[test]
fn pv_stops_at_the_fifty_move_rule() {
    let mut s = Session::new();
    search(&mut s, &format!("fen {LADDER}"), "go depth 8");
    let late = "fen 7k/8/8/8/8/8/R7/1R4K1 w - - 98 60";
    let lines = search(&mut s, late, "go depth 8");
    assert_pvs_stay_in_the_game(late, &lines);
    let last = last_info(&lines).unwrap();
    assert_eq!(pv_of(last), ["a2a7", "h8g8"], "{last}");
    assert_eq!(
        field(last, "score"),
        Some("cp"),
        "a draw, not a mate: {last}"
    );
    s.finish();
}

/// The position after Ra7 has occurred twice in the game: Ra7 repeats it a
/// third time, and the PV must end there, not go on with the table's Kg8
/// Rb8 from an earlier search.
#[test]
fn pv_stops_at_a_repetition_of_the_game() {
    let mut s = Session::new();
    search(&mut s, &format!("fen {LADDER}"), "go depth 8");
    // The game starts after Ra7, and the ladder position occurs twice.
    let repeated = "fen 7k/R7/8/8/8/8/8/1R4K1 b - - 1 1 moves h8g8 a7a2 g8h8 a2a7 h8g8 a7a2 g8h8";
    let lines = search(&mut s, repeated, "go depth 8 searchmoves a2a7");
    assert_pvs_stay_in_the_game(repeated, &lines);
    let last = last_info(&lines).unwrap();
    assert_eq!(pv_of(last), ["a2a7"], "{last}");
    s.finish();
}

/// Insufficient material ends the game too: taking the last pawn leaves
/// two bare kings, and no PV goes on from there.
#[test]
fn pv_stops_at_insufficient_material() {
    let mut s = Session::new();
    let position = "fen 8/8/8/4k3/8/8/3p4/4K3 w - - 0 1";
    let lines = search(&mut s, position, "go depth 6");
    assert_pvs_stay_in_the_game(position, &lines);
    assert_eq!(pv_of(last_info(&lines).unwrap()), ["e1d2"]);
    s.finish();
}

/// `score mate N`: N moves (not plies), positive when the side to move
/// mates, negative when it is mated; the PV is the whole mating line. (A
/// shallow search may prove a longer mate than the shortest, in the b1b6
/// case mate -3 up to depth 13; the depth here leaves that out.)
#[test]
fn mate_scores_count_moves_with_the_winner_s_sign() {
    let mut s = Session::new();
    let cases = [
        (LADDER.to_string(), 2),
        (format!("{LADDER} moves a2a7"), -1),
        (format!("{LADDER} moves a2a7 h8g8"), 1),
        ("8/6k1/8/8/8/8/R7/1R4K1 w - - 0 1".to_string(), 3),
        (
            "8/6k1/8/8/8/8/R7/1R4K1 w - - 0 1 moves b1b6".to_string(),
            -2,
        ),
        (
            "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1".to_string(),
            2,
        ),
    ];
    for (fen, mate) in cases {
        s.send("ucinewgame");
        let position = format!("fen {fen}");
        let lines = search(&mut s, &position, "go depth 16");
        let last = last_info(&lines).unwrap();
        assert_eq!(field(last, "score"), Some("mate"), "{fen}: {last}");
        assert_eq!(number(last, "mate"), mate, "{fen}: {last}");
        let pv = pv_of(last);
        let plies = if mate > 0 { 2 * mate - 1 } else { -2 * mate };
        assert_eq!(pv.len() as i64, plies, "{fen}: {last}");
        let args: Vec<&str> = position.split_whitespace().collect();
        let mut pos = parse_position(&args, false).unwrap();
        for mv in pv {
            pos.play_uci(mv).unwrap();
        }
        assert_eq!(pos.state(), GameState::Checkmate, "{fen}: {last}");
    }
    s.finish();
}

/// `seldepth` is the deepest ply the iteration reached, quiescence
/// included: past the nominal depth in a middlegame, and below it when
/// every line ends in a mate at once (it used to be raised to the depth).
#[test]
fn seldepth_is_the_deepest_ply_reached() {
    let mut s = Session::new();
    let lines = search(
        &mut s,
        "fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "go depth 6",
    );
    for info in infos(&lines) {
        assert!(number(info, "seldepth") <= 2, "mate in 1: {info}");
    }
    assert_eq!(number(last_info(&lines).unwrap(), "depth"), 6);
    s.send("ucinewgame");
    let position = "startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6";
    let lines = search(&mut s, position, "go depth 6");
    for info in infos(&lines) {
        let (depth, sel) = (number(info, "depth"), number(info, "seldepth"));
        assert!(sel >= depth && sel < depth + 40, "{info}");
    }
    let deepest = infos(&lines)
        .iter()
        .map(|l| number(l, "seldepth") - number(l, "depth"))
        .max()
        .unwrap();
    assert!(deepest > 0, "quiescence goes past the depth: {lines:?}");
    s.finish();
}

/// `hashfull` is the per-mille use of the table by the current search: near
/// empty after `ucinewgame`, near full once a search has stored far more
/// entries than a 1 MiB table holds, and again low for the next search.
#[test]
fn hashfull_reports_the_table_use() {
    let mut s = Session::new();
    s.send("setoption name Hash value 1");
    s.send("ucinewgame");
    let lines = search(&mut s, "startpos", "go depth 2");
    let first = number(infos(&lines)[0], "hashfull");
    assert!(first <= 5, "{lines:?}");
    let lines = search(&mut s, "startpos moves d2d4 g8f6 c2c4", "go nodes 150000");
    let full = number(last_info(&lines).unwrap(), "hashfull");
    assert!((300..=1000).contains(&full), "{full}");
    // A new search's entries are the only ones counted.
    let lines = search(&mut s, "startpos moves e2e4", "go depth 1");
    let next = number(infos(&lines)[0], "hashfull");
    assert!(next < 50, "{next}");
    s.finish();
}
