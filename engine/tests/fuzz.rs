//! Fuzzing the engine's inputs: the FEN parser and the UCI loop get random
//! and garbled text and random boards. Nothing may panic, not even inside the
//! search thread where the loop would catch it: a panic hook counts every
//! panic, caught or not. The `#[ignore]`d suites run many cases (CI runs
//! them with `--include-ignored`); the smoke versions run a few.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};

use karsinta_engine::board::perft::perft;
use karsinta_engine::uci::{SharedWriter, UciEngine};
use karsinta_engine::{Limits, Params, Position, Searcher};
use proptest::prelude::*;

static PANICS: AtomicUsize = AtomicUsize::new(0);
static HOOK: Once = Once::new();

/// Count every panic of the code under test in this test binary, caught or
/// not (a failed assertion of a test in this file is not counted: it fails
/// its own test, not every test that checks the count; one of another
/// file's tests is, but that test has failed already).
fn count_panics() {
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.location().is_none_or(|l| !l.file().ends_with(file!())) {
                PANICS.fetch_add(1, Ordering::SeqCst);
            }
            default(info);
        }));
    });
}

fn assert_no_panic_so_far() {
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a panic happened");
}

#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const PIECES: &[u8] = b"PNBRQKpnbrqk";

/// A FEN built from a random board: kings placed first (so most boards get
/// past the king count), then other pieces, random side, castling and en
/// passant fields. Illegal ones (adjacent kings, checks, back-rank pawns,
/// too many pieces, bad rights) come up often.
fn random_board_fen() -> impl Strategy<Value = String> {
    (
        0usize..64,
        0usize..64,
        prop::collection::vec((0usize..64, 0usize..PIECES.len()), 0..40),
        any::<bool>(),
        prop::sample::select(vec!["-", "K", "Q", "k", "q", "KQkq", "Kq", "KK", "X"]),
        prop::sample::select(vec![
            "-", "a3", "e3", "h3", "a6", "d6", "h6", "e4", "z9", "e",
        ]),
        0u32..120,
        0u32..70_000,
    )
        .prop_map(|(wk, bk, others, white, castling, ep, half, full)| {
            let mut squares = [b'.'; 64];
            for (sq, p) in others {
                squares[sq] = PIECES[p];
            }
            squares[wk] = b'K';
            squares[bk] = b'k';
            let mut placement = String::new();
            for rank in (0..8).rev() {
                let mut empty = 0;
                for file in 0..8 {
                    match squares[rank * 8 + file] {
                        b'.' => empty += 1,
                        p => {
                            if empty > 0 {
                                placement.push_str(&empty.to_string());
                                empty = 0;
                            }
                            placement.push(p as char);
                        }
                    }
                }
                if empty > 0 {
                    placement.push_str(&empty.to_string());
                }
                if rank > 0 {
                    placement.push('/');
                }
            }
            let side = if white { "w" } else { "b" };
            format!("{placement} {side} {castling} {ep} {half} {full}")
        })
}

/// Garbled FEN-like text.
fn garbled_fen() -> impl Strategy<Value = String> {
    "[pnbrqkPNBRQK0-9/ wb\\-KQkqa-h]{0,80}"
}

/// Whatever the parser accepts must be usable: moves generate, perft runs,
/// a short search returns a legal move, the FEN round-trips.
fn exercise(fen: &str) {
    let Ok(pos) = Position::from_fen(fen) else {
        return;
    };
    let again = Position::from_fen(&pos.to_fen()).expect("own FEN parses");
    assert_eq!(again.to_fen(), pos.to_fen());
    let moves = pos.legal_moves();
    assert_eq!(perft(pos.board(), 1), moves.len() as u64);
    perft(pos.board(), 2);
    let mut searcher = Searcher::new(Params::default());
    let limits = Limits {
        nodes: Some(300),
        ..Limits::default()
    };
    let r = searcher.search(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
    match r.best_move {
        Some(mv) => assert!(pos.parse_uci(&mv).is_ok(), "{fen}: illegal {mv}"),
        None => assert!(moves.is_empty(), "{fen}: no move found"),
    }
}

/// One UCI command line: mostly well-formed commands with random
/// arguments, some random bytes.
fn command_line() -> impl Strategy<Value = Vec<u8>> {
    let word = prop::sample::select(vec![
        "uci",
        "isready",
        "ucinewgame",
        "position",
        "startpos",
        "fen",
        "moves",
        "go",
        "depth",
        "nodes",
        "movetime",
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "infinite",
        "perft",
        "mate",
        "searchmoves",
        "ponder",
        "stop",
        "ponderhit",
        "setoption",
        "name",
        "value",
        "Hash",
        "Clear Hash",
        "null_move_r",
        "lmr",
        "d",
        "eval",
        "e2e4",
        "e7e5",
        "e1g1",
        "a7a8q",
        "0000",
        "-1",
        "0",
        "1",
        "2",
        "3",
        "50",
        "99999999999999999999",
        "true",
        "w",
        "b",
        "-",
        "KQkq",
    ]);
    prop_oneof![
        4 => prop::collection::vec(word, 0..8).prop_map(|w| w.join(" ").into_bytes()),
        2 => random_board_fen().prop_map(|f| format!("position fen {f}").into_bytes()),
        1 => (random_board_fen(), prop::collection::vec("[a-h][1-8][a-h][1-8][qrbn]?", 0..4))
            .prop_map(|(f, m)| format!("position fen {f} moves {}", m.join(" ")).into_bytes()),
        1 => (0u64..400).prop_map(|n| format!("go nodes {n}").into_bytes()),
        1 => (0u32..3).prop_map(|d| format!("go perft {d}").into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..60),
    ]
}

/// Drive the loop with `lines`, then stop any search; every `go` must get
/// its `bestmove` and nothing may panic.
fn drive_uci(lines: &[Vec<u8>]) {
    let sink = Sink::default();
    let mut engine = UciEngine::new(SharedWriter::new(sink.clone()), Params::default());
    let mut input = Vec::new();
    for l in lines {
        input.extend_from_slice(l);
        input.push(b'\n');
    }
    // `run` stops the last search at end of input, as a GUI closing would.
    engine.run(std::io::Cursor::new(input));
    let out = String::from_utf8_lossy(&sink.0.lock().unwrap()).into_owned();
    assert!(!out.contains("panicked"), "{out}");
}

fn fuzz_fens(cases: u32) {
    count_panics();
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(fen in random_board_fen(), garbled in garbled_fen())| {
        exercise(&fen);
        exercise(&garbled);
    });
    assert_no_panic_so_far();
}

fn fuzz_uci(cases: u32) {
    count_panics();
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(lines in prop::collection::vec(command_line(), 0..12))| {
        drive_uci(&lines);
    });
    assert_no_panic_so_far();
}

#[test]
fn fen_parser_smoke() {
    fuzz_fens(64);
}

#[test]
#[ignore = "fuzz suite: many cases"]
fn fen_parser_fuzz() {
    fuzz_fens(20_000);
}

#[test]
fn uci_loop_smoke() {
    fuzz_uci(32);
}

#[test]
#[ignore = "fuzz suite: many cases"]
fn uci_loop_fuzz() {
    fuzz_uci(3_000);
}

/// The positions issue 13 found: refused with the reason, or searched.
#[test]
fn positions_the_board_cannot_hold_are_refused_and_big_ones_searched() {
    count_panics();
    let sink = Sink::default();
    let mut engine = UciEngine::new(SharedWriter::new(sink.clone()), Params::default());
    let adjacent = "8/8/8/4kK2/8/8/8/8 w - - 0 1";
    engine.handle_line(&format!("position fen {adjacent}"));
    engine.handle_line("go depth 2");
    // 238 legal moves: more than any reachable position has.
    let crowded = "1Q3Qbk/3Q2pp/Q5Q1/Q3Q3/2Q4Q/Q4Q1Q/3Q4/KQ4Q1 w - - 0 1";
    let pos = Position::from_fen(crowded).unwrap();
    assert!(pos.legal_moves().len() > 218);
    engine.handle_line(&format!("position fen {crowded}"));
    engine.handle_line("go depth 3");
    let bestmoves = || {
        String::from_utf8_lossy(&sink.0.lock().unwrap())
            .matches("bestmove")
            .count()
    };
    while bestmoves() < 2 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    engine.stop_search();
    let out = String::from_utf8_lossy(&sink.0.lock().unwrap()).into_owned();
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error")
                && l.contains("kings stand on adjacent squares")),
        "{out}"
    );
    // The first `go` searched the start position (the bad FEN changed nothing).
    let first = lines.iter().find(|l| l.starts_with("bestmove")).unwrap();
    assert!(Position::startpos()
        .parse_uci(first.split(' ').nth(1).unwrap())
        .is_ok());
    assert!(!out.contains("panicked"), "{out}");
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("bestmove"))
        .unwrap();
    assert!(pos.parse_uci(last.split(' ').nth(1).unwrap()).is_ok());
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 3")),
        "searched to depth 3: {out}"
    );
    assert_no_panic_so_far();
}
